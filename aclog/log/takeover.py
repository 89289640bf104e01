"""Taking over a shared log for a new epoch, and opening one, without a lock that a frozen
process could hold (README, "Epoch fencing").

A node that would lead epoch E claims it (:func:`~aclog.log.claims.claim_epoch`), then reads
where the log's whole batches end (:func:`whole_end`; after the claim, so that no write the old
leader acknowledged before the claim is missed), fsyncs that segment (the old leader may have
frozen before its own fsync; an fsync from any process flushes the file) and publishes the
fence there, or takes the fence already there (the old leader's, race (a)). It then creates the
segment that begins at the fence with ``O_EXCL`` (:func:`new_segment`), renaming aside a file of
that name first: the old leader's roll, or an earlier claimer's empty segment, holding only
fenced batches. Last it looks for a claim of E+1 (race (b)): a claimer deposed while it took
over leaves its empty segment to the next one and follows.

Opening a shared log (:func:`open_shared`) reads where it ends and cuts nothing: a torn tail
may be a write in progress by a live leader, and the next takeover's fence ends it anyway.

Functions over files, no state of their own. Safe from any number of processes: every decision
is an exclusive link or an ``O_EXCL`` create. Cost: :func:`whole_end` scans the last segment
from its last index entry (a few KiB); a takeover adds two small files (four fsyncs), the
segment's fsync and a new segment.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from aclog.log import files
from aclog.log.active import ActiveSegment
from aclog.log.aside import aside_path
from aclog.log.claims import Fence, claim_epoch, publish_fence
from aclog.log.durable import fsync_path
from aclog.log.errors import CorruptLogError
from aclog.log.fenced import read_plan
from aclog.log.index import OffsetIndex, index_path, index_start
from aclog.log.opening import OpenedTail
from aclog.log.recovery import last_epoch
from aclog.log.segment import SegmentScan, list_segments, segment_file_name
from aclog.log.torn import confirm_tail

logger = logging.getLogger(__name__)

_EVERYTHING = 1 << 62
"""An offset above any: the last index entry of a segment is at or below it."""


def whole_end(directory: Path) -> int:
    """The offset after the log's last whole batch, by the readers' rule (a segment ends at
    the next one's base or a newer epoch's fence). A torn or fenced tail is left as it is;
    damage raises :class:`CorruptLogError`. Cost: a scan of the last segment from its last
    index entry."""
    return _scan_end(directory)[0]


def _scan_end(directory: Path) -> tuple[int, Path | None, int]:
    """:func:`whole_end`, with the last segment and the byte after its last whole batch."""
    segments = list_segments(directory)
    if not segments:
        return 0, None, 0
    last, ends = read_plan(directory, segments, len(segments) - 1)  # a stray ends nothing
    base, path = segments[last]
    bound = ends[last]
    offset, position = index_start(path, base, _EVERYTHING if bound is None else bound)
    scan = SegmentScan(path, position=position, next_offset=offset, end_offset=bound)
    for _ in scan:
        pass
    problem = scan.problem
    if problem is not None and not (problem.tail and bound is None):
        raise CorruptLogError(str(path), problem.position, problem.reason)
    if problem is not None:
        confirm_tail(path, problem)  # damage below the recovery point raises
    return scan.next_offset, path, scan.end_position


def take_over(directory: Path, epoch: int, node_id: int, *, fsync: bool) -> Fence | None:
    """Claim ``epoch`` for ``node_id`` and fence the epochs before it: the fence, or ``None``
    when another node holds the claim. Bytes left after the last whole batch (a torn tail of
    a crashed leader, or a frozen one's write) are fenced with it, said once at WARNING."""
    whole_end(directory)  # damage raises here, before a claim nobody could fence is made
    if not claim_epoch(directory, epoch, node_id):
        return None
    end, path, position = _scan_end(directory)
    if path is not None and fsync:
        fsync_path(path)
    fence = publish_fence(directory, epoch, end)
    if path is not None and fence.offset == end and path.stat().st_size > position:
        logger.warning(
            "epoch %d begins at offset %d: %s from byte %d on is fenced (a torn or unfinished "
            "write of the deposed leader's, never acknowledged; left in place, not part of the "
            "log)",
            epoch,
            end,
            path,
            position,
        )
    return fence


def new_segment(directory: Path, fence: Fence, *, fsync: bool) -> ActiveSegment:
    """The segment of ``fence``'s epoch, created with ``O_EXCL`` at the fence; a file already
    there (an older epoch's, every batch of it fenced) is renamed aside first."""
    path = directory / segment_file_name(fence.offset)
    if os.path.lexists(path):
        # Renamed, not removed: a writer that still has it open writes on into the file set
        # aside (fenced bytes, never read), never into this epoch's segment.
        aside = aside_path(directory, fence.offset, fence.epoch)
        files.replace(path, aside)
        files.unlink(index_path(path), missing_ok=True)
        if os.stat(aside).st_size == 0:  # nothing to keep for an operator to look at
            files.unlink(aside, missing_ok=True)
    return ActiveSegment.create(directory, fence.offset, fsync=fsync)


def open_shared(directory: Path, *, fsync: bool) -> OpenedTail:
    """A shared writer's view of the log as it opens: where it ends and its newest epoch, its
    last segment as the active one (a shared writer appends only to segments it created at a
    takeover, so it never writes to this one). An empty directory gets segment 0 unless
    another node made it first."""
    segments = list_segments(directory)
    if not segments:
        try:
            active = ActiveSegment.create(directory, 0, fsync=fsync)
        except FileExistsError:
            return open_shared(directory, fsync=fsync)
        return OpenedTail([0], active, 0, -1, None)
    end = whole_end(directory)
    base, path = segments[-1]
    active = ActiveSegment(path, OffsetIndex(base), path.stat().st_size)
    epoch = last_epoch(directory, end - 1, end) if end else -1
    return OpenedTail([b for b, _ in segments], active, end, epoch, None)
