"""Opening a log's tail: find where the log ends, check the last segment, and cut a torn tail.

:func:`recover_tail` scans the last segment batch by batch
(:class:`~aclog.log.segment.SegmentScan`), rebuilds its offset index, and returns a
:class:`Tail`: the end offset, the newest epoch, the byte where the next append goes, and a
:class:`RecoveryReport` when a torn tail (a crash mid-write) was cut back to the last whole
batch. Damage with valid data after it raises
:class:`~aclog.log.errors.CorruptLogError` and cuts nothing. The writer
(:class:`~aclog.log.log.SegmentedLog`) applies the result; it also uses :func:`batch_starting_at`,
:func:`cut_tail` and :func:`last_epoch` when it truncates.

Functions over files, no state of their own: the caller must be the directory's writer (it
holds the lock), since :func:`recover_tail` may truncate the last segment. Cost: O(bytes of the
last segment) to scan, plus reading the segment before it for the epoch it ends with.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from aclog.log.errors import CorruptLogError
from aclog.log.index import OffsetIndex
from aclog.log.reader import read_batches
from aclog.log.segment import SegmentScan


@dataclass(frozen=True, slots=True)
class RecoveryReport:
    """What opening the log cut from a torn tail."""

    segment: Path
    position: int
    bytes_removed: int
    reason: str

    def __str__(self) -> str:
        return (
            f"recovered {self.segment.name}: cut {self.bytes_removed} bytes of a torn batch at "
            f"byte {self.position} ({self.reason})"
        )


@dataclass(frozen=True, slots=True)
class Tail:
    """The last segment as recovery left it: its path and rebuilt index, the byte where the
    next batch goes, the log's end offset and newest epoch, and what was cut (if anything)."""

    path: Path
    index: OffsetIndex
    size: int
    end_offset: int
    latest_epoch: int
    report: RecoveryReport | None


def recover_tail(directory: Path, segments: list[tuple[int, Path]]) -> Tail:
    """Check the last of ``segments`` (non-empty, by base offset), cut a torn tail and write
    its index; raises :class:`CorruptLogError` for damage that is not a torn tail."""
    base, path = segments[-1]
    before = last_epoch(directory, segments[-2][0], base) if len(segments) > 1 else -1
    scan = SegmentScan(path, position=0, next_offset=base, last_epoch=before)
    index = OffsetIndex(base)
    for raw in scan:
        if index.due(raw.position):
            index.add(raw.header.base_offset, raw.position)
    report = None
    if scan.problem is not None:
        if not scan.problem.tail:
            raise CorruptLogError(str(path), scan.problem.position, scan.problem.reason)
        report = cut_tail(path, scan.problem.position, scan.size, scan.problem.reason)
    index.write(path)
    return Tail(path, index, scan.end_position, scan.next_offset, scan.last_epoch, report)


def cut_tail(path: Path, position: int, size: int, reason: str) -> RecoveryReport:
    """Truncate the segment at ``path`` (``size`` bytes long) to ``position``, durably."""
    with open(path, "r+b") as file:
        file.truncate(position)
        os.fsync(file.fileno())
    return RecoveryReport(path, position, size - position, reason)


def last_epoch(directory: Path, from_offset: int, to_offset: int | None = None) -> int:
    """The epoch of the last batch holding an offset in ``[from_offset, to_offset)`` (-1 when
    there is none)."""
    epoch = -1
    for batch in read_batches(directory, from_offset, to_offset):
        epoch = batch.epoch
    return epoch


def batch_starting_at(directory: Path, offset: int) -> tuple[int, int]:
    """(segment base, position) of the batch that starts exactly at ``offset``; ValueError
    when ``offset`` is inside a batch or past the last one."""
    for batch in read_batches(directory, offset):
        if batch.base_offset == offset:
            return int(batch.segment.name[:20]), batch.position
        raise ValueError(
            f"offset {offset} is inside the batch {batch.base_offset}..{batch.last_offset}; "
            f"truncate to {batch.base_offset} or {batch.last_offset + 1}"
        )
    raise ValueError(f"no batch starts at offset {offset}")
