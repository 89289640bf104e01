"""Reading a log directory: batches and records from any offset, by any number of readers.

A reader takes no lock and never writes. It picks the segment holding the start offset from the
file names, jumps near the offset with the segment's sparse index, and scans forward, checking
every batch it returns (header, size, CRC-32C, offsets, epochs). Damage followed by valid data
raises :class:`CorruptLogError`; an incomplete batch at the very end of the last segment is a
write in progress (or a torn tail the writer will cut) and ends the read quietly.

Thread-safe: each read opens its own files. Cost: O(log segments) to pick the segment,
O(log index entries) to seek, then O(bytes read).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from aclog.log.batch import record_values
from aclog.log.errors import CorruptLogError
from aclog.log.index import OffsetIndex
from aclog.log.segment import RawBatch, SegmentScan, list_segments


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One record value with where and when it was committed."""

    offset: int
    epoch: int
    timestamp_ms: int
    value: bytes


@dataclass(frozen=True, slots=True)
class LogBatch:
    """One committed batch: offsets ``base_offset..last_offset``, all with one epoch."""

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


def read_batches(
    directory: Path, from_offset: int = 0, to_offset: int | None = None
) -> Iterator[LogBatch]:
    """Every batch holding an offset in ``[from_offset, to_offset)`` (``None``: to the end).

    A batch straddling ``from_offset`` or ``to_offset`` is returned whole; callers that need
    exact bounds filter its records.
    """
    segments = list_segments(directory)
    bases = [base for base, _ in segments]
    first = max(bisect.bisect_right(bases, from_offset) - 1, 0)
    for i in range(first, len(segments)):
        base, path = segments[i]
        if to_offset is not None and base >= to_offset:
            return
        is_last = i == len(segments) - 1
        for raw in _scan_from(path, base, from_offset, is_last=is_last):
            if to_offset is not None and raw.header.base_offset >= to_offset:
                return
            yield _to_batch(raw, path)


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
    """Every batch of one segment file, read on its own (the rest of the log unknown)."""
    for raw in _scan_from(path, base_offset, base_offset, is_last=True):
        yield _to_batch(raw, path)


def _scan_from(path: Path, base: int, from_offset: int, *, is_last: bool) -> Iterator[RawBatch]:
    start_offset, start_position = _index_start(path, base, from_offset)
    scan = SegmentScan(
        path, position=start_position, next_offset=start_offset, skip_below=from_offset
    )
    yield from scan
    problem = scan.problem
    if problem is not None and not (problem.tail and is_last):
        raise CorruptLogError(str(path), problem.position, problem.reason)


def _index_start(path: Path, base: int, from_offset: int) -> tuple[int, int]:
    """Where to start scanning for ``from_offset``: an index entry whose batch checks out."""
    if from_offset <= base:
        return base, 0
    offset, position = OffsetIndex.load(path, base).floor(from_offset)
    if position == 0:
        return base, 0
    try:
        with open(path, "rb") as file:
            file.seek(position)
            head = file.read(8)
    except OSError:
        return base, 0
    if len(head) == 8 and int.from_bytes(head, "big", signed=True) == offset:
        return offset, position
    return base, 0  # a stale index: fall back to the start of the segment


def _to_batch(raw: RawBatch, path: Path) -> LogBatch:
    header = raw.header
    try:
        values = record_values(raw.data)
    except ValueError as err:
        raise CorruptLogError(str(path), raw.position, str(err)) from None
    if len(values) != header.record_count:
        raise CorruptLogError(
            str(path), raw.position, f"{len(values)} records, header says {header.record_count}"
        )
    return LogBatch(
        header.base_offset,
        header.last_offset,
        header.epoch,
        header.max_timestamp,
        tuple(values),
        path,
        raw.position,
    )
