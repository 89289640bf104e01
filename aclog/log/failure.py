"""The failure model of a log's writer: undo a failed append completely, or stop.

When a file operation of an append fails (a full disk, an I/O error, a short write), what the
append wrote is cut back (segment and index) and the cut made durable before anything else is
appended; the append raises :class:`~aclog.log.errors.StorageError` and the next one may
succeed. When the undo fails too, or the failure was an fsync (after which the durability of
what was written is unknown, and a second fsync could report success for pages the kernel has
already dropped, as PostgreSQL learned in 2018), the writer stops: every later mutation raises
the same :class:`~aclog.log.errors.WriterStoppedError`, which says why and what to do. It is
never both: no append follows bytes that failed.

:class:`WriteGuard` holds that state for one :class:`~aclog.log.log.SegmentedLog` and reports
each condition once (:class:`~aclog.log.health.StorageHealth`).

Not thread-safe: the log's single writer owns it. Cost: nothing until a failure.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable
from pathlib import Path

from aclog.log import files
from aclog.log.active import ActiveSegment, Mark
from aclog.log.errors import (
    CorruptLogError,
    StorageError,
    WriterStoppedError,
    describe_os_error,
)
from aclog.log.health import StorageHealth
from aclog.log.index import index_path
from aclog.log.segment import segment_file_name

logger = logging.getLogger(__name__)

UNDONE = "it was undone (nothing of it is in the log), and the next write may succeed"
RESTART = (
    "the writer accepts no more writes. Every acknowledged write is intact: fix the cause "
    "(free space, check the disk and the kernel log), then restart the writer, which recovers "
    "the log when it opens it"
)
DAMAGED = (
    "the segment was read back first and holds a damaged batch, so nothing was appended "
    "behind it, it was not sealed, and the writer accepts no more writes. Restore the segment "
    "from a replica or backup ('aclog verify' names the damage), then restart the writer"
)


class WriteGuard:
    """Whether the writer of ``directory`` has stopped (``stopped``), and the undo it could
    not finish (retried once more when the writer closes)."""

    def __init__(self, directory: Path, *, fsync: bool) -> None:
        self.fsync = fsync
        self.health = StorageHealth(str(directory))
        self.stopped: WriterStoppedError | None = None
        self._pending: tuple[ActiveSegment, Mark] | None = None

    def check(self) -> None:
        """Raise the error the writer stopped with, if it did."""
        if self.stopped is not None:
            raise self.stopped

    def undo(self, action: str, error: OSError, active: ActiveSegment, mark: Mark) -> StorageError:
        """Cut ``active`` back to ``mark`` after ``error`` failed ``action``; the error to
        raise: a :class:`StorageError`, or the :class:`WriterStoppedError` the writer stops
        with when the undo fails or ``error`` was a failed fsync."""
        try:
            active.cut_back(mark, fsync=self.fsync)
        except files.FsyncError as undo_error:
            cut = describe_os_error(undo_error)
            return self.stop(action, error, f"it was cut back, but fsyncing the cut failed ({cut})")
        except OSError as undo_error:
            self._pending = (active, mark)
            return self.stop(
                action,
                error,
                f"undoing it failed too ({describe_os_error(undo_error)}), so bytes from byte "
                f"{mark.size} of {active.path} were never acknowledged but are still there (the "
                "writer cuts them when it closes, if it can)",
            )
        if isinstance(error, files.FsyncError):
            return self.stop(action, error, "it was undone, but after a failed fsync")
        return self.health.failed(StorageError(action, error, UNDONE))

    def roll(
        self,
        active: ActiveSegment,
        end_offset: int,
        sync_point: Callable[[], None],
        *,
        taken_ok: bool = False,
    ) -> ActiveSegment:
        """A new, empty segment at ``end_offset`` to follow ``active`` (which the caller then
        closes), once ``active`` and the recovery point (``sync_point``) are fsynced: a failed
        fsync stops the writer, a failed creation removes what it made. With ``taken_ok``, a
        segment of that name already there raises ``FileExistsError`` (a shared writer's sign
        that a newer leader's segment begins there), not a storage failure."""
        action = f"rolling {active.path} to a new segment at offset {end_offset}"
        if self.fsync:
            try:
                active.sync()
                sync_point()
            except OSError as error:
                raise self.stop(action, error, "nothing new had been written") from error
        path = active.path.parent / segment_file_name(end_offset)
        # Only files this roll creates are removed if it fails; a file already there is not ours.
        created = [p for p in (path, index_path(path)) if not os.path.lexists(p)]
        try:
            return ActiveSegment.create(path.parent, end_offset, fsync=self.fsync)
        except OSError as error:
            if taken_ok and isinstance(error, FileExistsError):
                raise  # created nothing: the segment is another writer's (the caller decides)
            raise self.undo_create(action, error, created) from error

    def undo_create(self, action: str, error: OSError, created: list[Path]) -> StorageError:
        """Remove the ``created`` files of a segment a roll failed to create (``action``)."""
        try:
            for path in created:
                files.unlink(path, missing_ok=True)
            if self.fsync and created:
                files.fsync_directory(created[0].parent)
        except OSError as undo_error:
            reason = f"removing {created[0]} failed too ({describe_os_error(undo_error)})"
            return self.stop(action, error, reason)
        if isinstance(error, files.FsyncError):
            return self.stop(action, error, "the new segment was removed, but after a failed fsync")
        return self.health.failed(StorageError(action, error, UNDONE))

    def stop(self, action: str, error: OSError, outcome: str) -> WriterStoppedError:
        """Stop the writer: ``action`` failed with ``error``, and ``outcome`` followed."""
        self.stopped = WriterStoppedError(action, error, f"{outcome}; {RESTART}")
        self.health.failed(self.stopped)
        return self.stopped

    def stop_damaged(self, action: str, damage: CorruptLogError) -> WriterStoppedError:
        """Stop the writer: ``action`` read back what the active segment holds and found
        ``damage`` (before appending behind it, or sealing it)."""
        error = OSError(errno.EIO, f"{damage.reason} at byte {damage.position}", damage.path)
        self.stopped = WriterStoppedError(action, error, DAMAGED)
        self.health.failed(self.stopped)
        return self.stopped

    def finish_undo(self) -> None:
        """Try the undo that failed once more (the writer is closing); log what came of it."""
        if self._pending is None:
            return
        active, mark = self._pending
        try:
            active.cut_back(mark, fsync=self.fsync)
        except OSError as error:
            logger.critical(
                "%s holds bytes from byte %d that were never acknowledged, and cutting them "
                "failed again (%s): the next writer keeps them if they are whole batches; cut "
                "them by hand (truncate -s %d %s) before restarting",
                active.path,
                mark.size,
                describe_os_error(error),
                mark.size,
                active.path,
            )
            return
        self._pending = None
        logger.warning("cut the bytes of the failed append from %s at last", active.path)
