"""Following and leading: what a controller does when several share one log.

Only one controller at a time is active (it appends with the highest epoch); the others are
standbys that follow the log. :meth:`LeadershipMixin.catch_up` replays what other controllers
committed, :meth:`~LeadershipMixin.claim_leadership` appends a leader-change record for the next
epoch, :meth:`~LeadershipMixin.still_leading` checks against the log whether anyone else has
written, and :meth:`~LeadershipMixin.heartbeat` appends a no-op so standbys see the active
controller alive. Appends are conditional on the log ending where the image ends, so a deposed
controller learns it from a failed append (it is then ``fenced``) instead of overwriting a
newer leader's records.

A mixin of :class:`~aclog.controller.controller.Controller` rather than a collaborator: every
method reads and changes the controller's own state (its image, epoch and ``fenced`` flag)
under its commit lock and appends through its commit path, so a separate object would need a
reference back to the controller and reach into its private fields; the fields the mixin uses
are declared below instead, which states the dependency.

Thread-safe: every method holds the controller's commit lock. Cost: :meth:`catch_up` is
O(records committed since the image), or a full rebuild when the log was truncated below it;
:meth:`claim_leadership` and :meth:`heartbeat` are one append and fsync;
:meth:`still_leading` refreshes the log's view of its end (a lock round trip in shared mode).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from aclog.image import MetadataImage
from aclog.log import FencedEpochError, SegmentedLog, StaleOffsetError, WriterStoppedError
from aclog.records import LeaderChangeRecord, NoOpRecord, Record
from aclog.replay.batches import replay_batches
from aclog.replay.rebuild import rebuild_image
from aclog.replay.stream import read_decoded


class LeadershipMixin:
    """Catching up with, and taking over from, other controllers of the same log."""

    log: SegmentedLog
    node_id: int
    image: MetadataImage
    epoch: int
    fenced: bool
    _lock: threading.Lock
    _append: Callable[[list[Record], None], None]  # append the controller's own records

    def catch_up(self) -> int:
        """Replay batches other controllers committed since this image; returns how many.

        Used by a standby, and by a deposed controller before it serves again. If the log now
        ends before the image (it was truncated), the image is rebuilt from the log.
        """
        with self._lock:
            self.log.refresh_view()
            start = self.image.provenance.last_offset + 1
            if self.log.end_offset < start:
                self.image = rebuild_image(self.log.directory).image.in_a_mapping()
                return 0
            replayed = replay_batches(
                self.image, read_decoded(self.log.directory, start), start=start
            )
            self.image = replayed.image
            return replayed.batches

    def claim_leadership(self) -> bool:
        """Append a leader-change record for the next epoch, conditional on the log ending
        where this image ends; True when this controller won and is now active."""
        with self._lock:
            epoch = max(self.log.latest_epoch, self.image.provenance.epoch, self.epoch) + 1
            previous = self.epoch
            self.epoch = epoch
            try:
                self._append([LeaderChangeRecord(self.node_id, epoch)], None)
            except (FencedEpochError, StaleOffsetError, WriterStoppedError):
                # Lost the race, or this writer stopped: it must not lead until a restart.
                self.epoch = previous
                return False
            self.fenced = False
            return True

    def still_leading(self) -> bool:
        """True when nobody else has written since this controller's last commit (checked
        against the log itself, so a controller that was paused learns it was deposed before
        it answers anything from its stale image)."""
        with self._lock:
            self.log.refresh_view()
            stale = (
                self.log.latest_epoch > self.epoch
                or self.log.end_offset != self.image.provenance.last_offset + 1
            )
            if stale:
                self.fenced = True
            return not stale

    def heartbeat(self) -> bool:
        """Append a no-op record so standbys see the active controller alive; False when this
        controller turned out to be deposed, or its writer stopped (a failed fsync, an undo
        that failed): it can commit nothing more, so it steps down and clients go to the
        standby that takes over, instead of getting KAFKA_STORAGE_ERROR here until a restart."""
        with self._lock:
            try:
                self._append([NoOpRecord()], None)
            except (FencedEpochError, StaleOffsetError, WriterStoppedError):
                self.fenced = True
                return False
            return True
