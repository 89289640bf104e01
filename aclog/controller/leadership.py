"""Following and leading: what a controller does when several share one log.

Only one controller at a time is active (it appends with the highest epoch); the others are
standbys that follow the log. :meth:`Leadership.catch_up` replays what other controllers
committed, :meth:`~Leadership.claim_leadership` takes the log over for the next epoch and
appends a leader-change record there, :meth:`~Leadership.still_leading` checks whether a newer
epoch has been claimed, and :meth:`~Leadership.heartbeat` appends a no-op so standbys see the
active controller alive. A deposed controller learns it from a refused append (it is then
``fenced``): its group settles against the newer epoch's fence after its fsync, so it never
writes into the log past it.

A component of :class:`~aclog.controller.controller.Controller` (held as its ``leadership``):
it holds the controller's :class:`~aclog.controller.group_commit.Committer`, whose image, epoch
and ``fenced`` flag it advances by replaying what others committed or by appending a leader
change through the committer's one append path, under the controller's commit lock.

Following takes no lock, so a standby (frozen or not) never stands in the active
controller's way: :meth:`catch_up` tails the log from the byte its last read reached
(:class:`~aclog.log.reader.LogTail`) and reads only batches below the recovery point, which the
writer moves only after a batch's fsync, so a batch still being written (or one whose fsync
then fails and is cut) is never replayed. :meth:`still_leading` is one ``stat`` of the next
epoch's claim; a stale "yes" costs nothing worse than a refused append.

Thread-safe: every method holds the controller's commit lock. Cost: :meth:`catch_up` is one
small read of the recovery point and two ``stat`` calls, plus O(bytes committed since the last
read) (never a rescan of the segment), or a full rebuild when the log was truncated below the
image; :meth:`claim_leadership` is a takeover (two small files, four fsyncs, a new segment)
and one append; :meth:`heartbeat` one append and fsync; :meth:`still_leading` one ``stat``.
"""

from __future__ import annotations

import threading

from aclog.controller.group_commit import Committer
from aclog.log import FencedEpochError, StaleOffsetError, WriterStoppedError
from aclog.log.claims import newest_claimed
from aclog.log.reader import LogTail
from aclog.log.recovery_point import committed_end
from aclog.records import LeaderChangeRecord, NoOpRecord
from aclog.replay.batches import replay_batches
from aclog.replay.rebuild import rebuild_image
from aclog.replay.runs import decoded_runs


class Leadership:
    """Catching up with, and taking over from, other controllers of the same log."""

    def __init__(self, committer: Committer, node_id: int, lock: threading.Lock) -> None:
        self.committer = committer
        self.log = committer.log
        self.node_id = node_id
        self._lock = lock
        self._tail: LogTail | None = None  # where following reached; made on first use

    def catch_up(self) -> int:
        """Replay batches other controllers committed since this image; returns how many.

        Used by a standby, and by a deposed controller before it serves again. Takes no lock
        on the log. If the log now ends before the image (it was truncated), the image is
        rebuilt from the log.
        """
        with self._lock:
            return self._catch_up()

    def _catch_up(self) -> int:
        start = self.committer.image.provenance.last_offset + 1
        durable = self._durable_end()
        if durable is not None and durable < start:
            self.committer.image = rebuild_image(self.log.directory).image.in_a_mapping()
            self._tail = None
            return 0
        if self._tail is None:
            self._tail = LogTail(self.log.directory)
        batches = decoded_runs(self._tail.read(start, durable), start)
        replayed = replay_batches(self.committer.image, batches, start=start)
        self.committer.image = replayed.image
        return replayed.batches

    def _durable_end(self) -> int | None:
        """The offset below which every batch is fsynced and so committed: the recovery point,
        which the writer moves only after a batch's fsync. ``None`` (read to the end) when the
        log does not fsync at all; the image's own end while the point cannot be read (a write
        of it in progress), so that nothing is replayed this time."""
        if not self.log.fsync:
            return None
        end = committed_end(self.log.directory)
        return self.committer.image.provenance.last_offset + 1 if end is None else end

    def claim_leadership(self) -> bool:
        """Take the log over for the next epoch and append a leader-change record there; True
        when this controller won and is now active.

        No lock is taken, so a leader frozen anywhere (inside an append included) holds up
        nobody: the log claims the epoch and fences the older ones where their whole batches
        end (:meth:`~aclog.log.SegmentedLog.begin_epoch`; README, "Epoch fencing"); this
        controller then replays what lies below the fence and appends at it. A claim another
        node won, or a newer one made meanwhile, is a lost election."""
        with self._lock:
            committer = self.committer
            epoch = max(self.newest_epoch_seen(), newest_claimed(self.log.directory)) + 1
            try:
                start = self.log.begin_epoch(epoch, self.node_id)
            except WriterStoppedError:
                return False  # this writer stopped: it must not lead until a restart
            if start is None:
                return False
            self._catch_up_to(start)
            if self.committer.image.provenance.last_offset + 1 != start:
                return False  # what lies below the fence did not replay whole
            previous, committer.epoch = committer.epoch, epoch
            try:
                committer.append([LeaderChangeRecord(self.node_id, epoch)], None)
            except (FencedEpochError, StaleOffsetError, WriterStoppedError):
                committer.epoch = previous
                return False  # deposed at once (race (b) after the check), or stopped
            committer.fenced = False
            return True

    def _catch_up_to(self, end: int) -> None:
        """Replay every batch below ``end`` (a fence: all of them committed, fsynced by the
        takeover) that this image lacks."""
        start = self.committer.image.provenance.last_offset + 1
        if self._tail is None:
            self._tail = LogTail(self.log.directory)
        batches = decoded_runs(self._tail.read(start, end), start)
        self.committer.image = replay_batches(self.committer.image, batches, start=start).image

    def newest_epoch_seen(self) -> int:
        """The newest epoch this controller knows of: its own, its log view's or the image's
        (a standby's log view is as old as its last append; its image follows the log)."""
        return max(
            self.log.latest_epoch, self.committer.image.provenance.epoch, self.committer.epoch
        )

    def still_leading(self) -> bool:
        """True when nobody else has written since this controller's last commit (checked
        against the log itself, so a controller that was paused learns it was deposed before
        it answers anything from its stale image)."""
        with self._lock:
            stale = (
                self.log.moved_by_others()
                or self.log.latest_epoch > self.committer.epoch
                or self.log.end_offset != self.committer.image.provenance.last_offset + 1
            )
            if stale:
                self.committer.fenced = True
            return not stale

    def heartbeat(self) -> bool:
        """Append a no-op record so standbys see the active controller alive; False when this
        controller turned out to be deposed, or its writer stopped (a failed fsync, an undo
        that failed): it can commit nothing more, so it steps down and clients go to the
        standby that takes over, instead of getting KAFKA_STORAGE_ERROR here until a restart."""
        with self._lock:
            try:
                self.committer.append([NoOpRecord()], None)
            except (FencedEpochError, StaleOffsetError, WriterStoppedError):
                self.committer.fenced = True
                return False
            return True
