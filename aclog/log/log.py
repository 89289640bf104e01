"""The writable, segmented, append-only log of one data directory.

Each :meth:`SegmentedLog.append` writes its records as ONE Kafka v2 batch whose base offset is
the log's end offset and whose partition leader epoch is the writer's epoch, then fsyncs before
returning, so an acknowledged append survives a crash and a batch is wholly present or wholly
absent afterwards. The log refuses an epoch older than the newest one it holds (fencing).
:meth:`SegmentedLog.append_batches` writes several such batches with one write and one fsync
(group commit); it checks them all first, so a refused group writes nothing (the checks and
the batches' bytes: :mod:`aclog.log.appends`; the write, fsync, undo and roll of a group:
:mod:`aclog.log.commit`).

Opening recovers the last segment: every batch is checked against the recovery point (the
offset below which every byte was fsynced, :mod:`aclog.log.recovery_point`, advanced after each
commit's fsync). A torn tail (a crash mid-write, above the recovery point) is moved to a
quarantine file, cut back to the last whole batch, logged at WARNING and reported in
:attr:`SegmentedLog.recovery`; damage below the recovery point or with valid data after it
raises :class:`CorruptLogError` instead (:mod:`aclog.log.opening`, :mod:`aclog.log.recovery`).
Opening also rebuilds the offset index of an older segment that an earlier aclog wrote with
first offsets instead of Kafka's last offsets (:mod:`aclog.log.index_upgrade`).
A failed append is undone completely or the writer stops (:mod:`aclog.log.failure`); every
file operation goes through one seam (:mod:`aclog.log.files`), which opens no file through a
symbolic link and lets tests fail any call on purpose.
The directory is created 0700 and every file in it 0600 (:mod:`aclog.log.modes`). One writer
per directory (a lock file), or with ``shared`` several controllers, none of which locks
anything per append: each appends only in an epoch it took over, in segments of its own
(:meth:`SegmentedLog.begin_epoch`, :mod:`aclog.log.takeover`), and settles each group against
the claims after its fsync (:mod:`aclog.log.commit`); readers use :mod:`aclog.log.reader`
and need no lock. The open
segment's files: :mod:`aclog.log.active`; truncation's and retention's: :mod:`aclog.log.retention`.

Not thread-safe: one thread owns a writer. Cost: an append is O(batch bytes) plus one fsync.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from aclog.log.active import ActiveSegment
from aclog.log.appends import BatchSpec
from aclog.log.claims import claimed_after
from aclog.log.commit import GroupCommitMixin
from aclog.log.errors import LogError
from aclog.log.failure import WriteGuard
from aclog.log.index_upgrade import upgrade_closed_indexes
from aclog.log.lock import DirectoryLocks
from aclog.log.modes import make_private_directory
from aclog.log.opening import open_tail
from aclog.log.reader import read_batches, read_records
from aclog.log.recovery import RecoveryReport, batch_starting_at, last_epoch
from aclog.log.recovery_point import RecoveryPointFile, start_epoch_point
from aclog.log.region import LogBatch, LogRecord
from aclog.log.retention import delete_below, truncate_segments
from aclog.log.segment import list_segments
from aclog.log.takeover import new_segment, open_shared, take_over

DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024
logger = logging.getLogger(__name__)


class SegmentedLog(GroupCommitMixin):
    """The single writer of a data directory's log."""

    def __init__(
        self,
        directory: Path | str,
        *,
        segment_bytes: int = DEFAULT_SEGMENT_BYTES,
        fsync: bool = True,
        clock: Callable[[], float] = time.time,
        shared: bool = False,
    ) -> None:
        self.directory = Path(directory)
        make_private_directory(self.directory)
        self.segment_bytes = segment_bytes
        self.fsync = fsync
        self.clock = clock
        self.shared = shared
        self._active: ActiveSegment
        self._point: RecoveryPointFile | None = None
        self._guard = WriteGuard(self.directory, fsync=fsync)
        self._locks = DirectoryLocks(self.directory, shared=shared)
        self._began: int | None = None
        try:
            with self._mutation():
                self._point = RecoveryPointFile(self.directory, fsync=fsync)
                self.recovery = self._open_tail()
                # Closed segments are never rewritten, so their indexes are checked once here.
                upgrade_closed_indexes(list_segments(self.directory)[:-1])
        except BaseException:
            self._locks.release()
            raise

    def _mutation(self) -> AbstractContextManager[None]:
        """Run one mutation (a shared writer takes no lock: it appends only to segments it
        created at its takeover, and each group settles against the claims)."""
        return self._locks.turn()

    def moved_by_others(self) -> bool:
        """Whether another controller has claimed an epoch after this writer's newest (shared
        mode; always False for an exclusive writer). Cost: one ``stat``. A stale False is
        harmless: every group settles against the claims after its fsync."""
        return self._locks.shared and claimed_after(self.directory, self.latest_epoch)

    def begin_epoch(self, epoch: int, node_id: int) -> int | None:
        """Shared: take the log over for ``epoch`` (:func:`~aclog.log.takeover.take_over`):
        the offset where its log begins, now this writer's end, in a segment of its own;
        ``None`` when another node claimed it, or claimed the next one meanwhile (race (b):
        the segment made is left, empty, to the next claimer). Nothing is appended yet."""
        self._check_open()
        fence = take_over(self.directory, epoch, node_id, fsync=self.fsync)
        if fence is None:
            return None
        active = new_segment(self.directory, fence, fsync=self.fsync)
        if claimed_after(self.directory, epoch):
            active.close()
            return None
        self._active.close()
        self._began, self._active, self._checked = epoch, active, (fence.offset, 0)
        self._bases = [base for base, _ in list_segments(self.directory)]
        self.end_offset = fence.offset
        self.latest_epoch = last_epoch(self.directory, max(fence.offset - 1, 0), fence.offset)
        points = start_epoch_point(
            self.directory, epoch, fence.offset, self.latest_epoch, fsync=self.fsync
        )
        self._points().close()
        self._point = points  # this epoch's own point (no other process writes it)
        return fence.offset

    # -- opening -----------------------------------------------------------------------------

    def _open_tail(self) -> RecoveryReport | None:
        if self.shared:
            opened = open_shared(self.directory, fsync=self.fsync)
        else:
            opened = open_tail(self.directory, self._points(), fsync=self.fsync)
        if opened.report is not None:
            logger.warning("%s", opened.report)
        self._bases, self._active = opened.bases, opened.active
        self._checked = (opened.end_offset, opened.active.size)  # the opening scan read it all
        self.end_offset, self.latest_epoch = opened.end_offset, opened.latest_epoch
        return opened.report

    def _points(self) -> RecoveryPointFile:
        if self._point is None:
            raise LogError(f"the log in {self.directory} is closed")
        return self._point

    # -- writing -----------------------------------------------------------------------------

    def append(
        self,
        values: Sequence[bytes],
        epoch: int,
        *,
        timestamp_ms: int | None = None,
        expected_end_offset: int | None = None,
        fsync: bool | None = None,
    ) -> LogBatch:
        """Append ``values`` as one atomic batch written with ``epoch``.

        Returns once the batch is durable (unless ``fsync=False`` or the log was opened with
        ``fsync=False``). ``expected_end_offset`` makes the append conditional on nobody having
        appended since (compare-and-append). Raises :class:`FencedEpochError` for an epoch
        older than the log's newest.
        """
        self._check_open()
        spec = BatchSpec(values, epoch, timestamp_ms)
        return self._append_group([spec], expected_end_offset, fsync)[0]

    def append_batches(
        self,
        batches: Sequence[BatchSpec],
        *,
        expected_end_offset: int | None = None,
        fsync: bool | None = None,
    ) -> list[LogBatch]:
        """Append several batches back to back with one write and one fsync (group commit).

        Each batch is checked as :meth:`append` checks one (the conditional end offset applies
        to the first), all before anything is written: a refused group writes nothing. The
        group never straddles segments (the log rolls before it when it does not fit), so a
        failed write is cut back whole. Returns one result per batch, in order.
        """
        self._check_open()
        return self._append_group(batches, expected_end_offset, fsync)

    def roll(self) -> None:
        """Start a new segment at the end offset (the old one is fsynced first)."""
        self._check_open()
        with self._mutation():
            self._roll()

    # -- reading -----------------------------------------------------------------------------

    @property
    def start_offset(self) -> int:
        """The first offset still in the log (segments below it were deleted)."""
        return self._bases[0]

    def read(self, from_offset: int = 0, to_offset: int | None = None) -> Iterator[LogBatch]:
        """Committed batches holding offsets in ``[from_offset, to_offset)``."""
        return read_batches(self.directory, from_offset, to_offset)

    def read_records(
        self, from_offset: int = 0, to_offset: int | None = None
    ) -> Iterator[LogRecord]:
        """Committed records with offsets in ``[from_offset, to_offset)``."""
        return read_records(self.directory, from_offset, to_offset)

    # -- truncation and retention ---------------------------------------------------------------

    def truncate_to(self, offset: int) -> None:
        """Remove every record at ``offset`` and after; ``offset`` must start a batch."""
        self._check_open()
        with self._mutation():
            self._truncate_to(offset)

    def _truncate_to(self, offset: int) -> None:
        if offset >= self.end_offset:
            return
        if offset < self.start_offset:
            raise ValueError(f"offset {offset} is below the log start {self.start_offset}")
        target = batch_starting_at(self.directory, offset)
        if offset < self._points().read().offset:  # lowered before the bytes go
            epoch = last_epoch(self.directory, max(offset - 1, 0), offset) if offset else -1
            self._points().write(offset, epoch, durable=True)
        self._active.close()
        self._bases, self._active = truncate_segments(self.directory, self._bases, offset, target)
        self.end_offset = offset
        self._checked = (self._bases[-1], 0)  # rare: read the whole segment back at its seal
        self.latest_epoch = last_epoch(self.directory, max(self.end_offset - 1, 0))

    def delete_segments_below(self, offset: int) -> list[Path]:
        """Delete every segment whose records are all below ``offset``; never the active one.

        Returns the deleted segment files.
        """
        self._check_open()
        with self._mutation():
            return delete_below(
                self.directory,
                self._bases,
                offset,
                active_empty=self._active.size == 0,
                fsync=self.fsync,
            )

    # -- closing -----------------------------------------------------------------------------

    def _check_open(self) -> None:
        """Refuse a mutation of a closed log, or of one whose writer stopped."""
        if self._active.fd < 0:
            raise LogError(f"the log in {self.directory} is closed")
        self._guard.check()

    def close(self) -> None:
        """Flush, close the files and release the writer lock (idempotent). A writer that
        stopped fsyncs nothing (a failed fsync is never retried as if it could succeed)."""
        try:
            if not self._locks.shared:
                # Shared: another writer may have recovered the tail and appended since; a cut
                # here would destroy its batches. The next writer's refresh cuts a torn tail.
                self._guard.finish_undo()
            if self._active.fd >= 0 and self.fsync and self._guard.stopped is None:
                self._active.sync()
                if self._point is not None and not self._locks.shared:
                    # Exclusive: everything up to the end is fsynced now. (Shared writers moved
                    # the point with each append; another may have appended since.)
                    self._point.write(self.end_offset, self.latest_epoch, durable=True)
        finally:
            self._active.close()
            if self._point is not None:
                self._point.close()
                self._point = None
            self._locks.release()

    def __enter__(self) -> SegmentedLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
