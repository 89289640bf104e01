"""Telling a torn tail from corruption: the one rule every reader and writer of a log applies.

A scan of the last segment that stops at bytes with nothing valid after them has found either
a write torn by a crash (never fsynced, so never acknowledged: safe to cut) or damage to bytes
that were fsynced (never to be cut). The recovery point decides: a problem where a batch at or
above it had to start is a torn tail; below it, corruption.

A reader may meet a write still in progress, which looks like a torn tail. So a problem is
confirmed by reading the recovery point first and then scanning the same bytes again: every
byte below a recovery point that was read is already in the file (it advances only after the
fsync), so the second scan sees whatever the first one raced with.

Thread-safe (functions over files). Cost: a small read and a rescan of the tail, only when a
scan found a problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aclog.log import files
from aclog.log.batch import HEADER_SIZE, MAGIC, parse_header
from aclog.log.errors import CorruptLogError, LogError
from aclog.log.quarantine import quarantine_name
from aclog.log.recovery_point import RecoveryPoint, read_recovery_point
from aclog.log.segment import RawBatch, ScanProblem, SegmentScan


@dataclass(frozen=True, slots=True)
class TornTail:
    """Bytes at the end of the last segment that are not a whole batch: where they start, how
    many there are, the offsets the batch there would have held (``last_offset`` is ``None``
    when its header is unreadable) and why they are not a batch."""

    segment: Path
    position: int
    size: int
    first_offset: int
    last_offset: int | None
    reason: str

    def offsets(self) -> str:
        """The offsets the torn bytes covered, as text."""
        if self.last_offset is None:
            return f"offsets from {self.first_offset}"
        return f"offsets {self.first_offset}..{self.last_offset}"

    def __str__(self) -> str:
        return (
            f"{self.segment} ends with {self.size} bytes that are not a whole batch, from byte "
            f"{self.position} ({self.reason}; {self.offsets()})"
        )


class TornTailError(LogError):
    """A strict read met a torn tail: bytes at the end of the last segment that are not a
    whole batch, above the recovery point (so never acknowledged). ``torn`` says where."""

    def __init__(self, torn: TornTail) -> None:
        self.torn = torn
        super().__init__(
            f"{torn}: a write torn by a crash (or one still in progress), never acknowledged. "
            f"The next writer to open the log (aclog serve, acls add, users set, ...) moves "
            f"these bytes to {quarantine_name(torn.segment, torn.position)} and cuts the "
            f"segment at byte {torn.position}"
        )


def is_torn(problem: ScanProblem, recovery_point: int) -> bool:
    """Whether a scan's problem is a torn tail: nothing valid follows and the damaged batch
    starts at or above the recovery point."""
    return problem.tail and problem.offset >= recovery_point


def below_recovery_point(path: Path, problem: ScanProblem, point: int) -> CorruptLogError:
    """The error for damage that looks like a torn tail but lies below the recovery point."""
    return CorruptLogError(
        str(path),
        problem.position,
        f"{problem.reason} in the batch at offset {problem.offset}, below the recovery point "
        f"{point} (fsynced and acknowledged)",
    )


def describe(path: Path, problem: ScanProblem, size: int) -> TornTail:
    """The :class:`TornTail` for ``problem`` in a segment ``size`` bytes long."""
    last = None
    if size - problem.position >= HEADER_SIZE:
        with files.open_reader(path) as file:
            file.seek(problem.position)
            header = parse_header(file.read(HEADER_SIZE))
        if header.magic == MAGIC and header.base_offset == problem.offset:
            last = header.last_offset if header.last_offset_delta >= 0 else None
    return TornTail(
        path, problem.position, size - problem.position, problem.offset, last, problem.reason
    )


def check_epoch(path: Path, raw: RawBatch, point: RecoveryPoint) -> None:
    """Raise :class:`CorruptLogError` when ``raw`` is the batch ending at the recovery point
    but carries another epoch than the one it was committed with (the batch CRC does not
    cover the epoch, so the recovery point remembers the newest one)."""
    check_ending_epoch(path, raw.header.last_offset, raw.header.epoch, raw.position, point)


def check_ending_epoch(
    path: Path, last_offset: int, epoch: int, position: int, point: RecoveryPoint
) -> None:
    """:func:`check_epoch` of the batch at ``position`` of ``path`` ending at ``last_offset``
    with ``epoch``."""
    if last_offset == point.offset - 1 and epoch != point.epoch:
        raise CorruptLogError(
            str(path),
            position,
            f"the batch ending at offset {last_offset} has epoch {epoch}, but "
            f"it was committed with epoch {point.epoch} (the recovery point says so)",
        )


def torn_or_corrupt(path: Path, problem: ScanProblem, point: int | None) -> TornTail:
    """The torn tail a writer (which holds the lock, so nothing races it) found at the end of
    its last segment ``path``; :class:`CorruptLogError` when it lies below the recovery point
    ``point`` (``None``: a file no recovery point covers) or valid data follows it."""
    if not problem.tail:
        raise CorruptLogError(str(path), problem.position, problem.reason)
    if point is not None and not is_torn(problem, point):
        raise below_recovery_point(path, problem, point)
    return describe(path, problem, path.stat().st_size)


def confirm_tail(path: Path, problem: ScanProblem, *, in_log: bool = True) -> TornTail | None:
    """Check a tail problem a lock-free reader met in the last segment ``path`` again: read
    the recovery point of its directory (unless ``in_log`` is False: a file read on its own,
    which no recovery point covers), then rescan from the problem.

    Returns the torn tail, or ``None`` when the rescan finds the bytes whole (a write that was
    in progress); raises :class:`CorruptLogError` for damage below the recovery point.
    """
    point = read_recovery_point(path.parent).offset if in_log else None
    scan = SegmentScan(
        path, position=problem.position, next_offset=problem.offset, last_epoch=problem.epoch
    )
    for _ in scan:
        pass
    if scan.problem is None:
        return None
    return torn_or_corrupt(path, scan.problem, point)
