"""Opening a log's tail: find where the log ends, check the last segment, and cut a torn tail.

:func:`recover_tail` scans the last segment batch by batch
(:class:`~aclog.log.segment.SegmentScan`), rebuilds its offset index, and returns a
:class:`Tail`: the end offset, the newest epoch, the byte where the next append goes, and a
:class:`RecoveryReport` when a torn tail (a crash mid-write, above the recovery point) was
moved to a quarantine file and cut back to the last whole batch. Damage with valid data after
it, damage below the recovery point, and a log that ends below the recovery point raise
:class:`~aclog.log.errors.CorruptLogError` and cut nothing. The writer
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

from aclog.log import files
from aclog.log.errors import CorruptLogError
from aclog.log.index import OffsetIndex
from aclog.log.quarantine import quarantine_bytes
from aclog.log.reader import read_batches
from aclog.log.recovery_point import RecoveryPoint
from aclog.log.segment import SegmentScan
from aclog.log.torn import TornTail, check_epoch, torn_or_corrupt


@dataclass(frozen=True, slots=True)
class RecoveryReport:
    """What opening the log cut from a torn tail, and where the cut bytes went."""

    segment: Path
    position: int
    bytes_removed: int
    reason: str
    offsets: str
    quarantine: Path | None

    def __str__(self) -> str:
        kept = f"; moved to {self.quarantine}" if self.quarantine else ""
        return (
            f"cut a torn tail off {self.segment}: {self.bytes_removed} bytes from byte "
            f"{self.position} ({self.reason}; {self.offsets}), written by a crashed writer and "
            f"never acknowledged{kept}"
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


def recover_tail(
    directory: Path, segments: list[tuple[int, Path]], point: RecoveryPoint, *, fsync: bool = True
) -> Tail:
    """Check the last of ``segments`` (non-empty, by base offset) against the recovery
    ``point``, quarantine and cut a torn tail, and write its index; raises
    :class:`CorruptLogError` for damage that is not a torn tail and when the log ends below
    the recovery point (acknowledged batches are missing)."""
    base, path = segments[-1]
    before = last_epoch(directory, segments[-2][0], base) if len(segments) > 1 else -1
    scan = SegmentScan(path, position=0, next_offset=base, last_epoch=before)
    index = OffsetIndex(base)
    for raw in scan:
        index.note(raw.header.last_offset, raw.position)
        check_epoch(path, raw, point)
    report = None
    if scan.problem is not None:
        torn = torn_or_corrupt(path, scan.problem, point.offset)
        report = cut_torn_tail(torn, fsync=fsync)
    if scan.next_offset < point.offset:
        raise CorruptLogError(
            str(path),
            scan.end_position,
            f"the log ends at offset {scan.next_offset}, but the recovery point says every "
            f"offset below {point.offset} was fsynced: acknowledged batches are missing (the "
            "segment was cut short or replaced)",
        )
    index.write(path)
    return Tail(path, index, scan.end_position, scan.next_offset, scan.last_epoch, report)


def check_nothing_missing(directory: Path, point: RecoveryPoint) -> None:
    """Raise :class:`CorruptLogError` when ``directory`` holds no segments although the
    recovery point says offsets were fsynced there."""
    if point.offset > 0:
        raise CorruptLogError(
            str(directory),
            0,
            f"no log segments, but the recovery point says every offset below "
            f"{point.offset} was fsynced: the acknowledged log is missing",
        )


def cut_torn_tail(torn: TornTail, *, fsync: bool = True) -> RecoveryReport:
    """Quarantine the torn bytes, then truncate the segment before them, durably."""
    quarantine = quarantine_bytes(torn.segment, torn.position, fsync=fsync)
    cut_tail(torn.segment, torn.position, torn.position + torn.size, torn.reason)
    return RecoveryReport(
        torn.segment, torn.position, torn.size, torn.reason, torn.offsets(), quarantine
    )


def cut_tail(path: Path, position: int, size: int, reason: str) -> RecoveryReport:
    """Truncate the segment at ``path`` (``size`` bytes long) to ``position``, durably.

    Only for bytes that must go: a torn tail after :func:`quarantine_bytes`, or whole
    batches a deliberate truncation removes."""
    fd = files.open_fd(path, os.O_WRONLY)
    try:
        files.truncate(fd, position, path)
        files.fsync(fd, path)
    finally:
        os.close(fd)
    return RecoveryReport(path, position, size - position, reason, "", None)


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
