"""The writable, segmented, append-only log of one data directory.

Each :meth:`SegmentedLog.append` writes its records as ONE Kafka v2 batch whose base offset is
the log's end offset and whose partition leader epoch is the writer's epoch, then fsyncs before
returning, so an acknowledged append survives a crash and a batch is wholly present or wholly
absent afterwards. The log refuses an epoch older than the newest one it holds (fencing).
:meth:`SegmentedLog.append_batches` writes several such batches with one write and one fsync
(group commit); it checks them all first, so a refused group writes nothing (the checks and
the batches' bytes: :mod:`aclog.log.appends`).

Opening recovers the last segment: every batch is checked against the recovery point (the
offset below which every byte was fsynced, :mod:`aclog.log.recovery_point`, advanced after each
commit's fsync). A torn tail (a crash mid-write, above the recovery point) is moved to a
quarantine file, cut back to the last whole batch, logged at WARNING and reported in
:attr:`SegmentedLog.recovery`; damage below the recovery point or with valid data after it
raises :class:`CorruptLogError` instead (:mod:`aclog.log.recovery`). The directory is created
0700 and every file in it 0600 (:mod:`aclog.log.modes`). One writer per directory (a lock
file); readers use :mod:`aclog.log.reader` and need no lock.

Not thread-safe: one thread owns a writer. Cost: an append is O(batch bytes) plus one fsync.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from aclog.log.appends import AppendResult, BatchSpec, build_group, check_group
from aclog.log.durable import fsync_directory
from aclog.log.errors import LogError
from aclog.log.index import OffsetIndex, index_path
from aclog.log.lock import SharedWriterLock, WriterLock
from aclog.log.modes import make_private_directory, open_private, write_private
from aclog.log.reader import LogBatch, LogRecord, read_batches, read_records
from aclog.log.recovery import (
    RecoveryReport,
    batch_starting_at,
    check_nothing_missing,
    cut_tail,
    last_epoch,
    recover_tail,
)
from aclog.log.recovery_point import RecoveryPointFile
from aclog.log.segment import list_segments, segment_file_name

DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024
logger = logging.getLogger(__name__)


class SegmentedLog:
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
        self._fd = -1
        self._index_fd = -1
        self._lock: WriterLock | None = None
        self._shared_lock: SharedWriterLock | None = None
        self._point: RecoveryPointFile | None = None
        if shared:
            self._shared_lock = SharedWriterLock(self.directory)
        else:
            self._lock = WriterLock(self.directory)
        try:
            with self._mutation(refresh=False):
                self._point = RecoveryPointFile(self.directory, fsync=fsync)
                self.recovery = self._open_tail()
        except BaseException:
            self._release_locks()
            raise

    @contextmanager
    def _mutation(self, *, refresh: bool = True) -> Iterator[None]:
        """Run one mutation: in shared mode under the lock and on a fresh view of the tail."""
        if self._shared_lock is None:
            yield
            return
        self._shared_lock.acquire()
        try:
            if refresh:
                self.refresh()
            yield
        finally:
            self._shared_lock.release()

    def refresh_view(self) -> None:
        """Bring ``end_offset`` and ``latest_epoch`` up to date with other writers' appends
        (shared mode; a no-op for an exclusive writer)."""
        if self._shared_lock is not None:
            with self._mutation():
                pass

    def refresh(self) -> None:
        """Re-read the tail if another writer changed the log (shared mode); cheap otherwise.

        A torn tail found here was left by a writer that died mid-append; it is cut, because
        in shared mode this runs only while holding the lock.
        """
        segments = list_segments(self.directory)
        if (
            segments
            and segments[-1][0] == self._bases[-1]
            and segments[-1][1].stat().st_size == self._active_size
        ):
            return
        self._close_active()
        self.recovery = self._open_tail()

    # -- opening -----------------------------------------------------------------------------

    def _open_tail(self) -> RecoveryReport | None:
        point = self._points().read()
        segments = list_segments(self.directory)
        if not segments:
            check_nothing_missing(self.directory, point)
            self._bases = [0]
            self._create_segment(0)
            self.end_offset, self.latest_epoch = 0, -1
            return None
        self._bases = [base for base, _ in segments]
        tail = recover_tail(self.directory, segments, point, fsync=self.fsync)
        if tail.report is not None:
            logger.warning("%s", tail.report)
        self.end_offset, self.latest_epoch = tail.end_offset, tail.latest_epoch
        self._open_active(tail.path, tail.index, tail.size)
        if self.fsync and self.end_offset > point.offset:
            # Whole batches a crashed writer wrote but never fsynced are kept (as Kafka keeps
            # them); once fsynced here, the recovery point covers them.
            os.fsync(self._fd)
            self._points().write(self.end_offset, self.latest_epoch)
        return tail.report

    def _points(self) -> RecoveryPointFile:
        if self._point is None:
            raise LogError(f"the log in {self.directory} is closed")
        return self._point

    def _open_active(self, path: Path, index: OffsetIndex, size: int) -> None:
        self._active_path = path
        self._index = index
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        self._index_fd = open_private(index_path(path), os.O_WRONLY | os.O_APPEND)
        self._active_size = size

    def _create_segment(self, base: int) -> None:
        path = self.directory / segment_file_name(base)
        os.close(open_private(path, os.O_WRONLY | os.O_EXCL))
        write_private(index_path(path), b"")
        if self.fsync:  # a new file survives a crash only once its directory entry does
            fsync_directory(self.directory)
        self._open_active(path, OffsetIndex(base), 0)

    # -- writing -----------------------------------------------------------------------------

    def append(
        self,
        values: Sequence[bytes],
        epoch: int,
        *,
        timestamp_ms: int | None = None,
        expected_end_offset: int | None = None,
        fsync: bool | None = None,
    ) -> AppendResult:
        """Append ``values`` as one atomic batch written with ``epoch``.

        Returns once the batch is durable (unless ``fsync=False`` or the log was opened with
        ``fsync=False``). ``expected_end_offset`` makes the append conditional on nobody having
        appended since (compare-and-append). Raises :class:`FencedEpochError` for an epoch
        older than the log's newest.
        """
        self._check_open()
        spec = BatchSpec(values, epoch, timestamp_ms)
        with self._mutation():
            return self._append_group([spec], expected_end_offset, fsync)[0]

    def append_batches(
        self,
        batches: Sequence[BatchSpec],
        *,
        expected_end_offset: int | None = None,
        fsync: bool | None = None,
    ) -> list[AppendResult]:
        """Append several batches back to back with one write and one fsync (group commit).

        Each batch is checked as :meth:`append` checks one (the conditional end offset applies
        to the first), all before anything is written: a refused group writes nothing. The
        group never straddles segments (the log rolls before it when it does not fit), so a
        failed write is cut back whole. Returns one result per batch, in order.
        """
        self._check_open()
        with self._mutation():
            return self._append_group(batches, expected_end_offset, fsync)

    def _append_group(
        self,
        batches: Sequence[BatchSpec],
        expected_end_offset: int | None,
        fsync: bool | None,
    ) -> list[AppendResult]:
        check_group(batches, self.latest_epoch, self.end_offset, expected_end_offset)
        built, results = build_group(batches, self.end_offset, self.clock)
        # Roll before the group, never inside it: rolling fsyncs the old segment, which would make
        # the group's first batches durable even if the rest of it then failed.
        self._maybe_roll(sum(len(batch) for _, batch in built))
        start = self._active_size
        if (
            len(built) == 1
        ):  # a lone batch keeps the one-batch write path (fault injection hooks it)
            self._write_batch(built[0][1], built[0][0])
        else:
            self._write_batches(built)
        if self.fsync if fsync is None else fsync:
            self._sync_or_cut(start)
            # Before anyone is told it committed: from here on, damage to it is corruption.
            self._points().write(results[-1].last_offset + 1, results[-1].epoch)
        self.end_offset = results[-1].last_offset + 1
        self.latest_epoch = results[-1].epoch
        return results

    def _sync_or_cut(self, start: int) -> None:
        """fsync the active segment; if that fails, cut the group just written (from byte
        ``start``) before raising. Its writer is told it failed, so it must never reappear:
        left in place, it would be replayed after a restart, and the next append would follow
        it with a batch of the same offsets (a corrupt log)."""
        try:
            os.fsync(self._fd)
        except OSError:
            os.ftruncate(self._fd, start)
            self._active_size = start
            raise

    def _write_batch(self, batch: bytearray, base: int) -> None:
        """Write one batch starting at offset ``base`` to the active segment."""
        self._write_batches([(base, batch)])

    def _write_batches(self, built: Sequence[tuple[int, bytearray]]) -> None:
        """Write (base offset, batch bytes) pairs to the active segment in one write."""
        start = self._active_size
        data = built[0][1] if len(built) == 1 else bytearray().join(b for _, b in built)
        written = os.write(self._fd, data)
        if written != len(data):
            # A short write leaves torn batches; cut them now rather than at the next open.
            os.ftruncate(self._fd, start)
            raise LogError(f"short write to {self._active_path} ({written} of {len(data)})")
        self._active_size += written
        position = start
        for base, batch in built:
            if self._index.due(position):
                os.write(self._index_fd, self._index.add(base, position))
            position += len(batch)

    def _maybe_roll(self, incoming: int) -> None:
        if self._active_size and self._active_size + incoming > self.segment_bytes:
            self._roll()

    def roll(self) -> None:
        """Start a new segment at the end offset (the old one is fsynced first)."""
        self._check_open()
        with self._mutation():
            self._roll()

    def _roll(self) -> None:
        if self._active_size == 0:
            return
        if self.fsync:
            os.fsync(self._fd)
            self._points().sync()
        self._close_active()
        self._bases.append(self.end_offset)
        self._create_segment(self.end_offset)

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
        self._close_active()
        for base in [b for b in self._bases if b > offset or (b == offset and b != target[0])]:
            self._remove_segment(base)
        self._bases = [b for b in self._bases if b <= target[0]]
        path = self.directory / segment_file_name(self._bases[-1])
        cut_tail(path, target[1], path.stat().st_size, "truncate_to")
        index = OffsetIndex.load(path, self._bases[-1])
        index.truncate_after(target[1])
        index.write(path)
        self._open_active(path, index, target[1])
        self.end_offset = offset
        self.latest_epoch = last_epoch(self.directory, max(self.end_offset - 1, 0))

    def delete_segments_below(self, offset: int) -> list[Path]:
        """Delete every segment whose records are all below ``offset``; never the active one.

        Returns the deleted segment files.
        """
        self._check_open()
        with self._mutation():
            return self._delete_below(offset)

    def _delete_below(self, offset: int) -> list[Path]:
        deleted = []
        while len(self._bases) > 1 and self._bases[1] <= offset:
            if len(self._bases) == 2 and self._active_size == 0:
                break  # keep the newest batch: its epoch fences stale writers after a reopen
            deleted.append(self._remove_segment(self._bases.pop(0)))
        if deleted and self.fsync:
            fsync_directory(self.directory)
        return deleted

    def _remove_segment(self, base: int) -> Path:
        path = self.directory / segment_file_name(base)
        index_path(path).unlink(missing_ok=True)
        path.unlink()
        return path

    # -- closing -----------------------------------------------------------------------------

    def _close_active(self) -> None:
        for fd in (self._fd, self._index_fd):
            if fd >= 0:
                os.close(fd)
        self._fd = self._index_fd = -1

    def _check_open(self) -> None:
        if self._fd < 0:
            raise LogError(f"the log in {self.directory} is closed")

    def close(self) -> None:
        """Flush, close the files and release the writer lock (idempotent)."""
        if self._fd >= 0 and self.fsync:
            os.fsync(self._fd)
            if self._point is not None and self._shared_lock is None:
                # Exclusive: everything up to the end is fsynced now. (Shared writers moved
                # the point with each append; another may have appended since.)
                self._point.write(self.end_offset, self.latest_epoch, durable=True)
        self._close_active()
        if self._point is not None:
            self._point.close()
            self._point = None
        self._release_locks()

    def _release_locks(self) -> None:
        if self._lock is not None:
            self._lock.release()
        if self._shared_lock is not None:
            self._shared_lock.close()

    def __enter__(self) -> SegmentedLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
