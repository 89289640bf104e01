"""A log's tail as its writer opens it: the segments there are, the active segment to append
to, where the log ends and what recovery cut. An empty directory gets its first segment; a
recovered tail (:func:`~aclog.log.recovery.recover_tail`) whose whole batches a crashed writer
never fsynced is fsynced here and the recovery point moved over it.

Not thread-safe: the directory's writer calls it while it holds the lock (opening, or a shared
writer's refresh). Cost: that of :func:`~aclog.log.recovery.recover_tail`, plus one fsync of
the segment and of the recovery point when batches above the point are kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aclog.log import files
from aclog.log.active import ActiveSegment
from aclog.log.recovery import RecoveryReport, check_nothing_missing, recover_tail
from aclog.log.recovery_point import RecoveryPointFile, fold_epoch_points
from aclog.log.segment import list_segments


@dataclass(frozen=True)
class OpenedTail:
    """The segment ``bases`` (oldest first), the ``active`` segment, the log's ``end_offset``
    and ``latest_epoch``, and the ``report`` of a torn tail cut (``None``: nothing was)."""

    bases: list[int]
    active: ActiveSegment
    end_offset: int
    latest_epoch: int
    report: RecoveryReport | None


def open_tail(directory: Path, points: RecoveryPointFile, *, fsync: bool) -> OpenedTail:
    """Open the tail of the log in ``directory``, whose recovery point is ``points`` (the
    epochs' points of controllers that shared it folded into it first)."""
    fold_epoch_points(directory, points, fsync=fsync)
    point = points.read()
    segments = list_segments(directory)
    if not segments:
        check_nothing_missing(directory, point)
        return OpenedTail([0], ActiveSegment.create(directory, 0, fsync=fsync), 0, -1, None)
    tail = recover_tail(directory, segments, point, fsync=fsync)
    active = ActiveSegment(tail.path, tail.index, tail.size)
    if fsync and tail.end_offset > point.offset:
        # Whole batches a crashed writer wrote but never fsynced are kept (as Kafka keeps
        # them); once fsynced here, the recovery point covers them.
        files.fsync(active.fd, active.path)
        points.write(tail.end_offset, tail.latest_epoch)
    bases = [base for base, _ in segments]
    return OpenedTail(bases, active, tail.end_offset, tail.latest_epoch, tail.report)
