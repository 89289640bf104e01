"""Reading a log directory: batches and records from any offset, by any number of readers.

A reader takes no lock and never writes. It picks the segment holding the start offset from the
file names, jumps near the offset with the segment's sparse index, and scans forward, checking
every batch it returns (header, size, CRC-32C, offsets, epochs). Damage followed by valid data,
or in a batch below the recovery point (:mod:`aclog.log.torn`), raises
:class:`CorruptLogError`; an incomplete batch above it at the very end of the last segment is a
write in progress (or a torn tail the writer will quarantine and cut) and ends the read
quietly, or raises :class:`TornTailError` for a strict read. A segment ends where the next one
begins or at a newer epoch's fence, whichever comes first: bytes after that were appended by a
deposed leader and are not part of the log (the rule: :func:`~aclog.log.fenced.segment_ends`;
README, "Epoch fencing").

Thread-safe: each read opens its own files. Cost: O(log segments) to pick the segment,
O(log index entries) to seek, then O(bytes read).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from aclog.log.claims import claimed_after
from aclog.log.errors import CorruptLogError
from aclog.log.fenced import older_than, read_plan
from aclog.log.index import index_start
from aclog.log.recovery_point import read_recovery_point
from aclog.log.region import LogBatch, LogRecord, region_batches
from aclog.log.segment import (
    SegmentScan,
    list_segments,
    segment_base_offset,
    segment_file_name,
)
from aclog.log.torn import TornTailError, check_ending_epoch, confirm_tail


def read_batches(
    directory: Path,
    from_offset: int = 0,
    to_offset: int | None = None,
    *,
    strict: bool = False,
) -> Iterator[LogBatch]:
    """Every batch holding an offset in ``[from_offset, to_offset)`` (``None``: to the end).

    A batch straddling ``from_offset`` or ``to_offset`` is returned whole; callers that need
    exact bounds filter its records. A torn tail ends the read quietly, or with
    :class:`TornTailError` when ``strict`` (tools that must report one: verify, dump).

    A batch appended by :meth:`~aclog.log.SegmentedLog.append` reads back whole, as the append
    described it:

    >>> import tempfile
    >>> from aclog.log import SegmentedLog
    >>> with tempfile.TemporaryDirectory() as tmp, SegmentedLog(tmp, fsync=False) as log:
    ...     appended = log.append([b"a", b"b"], epoch=1, timestamp_ms=1000)
    ...     read = list(read_batches(Path(tmp)))
    >>> (appended.base_offset, appended.last_offset, appended.epoch, appended.values)
    (0, 1, 1, (b'a', b'b'))
    >>> read == [appended]
    True
    """
    point = read_recovery_point(directory)
    newest = point.offset - 1  # the batch ending here has its epoch checked
    segments = list_segments(directory)
    bases = [base for base, _ in segments]
    first, ends = read_plan(
        directory, segments, max(bisect.bisect_right(bases, from_offset) - 1, 0)
    )
    for i in range(first, len(segments)):
        base, path = segments[i]
        if to_offset is not None and base >= to_offset:
            return
        for batch in _scan_from(path, base, from_offset, end=ends[i], strict=strict):
            if to_offset is not None and batch.base_offset >= to_offset:
                return
            if batch.last_offset == newest:
                check_ending_epoch(path, batch.last_offset, batch.epoch, batch.position, point)
            yield batch


def read_records(
    directory: Path, from_offset: int = 0, to_offset: int | None = None
) -> Iterator[LogRecord]:
    """Every record with an offset in ``[from_offset, to_offset)``."""
    for batch in read_batches(directory, from_offset, to_offset):
        for record in batch.records():
            if record.offset < from_offset:
                continue
            if to_offset is not None and record.offset >= to_offset:
                return
            yield record


def read_segment_file(path: Path, base_offset: int) -> Iterator[LogBatch]:
    """Every batch of one segment file, read on its own (the rest of the log unknown).

    Strict: bytes at the end that are not a whole batch raise :class:`TornTailError` (for a
    file that is no segment at all, at byte 0)."""
    in_log = segment_base_offset(path) is not None
    yield from _scan_from(path, base_offset, base_offset, end=None, strict=True, in_log=in_log)


def _scan_from(
    path: Path, base: int, from_offset: int, *, end: int | None, strict: bool, in_log: bool = True
) -> Iterator[LogBatch]:
    """The batches of the segment at ``path`` from ``from_offset`` up to ``end``, the next
    segment's base (``None`` for the last segment: to its end)."""
    start_offset, start_position = index_start(path, base, from_offset)
    scan = SegmentScan(
        path,
        position=start_position,
        next_offset=start_offset,
        skip_below=from_offset,
        end_offset=end,
    )
    yield from region_batches(scan)
    problem = scan.problem
    if problem is None:
        return
    if not (problem.tail and end is None):
        raise CorruptLogError(str(path), problem.position, problem.reason)
    torn = confirm_tail(path, problem, in_log=in_log)  # raises below the recovery point
    if torn is not None and strict:
        raise TornTailError(torn)


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a tail's last read ended: the segment, the byte after the last whole batch, and
    the offset and epoch a next batch there must continue from."""

    segment: Path
    position: int
    next_offset: int
    epoch: int
    end: int | None = None  # the next segment's base, when the read listed one


class LogTail:
    """Represents one follower's place at the end of a log directory, so that reading what was
    appended since its last read costs only the new bytes.

    A read from the offset where the last one ended resumes in the same segment at the same
    byte (following a roll to the segment named by the next offset); any other offset, a
    segment that is gone or shorter, or a problem met on the way starts over as
    :func:`read_batches` does. Batches are checked exactly as :func:`read_batches` checks them.

    A read that resumed and found new batches looks for a claim of the epoch after the newest
    of them (one ``stat``, after reading them): when there is one, a newer epoch's fence may end
    the segment among them, so the read starts over as :func:`read_batches` does, which ends
    each segment by the one rule (:func:`~aclog.log.fenced.segment_ends`).

    Not thread-safe: one owner reads it at a time. Cost per read with nothing new: two
    ``stat`` calls; otherwise O(new bytes) and one ``stat``, with no directory listing or
    index lookup (but in the rare read just after an election). (Each
    system call lets other threads take the GIL, so a server's hot path keeps them few.)
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._place: _Place | None = None
        self._damaged = False

    def read(self, from_offset: int, to_offset: int | None = None) -> Iterator[LogBatch]:
        """Every batch holding an offset at or after ``from_offset``, as
        ``read_batches(directory, from_offset)`` returns them; with ``to_offset``, only the
        batches that start below it (a later read resumes at the first one left out)."""
        place = self._place
        self._place = None  # set again only by a read that reaches the end
        if place is None or place.next_offset != from_offset:
            yield from self._read_fresh(from_offset, to_offset)
            return
        try:
            batches: list[LogBatch] | None = list(self._follow(place, from_offset, to_offset))
        except (CorruptLogError, _Lost):
            batches = None
        if batches and claimed_after(self.directory, batches[-1].epoch):
            # Looked for after the batches were read, so none written after the claim slips
            # through: a newer epoch's fence may end the segment among them. A fresh read
            # ends it there (README, "Epoch fencing").
            batches = None
        if batches is None or self._damaged:
            # Rewritten under us (truncated and appended again), or a write in progress:
            # whatever it is, a fresh read decides it as read_batches would.
            self._place = None
            yield from self._read_fresh(from_offset, to_offset)
            return
        yield from batches

    def _read_fresh(self, from_offset: int, to_offset: int | None) -> Iterator[LogBatch]:
        segments = list_segments(self.directory)
        bases = [base for base, _ in segments]
        if not segments:
            return
        first = max(bisect.bisect_right(bases, from_offset) - 1, 0)
        first, ends = read_plan(self.directory, segments, first)
        base, path = segments[first]
        end = ends[first]
        offset, position = index_start(path, base, from_offset)
        try:
            place = _Place(path, position, offset, -1, end)
            yield from self._follow(place, from_offset, to_offset)
        except _Lost:  # a segment vanished or shrank while this read went on: read again
            raise OSError(f"the log in {self.directory} changed while it was read") from None

    def _follow(self, place: _Place, from_offset: int, to_offset: int | None) -> Iterator[LogBatch]:
        """Scan from ``place`` to the end of its segment and on through the segments after it
        (or to the first batch starting at ``to_offset`` or later), remembering where the scan
        ended."""
        while True:
            try:
                scan = SegmentScan(
                    place.segment,
                    position=place.position,
                    next_offset=place.next_offset,
                    last_epoch=place.epoch,
                    skip_below=from_offset,
                    end_offset=place.end,
                )
            except FileNotFoundError:
                raise _Lost from None  # deleted, or renamed away by a truncation
            if scan.size < place.position:
                raise _Lost  # cut shorter than where the last read ended
            if scan.size > place.position:
                epoch = place.epoch
                for batch in region_batches(scan):
                    if to_offset is not None and batch.base_offset >= to_offset:
                        self._damaged = False
                        self._place = _Place(
                            place.segment, batch.position, batch.base_offset, epoch, place.end
                        )
                        return
                    yield batch
                    epoch = batch.epoch
            following = place.segment.with_name(segment_file_name(scan.next_offset))
            rolled = following != place.segment and following.exists()
            # Never into a stray (a deposed leader's segment above a newer fence), which
            # read_batches skips: its first batch is older than the last one read here.
            rolled = rolled and not older_than(following, scan.last_epoch)
            problem = scan.problem
            self._damaged = problem is not None
            if problem is not None and not (problem.tail and not rolled):
                raise CorruptLogError(str(place.segment), problem.position, problem.reason)
            if problem is not None:
                confirm_tail(place.segment, problem)  # damage below the recovery point raises
            # Reached, with no segment there: truncated away, so appends here continue the log.
            end = None if scan.next_offset == place.end else place.end
            place = _Place(place.segment, scan.end_position, scan.next_offset, scan.last_epoch, end)
            if not rolled:
                self._place = place
                return
            place = _Place(following, 0, scan.next_offset, scan.last_epoch)


class _Lost(Exception):
    """The segment a tail was reading is gone or shorter than where its last read ended."""
