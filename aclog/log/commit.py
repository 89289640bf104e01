"""How a log's writer commits a group of batches: check, write, fsync, move the recovery point,
and undo a failure; and when it rolls to a new segment on the way. What the active segment
holds is read back (the CRC of every batch since the last check) before every roll and every
:data:`CHECK_EVERY` bytes: damage found stops the writer
(:meth:`~aclog.log.failure.WriteGuard.stop_damaged`) before it appends behind the damage or
seals a segment holding it.

A group is checked whole before anything is written (:mod:`aclog.log.appends`), rolls before
it when it would not fit (never inside it: the roll's fsync would make half a group durable),
is written with one write and fsynced once, and only then is the recovery point moved over it.
Shared mode (several controllers on one directory): no lock at all. A shared writer appends
only to segments of an epoch it took over (:meth:`~aclog.log.log.SegmentedLog.begin_epoch`),
and after each fsync settles the group against the claims (:meth:`_settle`; README, "Epoch
fencing"): what a newer epoch's fence cut is refused (:class:`~aclog.log.errors.DeposedError`)
and the recovery point moves only over what it acknowledges. A group in a segment another
writer has replaced is never cut back by an undo.

A mixin of :class:`~aclog.log.log.SegmentedLog`: it reads and changes the writer's own active
segment, end offset and epoch; the fields it uses are declared below.

Not thread-safe: one thread owns a writer. Cost: O(batch bytes) plus one fsync per group.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from aclog.log.active import ActiveSegment, Mark
from aclog.log.appends import BatchSpec, build_group, check_group, placed
from aclog.log.check import check_written
from aclog.log.claims import Fence, Outcome, publish_fence, read_fence, settle
from aclog.log.errors import CorruptLogError, DeposedError, FencedEpochError, StorageError
from aclog.log.failure import WriteGuard
from aclog.log.lock import DirectoryLocks
from aclog.log.recovery_point import RecoveryPointFile
from aclog.log.region import LogBatch

CHECK_EVERY = 256 << 10
"""Unchecked bytes of the active segment after which the next group first reads them back: a
check of O(256 KiB) every ~2,500 one-ACL appends instead of one of a whole 64 MiB segment
stalling the append that rolls it (the ``log`` suite's ``roll (fsync) with 256 KiB / 64 MiB
unchecked`` rows)."""


class GroupCommitMixin:
    """Appending one group of batches, and rolling the active segment before it."""

    segment_bytes: int
    fsync: bool
    clock: Callable[[], float]
    end_offset: int
    latest_epoch: int
    _active: ActiveSegment
    _checked: tuple[int, int]
    """The first offset and byte of the active segment that no check has read back yet (the
    opening scan covers the tail as it was; a roll's check covers the rest)."""
    _bases: list[int]
    _guard: WriteGuard
    _locks: DirectoryLocks
    directory: Path
    _began: int | None
    """Shared: the epoch this writer took the log over for (``None``: none yet)."""

    _mutation: Callable[..., AbstractContextManager[None]]
    """One turn of the directory's lock (``refresh=False``: without re-reading the tail)."""
    _points: Callable[[], RecoveryPointFile]

    def _append_group(
        self,
        batches: Sequence[BatchSpec],
        expected_end_offset: int | None,
        fsync: bool | None,
    ) -> list[LogBatch]:
        """Check, write, fsync (the lock, shared, held to check and write, not across it)."""
        with self._mutation():
            results, mark = self._write_group(batches, expected_end_offset)
        try:
            durable = self.fsync if fsync is None else fsync
            if durable:
                self._active.sync()
            committed, fence = self._settle(results) if self._locks.shared else (None, None)
            # Before anyone is told it committed: from here on, damage to it is corruption.
            last = results[-1 if committed is None else committed - 1]
            if durable and committed != 0:
                self._advance_point(last.last_offset + 1, last.epoch)
            if fence is not None:
                raise self._deposed(results, committed or 0, fence)
        except OSError as error:
            with self._mutation():
                raise self._undo(results, error, mark) from error
        self._guard.health.succeeded()
        self.end_offset = results[-1].last_offset + 1
        self.latest_epoch = results[-1].epoch
        return results

    def _write_group(
        self, batches: Sequence[BatchSpec], expected_end_offset: int | None
    ) -> tuple[list[LogBatch], Mark]:
        if self._locks.shared and (self._began is None or batches[0].epoch < self._began):
            # A shared writer appends only to the segments of an epoch it took over.
            raise FencedEpochError(batches[0].epoch, max(self.latest_epoch, self._began or 0))
        check_group(batches, self.latest_epoch, self.end_offset, expected_end_offset)
        built, stamps = build_group(batches, self.end_offset, self.clock)
        # Roll before the group, never inside it: rolling fsyncs the old segment, which would make
        # the group's first batches durable even if the rest of it then failed.
        if self._active.size - self._checked[1] >= CHECK_EVERY:
            self._check_written()
        self._maybe_roll(sum(len(batch) for _, batch in built))
        mark = self._active.mark()
        results = placed(batches, built, stamps, self._active.path, mark.size)
        try:
            # A lone batch keeps the one-batch write path (fault injection hooks it).
            if len(built) == 1:
                self._write_batch(built[0][1], built[0][0])
            else:
                self._active.write(built)
        except OSError as error:  # under the lock: nobody else has written since
            raise self._guard.undo(_action(results), error, self._active, mark) from error
        return results, mark

    def _settle(self, results: list[LogBatch]) -> tuple[int | None, Fence | None]:
        """Shared: how many of the group's batches, fsynced, are committed, and the newer
        epoch's fence that deposed this writer (README, "Epoch fencing"). No claim of the next
        epoch: all of them (``None``), no fence. A claim without a fence: this writer fences at
        its own end (its group included) rather than wait for a claimer that may be frozen. A
        fence: those ending below it, and the writer is deposed even when that is all of them.
        Cost: one ``stat``."""
        epoch, end = results[-1].epoch, results[-1].last_offset + 1
        outcome = settle(self.directory, epoch, end - 1)
        if outcome is Outcome.LEADING:
            return None, None
        if outcome is Outcome.UNDECIDED:
            publish_fence(self.directory, epoch + 1, end)
        fence = read_fence(self.directory, epoch + 1)
        assert fence is not None  # published: by the claimer or just now
        self.latest_epoch = max(self.latest_epoch, fence.epoch)  # refuses this epoch from now
        return sum(1 for result in results if result.last_offset < fence.offset), fence

    def _deposed(self, results: list[LogBatch], committed: int, fence: Fence) -> DeposedError:
        """The error of a group that ``fence`` ends after ``committed`` batches."""
        if committed == len(results):
            reason = f"its group up to offset {results[-1].last_offset} is committed"
        else:
            first = results[committed].base_offset
            reason = f"offsets {first} and after are at or above its fence, not in the log"
        return DeposedError(results[-1].epoch, fence.epoch, committed, reason)

    def _undo(self, results: list[LogBatch], error: OSError, mark: Mark) -> StorageError:
        """The error a group whose fsync failed raises, once undone (or the writer stopped).
        Shared, a group another writer has appended after (keeping its whole batches) is never
        cut: that would destroy the other writer's batches."""
        if self._locks.shared and self._active.moved(results[-1].last_offset + 1):
            reason = "another controller has appended after it, so it was not cut"
            return self._guard.stop(_action(results), error, reason)
        return self._guard.undo(_action(results), error, self._active, mark)

    def _advance_point(self, offset: int, epoch: int) -> None:
        """Move the recovery point over a group just fsynced. Shared, this writer's point is
        the file of the epoch it leads, which no other process writes
        (:mod:`aclog.log.recovery_point`): a deposed leader moving its own over its last
        committed group never moves the directory's point back. Cost: one ``pwrite``."""
        self._points().write(offset, epoch)

    def _write_batch(self, batch: bytearray, base: int) -> None:
        """Write one batch starting at offset ``base`` to the active segment."""
        self._active.write([(base, batch)])

    def _maybe_roll(self, incoming: int) -> None:
        if self._active.size and self._active.size + incoming > self.segment_bytes:
            self._roll()

    def _roll(self) -> None:
        if self._active.size == 0:
            return
        self._check_written()
        try:
            active = self._guard.roll(
                self._active, self.end_offset, self._points().sync, taken_ok=self._locks.shared
            )
        except FileExistsError as taken:
            # Shared: every roll creates its segment with O_EXCL; one already there is a newer
            # leader's segment (README, "Epoch fencing"), so this writer is deposed.
            reason = f"{taken.filename} exists, a newer leader's segment: nothing was written"
            raise DeposedError(self.latest_epoch, self.latest_epoch + 1, 0, reason) from None
        self._active.close()
        self._bases.append(self.end_offset)
        self._active = active
        self._checked = (self.end_offset, 0)

    def _check_written(self) -> None:
        """Read back what the active segment holds past :attr:`_checked` (the CRC of each batch)
        and move the mark to its end; damage stops the writer, so nothing is appended behind
        it and no segment holding it is sealed. Called (under the lock, shared) before a group
        when :data:`CHECK_EVERY` bytes are unchecked and before every roll, so a roll reads back
        at most that much. Cost: O(bytes since the last check)."""
        try:
            check_written(self._active.path, self._checked, self._points().read())
        except CorruptLogError as damage:
            action = f"appending at offset {self.end_offset} to {self._active.path}"
            raise self._guard.stop_damaged(action, damage) from damage
        self._checked = (self.end_offset, self._active.size)


def _action(results: list[LogBatch]) -> str:
    """What a failed append was doing, for its error."""
    return f"appending offsets {results[0].base_offset}..{results[-1].last_offset}"
