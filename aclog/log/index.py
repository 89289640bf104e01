"""A sparse offset index per segment, so a read can start near an offset instead of at byte 0.

``{base_offset:020d}.index`` is Kafka's offset index: 8-byte entries (the *last* offset of a
batch relative to the segment's base, the position where that batch starts), both big-endian
uint32, one entry at most every ``INTERVAL_BYTES`` of segment, so Kafka's
``kafka-dump-log.sh --verify-index-only`` finds no mismatch. An entry says "the batch starting at
this position holds this offset"; a lookup for offset X takes the greatest entry at or below X
and scans forward from its position (every batch before it ends below the entry's offset), as
Kafka's ``OffsetIndex.lookup`` and ``LogSegment.translateOffset`` do.

Earlier aclog versions wrote each batch's *first* offset instead. Such an entry says the same
thing ("the batch here holds this offset"), so a lookup that checks that the batch at an entry's
position holds the entry's offset (:func:`batch_at`) is right under both conventions: readers
use old indexes as they are, and writers rebuild them (:mod:`aclog.log.index_upgrade`).

The index is a hint, never the truth: it is not fsynced, a reader checks the batch at an entry's
position, and the writer rebuilds the index of the last segment when it recovers it.
:func:`estimated_end_offset` reads the same index to guess where a log ends (for a progress
bar, never for a decision). No ``.timeindex`` is written: nothing in aclog looks an offset up
by time through one.

Not thread-safe for writing (the log's single writer owns it); loading is safe from any process.
Cost: lookup O(log entries) with ``bisect``; :func:`batch_at` one small read.
"""

from __future__ import annotations

import bisect
import errno
import logging
import struct
from pathlib import Path
from typing import BinaryIO

from aclog.log import files
from aclog.log.batch import HEADER_SIZE, MAGIC, parse_header
from aclog.log.modes import write_private
from aclog.log.segment import list_segments

ENTRY = struct.Struct(">II")
INTERVAL_BYTES = 4096
INDEX_SUFFIX = ".index"
logger = logging.getLogger(__name__)


def index_path(segment: Path) -> Path:
    """The index file beside a segment."""
    return segment.with_suffix(INDEX_SUFFIX)


class OffsetIndex:
    """The (offset, position) entries of one segment, in offset order: the batch starting at
    each position holds the entry's offset (its last one, in what aclog writes)."""

    def __init__(self, base_offset: int, entries: list[tuple[int, int]] | None = None) -> None:
        self.base_offset = base_offset
        self.offsets = [o for o, _ in entries or []]
        self.positions = [p for _, p in entries or []]
        self.unreadable = False
        """Whether the file could not be read (so these are no entries): a writer rebuilds it."""

    @classmethod
    def load(cls, segment: Path, base_offset: int) -> OffsetIndex:
        """Read the index beside ``segment``; a missing or torn file gives what is readable.

        An index is derived data (the damage policy: "The data directory" in the README), so
        a file that cannot be read (EIO, say) is done without, by every reader and the writer
        alike: logged at WARNING (once per file and process), and the read starts at the
        segment's first byte (only slower); a writer rebuilds it (:attr:`unreadable`). A link
        is refused, as every link in a data directory is."""
        try:
            data = files.read_bytes(index_path(segment))
        except FileNotFoundError:
            return cls(base_offset)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise  # a link is refused as everywhere in a data directory, never done without
            _warn_unreadable(index_path(segment), error)
            index = cls(base_offset)
            index.unreadable = True
            return index
        usable = len(data) - len(data) % ENTRY.size
        entries = [(base_offset + rel, pos) for rel, pos in ENTRY.iter_unpack(data[:usable])]
        return cls(base_offset, entries)

    def floor(self, offset: int) -> tuple[int, int]:
        """The last entry at or before ``offset`` as (offset, position): the batch holding
        ``offset`` starts at that position or after it. The segment start when there is none."""
        i = bisect.bisect_right(self.offsets, offset) - 1
        if i < 0:
            return self.base_offset, 0
        return self.offsets[i], self.positions[i]

    def last_position(self) -> int:
        return self.positions[-1] if self.positions else 0

    def due(self, position: int) -> bool:
        """True when a batch starting at ``position`` should get an entry."""
        return position - self.last_position() >= INTERVAL_BYTES

    def add(self, last_offset: int, position: int) -> bytes:
        """Record the entry of the batch at ``position`` ending at ``last_offset`` and return
        its bytes for the caller to append to the file."""
        self.offsets.append(last_offset)
        self.positions.append(position)
        return ENTRY.pack(last_offset - self.base_offset, position)

    def note(self, last_offset: int, position: int) -> None:
        """Add the entry of the batch at ``position`` ending at ``last_offset`` if one is due
        (building an index by scanning a segment)."""
        if self.due(position):
            self.add(last_offset, position)

    def keep(self, count: int) -> None:
        """Keep only the first ``count`` entries (undoing the entries of a failed append)."""
        del self.offsets[count:]
        del self.positions[count:]

    def truncate_after(self, position: int) -> None:
        """Drop entries at or after ``position``."""
        keep = bisect.bisect_left(self.positions, position)
        del self.offsets[keep:]
        del self.positions[keep:]

    def write(self, segment: Path) -> None:
        """Replace the index file with these entries (not fsynced: it is a hint). A file that
        already holds them is left alone, so opening a log that commits nothing changes no
        file's bytes or mtime."""
        data = b"".join(
            ENTRY.pack(o - self.base_offset, p)
            for o, p in zip(self.offsets, self.positions, strict=True)
        )
        try:
            if files.read_bytes(index_path(segment)) == data:
                return
        except FileNotFoundError:  # missing: write it (a link is refused, never replaced)
            pass
        except OSError as error:  # unreadable: replace it, unless it is a link (refused)
            if error.errno == errno.ELOOP:
                raise
        tmp = index_path(segment).with_suffix(".index.tmp")
        write_private(tmp, data)
        files.replace(tmp, index_path(segment))


_warned: set[Path] = set()
"""The index files already reported unreadable by this process (a reader that looks into one
repeatedly says so once)."""


def _warn_unreadable(path: Path, error: OSError) -> None:
    if path not in _warned:
        _warned.add(path)
        logger.warning(
            "cannot read %s (%s): reading its segment from the start instead (an offset index "
            "is only a shortcut; the writer rebuilds it)",
            path,
            error.strerror,
        )


def batch_at(path: Path, position: int) -> tuple[int, int] | None:
    """(first offset, last offset) of the batch whose header starts at ``position`` of the
    segment at ``path``; ``None`` when no batch header is there (the CRC is not checked: the
    scan that reads the batch does). Cost: opening the file and one read of 61 bytes."""
    try:
        with files.open_reader(path) as file:
            return span_at(file, position)
    except OSError:
        return None


def span_at(file: BinaryIO, position: int) -> tuple[int, int] | None:
    """:func:`batch_at` in a segment already open as ``file``."""
    file.seek(position)
    head = file.read(HEADER_SIZE)
    if len(head) < HEADER_SIZE:
        return None
    header = parse_header(head)
    if header.magic != MAGIC or header.last_offset_delta < 0:
        return None
    return header.base_offset, header.last_offset


def kafka_mismatches(segment: Path, base_offset: int) -> list[tuple[int, int | None]]:
    """The entries of the index of ``segment`` that Kafka's ``kafka-dump-log.sh
    --verify-index-only`` reports, as (entry offset, last offset of the batch at the entry's
    position, ``None`` when no batch starts there): those whose offset is not that batch's last.
    Cost: loading the index and one small read per entry."""
    index = OffsetIndex.load(segment, base_offset)
    found: list[tuple[int, int | None]] = []
    with files.open_reader(segment) as file:
        for offset, position in zip(index.offsets, index.positions, strict=True):
            span = span_at(file, position)
            if span is None or span[1] != offset:
                found.append((offset, None if span is None else span[1]))
    return found


def estimated_end_offset(directory: Path) -> int | None:
    """About the next offset the log in ``directory`` (aclog's or KRaft's: both keep Kafka's
    sparse offset index) will write: the last segment's last index entry, extrapolated over the
    bytes after it. ``None`` when there is nothing to go on. Cost: one directory scan and one
    read of the last segment's index."""
    try:
        segments = list_segments(directory)
        if not segments:
            return None
        base, path = segments[-1]
        size = path.stat().st_size
        index = OffsetIndex.load(path, base)
    except OSError:
        return None
    if not index.offsets or index.positions[-1] <= 0:
        return base + max(1, size // 100)  # a small segment: about 100 bytes a record
    per_byte = (index.offsets[-1] - base) / index.positions[-1]
    return index.offsets[-1] + int((size - index.positions[-1]) * per_byte) + 1


def index_start(path: Path, base: int, from_offset: int) -> tuple[int, int]:
    """(first offset, position) of a batch to start scanning at for ``from_offset``: the one
    at the greatest index entry at or below it, if that batch holds the entry's offset (true of
    Kafka's last-offset entries and of the first-offset entries older aclog wrote); the segment
    start when there is none or the index is stale."""
    if from_offset <= base:
        return base, 0
    offset, position = OffsetIndex.load(path, base).floor(from_offset)
    if position == 0:
        return base, 0
    span = batch_at(path, position)
    if span is None or not base <= span[0] <= offset <= span[1]:
        return base, 0  # a stale index: fall back to the start of the segment
    return span[0], position
