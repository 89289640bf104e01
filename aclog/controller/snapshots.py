"""A controller's snapshots: when its snapshot policy makes one due, and writing one.

A collaborator of :class:`~aclog.controller.controller.Controller` rather than a mixin: it owns
its own state (the policy, the retention policy, the bytes committed and the time since the last
snapshot, the background writer) and needs from the controller only the committed image, which
it is handed, so nothing here reads or changes the controller's fields.

After each commit the controller reports the bytes it appended
(:meth:`ControllerSnapshots.committed`); when the policy says a snapshot is due, the committed
image goes to the :class:`~aclog.controller.snapshotter.BackgroundSnapshotter` so the write
happens off the commit path. :meth:`ControllerSnapshots.take` writes one now on the calling
thread. Either way, log segments wholly below the snapshot are then deleted if the retention
policy says so.

Thread-safety: :meth:`~ControllerSnapshots.committed` runs under the controller's commit lock;
:meth:`~ControllerSnapshots.write` may run on any thread (images are immutable and the log
serializes segment deletion with appends); :meth:`~ControllerSnapshots.take` resets the policy's
counters without that lock, so a commit racing it may count its bytes toward the next snapshot
or not. Cost: :meth:`~ControllerSnapshots.committed` is O(1) unless it starts a background
write; a write is O(image).
"""

from __future__ import annotations

from collections.abc import Callable

from aclog.controller.snapshotter import BackgroundSnapshotter
from aclog.image import MetadataImage, image_records
from aclog.log import SegmentedLog
from aclog.snapshot import RetentionPolicy, SnapshotInfo, SnapshotPolicy, write_snapshot


class ControllerSnapshots:
    """The snapshots of one controller's log: the policy's bookkeeping and the one writer."""

    def __init__(
        self,
        log: SegmentedLog,
        policy: SnapshotPolicy | None,
        retention: RetentionPolicy,
        clock: Callable[[], float],
    ) -> None:
        self.log = log
        self.policy = policy
        self.retention = retention
        self.clock = clock
        self._bytes_since_snapshot = 0
        self._last_snapshot_time = clock()
        self._background = BackgroundSnapshotter(self.write)

    def committed(self, size: int, image: MetadataImage) -> None:
        """Count ``size`` committed bytes, then hand ``image`` (the committed image) to the
        background writer when the policy says a snapshot is due (if one is still being
        written, a later commit offers again)."""
        self._bytes_since_snapshot += size
        policy = self.policy
        if policy is None or not policy.due(self._bytes_since_snapshot, self._last_snapshot_time):
            return
        if self._background.offer(image):
            self._restart_policy()

    def take(self, image: MetadataImage, *, rows: bool = False) -> SnapshotInfo:
        """Write ``image`` as a snapshot now, on this thread, and apply retention."""
        info = self.write(image, rows=rows)
        self._restart_policy()
        return info

    def write(self, image: MetadataImage, *, rows: bool = False) -> SnapshotInfo:
        """Write ``image`` as a snapshot and apply retention. Any thread: the image is
        immutable, and the log serializes segment deletion with appends."""
        provenance = image.provenance
        info = write_snapshot(
            self.log.directory,
            image_records(image),
            last_offset=provenance.last_offset,
            epoch=max(provenance.epoch, 0),
            timestamp_ms=provenance.timestamp_ms,
            rows=rows,
        )
        below = self.retention.delete_below(info.last_offset)
        if below is not None:
            self.log.delete_segments_below(below)
        return info

    def wait(self) -> None:
        """Wait for the background snapshot in progress, if any."""
        self._background.wait()

    def _restart_policy(self) -> None:
        self._bytes_since_snapshot = 0
        self._last_snapshot_time = self.clock()
