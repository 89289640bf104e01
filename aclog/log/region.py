"""A segment's batches read in one pass over its bytes: the reader's fast path.

:class:`~aclog.log.segment.SegmentScan` reads a batch at a time (two buffered reads, a
:class:`~aclog.log.batch.BatchHeader` and a :class:`~aclog.log.segment.RawBatch` each), which
in a log written one request at a time (batches of 1-4 records) was most of the cost of
reading it. :func:`region_batches` reads the bytes after the scan's position in
a few large reads and walks them with ``struct.unpack_from`` and ``crc32c`` over memoryview
slices, making only the :class:`LogBatch` each batch becomes. It takes only batches that are
whole and check (header, size, CRC-32C, offset continuity, epoch order, record count: the
checks :class:`SegmentScan` makes, in its order); at the first batch it does not take it stops,
and the scan itself goes on from that byte with the offset and epoch reached, so every problem
is found, classified and reported exactly as before (``tests/log/test_region.py`` holds the
two paths equal, damage included).

Not thread-safe: it advances the scan it is given. Cost: O(bytes after the position), a header
check, a CRC and the values' slices per batch (the ``smallbatch`` rows of ``make bench``);
memory: one read window (:data:`WINDOW` bytes, or one batch if larger).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NamedTuple

from crc32c import crc32c

from aclog.log import files
from aclog.log.batch import CRC_START, HEADER, HEADER_SIZE, LENGTH_PREFIX, MAGIC, record_values
from aclog.log.errors import CorruptLogError
from aclog.log.segment import MAX_BATCH_BYTES, SegmentScan

WINDOW = 4 << 20
"""Bytes read at a time: a batch that ends past a window starts the next one."""

_FULL_PARSE = 0x27  # compression bits or the control flag: the batch takes record_values
_PREFIXES = [bytes((0, 0, 2 * delta, 1)) for delta in range(64)]
"""What follows a record's length in this log's batches, by offset delta (one varint byte up
to 63): attributes 0, timestamp delta 0, the offset delta, a null key."""


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One record value with where and when it was committed."""

    offset: int
    epoch: int
    timestamp_ms: int
    value: bytes


class LogBatch(NamedTuple):
    """One committed batch: offsets ``base_offset..last_offset``, all with one epoch.
    Immutable. (A named tuple: a log written one request at a time makes one per record or
    two, and a tuple is made in a third of a frozen dataclass's time.)"""

    base_offset: int
    last_offset: int
    epoch: int
    timestamp_ms: int
    values: tuple[bytes, ...]
    segment: Path
    position: int

    def records(self) -> Iterator[LogRecord]:
        """The batch's records with their offsets."""
        for delta, value in enumerate(self.values):
            yield LogRecord(self.base_offset + delta, self.epoch, self.timestamp_ms, value)


def region_batches(scan: SegmentScan) -> Iterator[LogBatch]:
    """The batches ``scan`` would give (as :class:`LogBatch`, their values parsed), from its
    position to its end: as many as one pass takes, then the rest through ``scan`` itself,
    which sets its ``problem`` as it would have. Raises :class:`CorruptLogError` for a batch
    whose records do not parse, as the reader does."""
    with files.open_reader(scan.path, buffering=1 << 16) as file:
        while scan.end_position < scan.size:
            window = _window(file, scan)
            if window is None:
                break
            before = scan.end_position
            yield from _window_batches(scan, window)
            if scan.end_position == before:
                break  # a batch the pass does not take: the scan decides what it is
    for raw in scan:
        header = raw.header
        yield to_batch(raw.data, header.base_offset, header.epoch, scan.path, raw.position)


def _window(file: BinaryIO, scan: SegmentScan) -> bytes | None:
    """The bytes from the scan's position: :data:`WINDOW` of them, or the whole batch there
    when it claims more; ``None`` when they are not all there (the file shrank under us, or
    the header claims more than the file holds: the scan decides what that is)."""
    remaining = scan.size - scan.end_position
    file.seek(scan.end_position)
    head = file.read(HEADER_SIZE)
    if len(head) < HEADER_SIZE:
        return None
    fields = HEADER.unpack_from(head)
    claimed = fields[1] + LENGTH_PREFIX
    if fields[3] != MAGIC or not HEADER_SIZE <= claimed <= min(MAX_BATCH_BYTES, remaining):
        return None
    want = min(remaining, max(WINDOW, claimed))
    window = head + file.read(want - HEADER_SIZE)
    return window if len(window) == want else None


def _window_batches(scan: SegmentScan, window: bytes) -> Iterator[LogBatch]:
    """The whole, checked batches at the start of ``window`` (read at the scan's position),
    advancing the scan past each (and past batches below its ``skip_below``, unread)."""
    view, unpack, path, skip_below, end = (
        memoryview(window),
        HEADER.unpack_from,
        scan.path,
        scan.skip_below,
        scan.end_offset,
    )
    start, at, last = scan.end_position, 0, len(window) - HEADER_SIZE
    next_offset, last_epoch = scan.next_offset, scan.last_epoch
    while at <= last:
        base, length, epoch, magic, crc, flags, delta, _, stamp, _, _, _, count = unpack(window, at)
        stop = at + length + LENGTH_PREFIX
        if magic != MAGIC or stop - at < HEADER_SIZE or stop > len(window):
            return  # (a batch past the window's end starts the next window)
        if end is not None and base + delta >= end:
            return  # at or over the next segment's base: the scan says fenced or corrupt
        skipped = base + delta < skip_below and base == next_offset
        if not skipped and (
            crc32c(view[at + CRC_START : stop]) != crc
            or base != next_offset
            or epoch < last_epoch
            or count < 1
            or count != delta + 1
        ):
            return
        next_offset, last_epoch = base + delta + 1, epoch
        scan.end_position, scan.next_offset, scan.last_epoch = start + stop, next_offset, epoch
        if not skipped:
            yield _batch(window, at, stop, flags, count, base, epoch, stamp, path, start + at)
        at = stop


def _batch(
    window: bytes,
    at: int,
    stop: int,
    flags: int,
    count: int,
    base: int,
    epoch: int,
    stamp: int,
    path: Path,
    position: int,
) -> LogBatch:
    """The batch at ``window[at:stop]``; a small batch as this log writes it parsed in line
    (its values are what :func:`record_values` gives; anything else goes through it)."""
    if count <= len(_PREFIXES) and not flags & _FULL_PARSE:
        values = _small_values(window, at + HEADER_SIZE, stop, count)
        if values is not None:
            return LogBatch(base, base + count - 1, epoch, stamp, values, path, position)
    return to_batch(window[at:stop], base, epoch, path, position)


def _small_values(window: bytes, at: int, stop: int, count: int) -> tuple[bytes, ...] | None:
    """The values of the ``count`` records at ``window[at:stop]`` when each has one- or
    two-byte length varints, a zero timestamp delta, its offset delta, a null key and no
    headers; ``None`` for anything else (the general parser then decides)."""
    values = []
    starts = window.startswith
    try:
        for prefix in _PREFIXES[:count]:
            byte = window[at]
            if byte < 0x80 and not byte & 1:
                at += 1
                end = at + (byte >> 1)
            elif window[at + 1] < 0x80 and not byte & 1:
                at += 2
                end = at + (((byte & 0x7F) | window[at - 1] << 7) >> 1)
            else:
                return None
            if end > stop or not starts(prefix, at):
                return None
            byte = window[at + 4]
            if byte < 0x80 and not byte & 1:
                at += 5
                size = byte >> 1
            elif window[at + 5] < 0x80 and not byte & 1:
                size = ((byte & 0x7F) | window[at + 5] << 7) >> 1
                at += 6
            else:
                return None
            if at + size + 1 != end or window[end - 1]:
                return None
            values.append(window[at : at + size])
            at = end
    except IndexError:
        return None
    return tuple(values) if at == stop else None


def to_batch(data: bytes, base: int, epoch: int, path: Path, position: int) -> LogBatch:
    """The batch whose checked bytes are ``data``, read at ``position`` of ``path``; raises
    :class:`CorruptLogError` there when its records do not parse or are not as many as its
    header says."""
    fields = HEADER.unpack_from(data)
    count, last = fields[12], base + fields[6]
    try:
        values = record_values(data)
    except ValueError as err:
        raise CorruptLogError(str(path), position, str(err)) from None
    if len(values) != count:
        raise CorruptLogError(str(path), position, f"{len(values)} records, header says {count}")
    return LogBatch(base, last, epoch, fields[8], tuple(values), path, position)
