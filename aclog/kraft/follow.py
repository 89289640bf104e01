"""Following a live KRaft metadata log: ``aclog import --from-kraft DIR --follow``.

Where ``aclog follow`` samples a cluster through the admin API (changes between two polls are
merged, and who made them is unknown), this reads Kafka's own ``__cluster_metadata-0``
directory, so every ACL and SCRAM change is recorded exactly: one aclog batch per KRaft batch
that holds any, with KRaft's offsets (in the batch's request context), epoch and timestamp.

- **Start.** An empty or missing data directory gets the one-shot import first
  (:mod:`aclog.kraft.importer`: the newest usable snapshot, then every batch after it); a
  directory an import or an earlier follow wrote resumes after the last batch it holds; a
  directory holding anything else (changes made with aclog, a follow of another KRaft
  directory, files that are not an aclog log) is refused with :class:`ImportTargetError`.
- **Durable position.** The position is the log itself: each batch opens with a request context
  naming the KRaft batch it came from (:mod:`aclog.kraft.position`), written and fsynced in the
  same atomic append. A crash leaves the batch and its position both present or both absent,
  so a restart neither repeats nor skips a change. Resuming re-reads the KRaft batches after
  the last one written (those without ACL or SCRAM records wrote nothing), and checks that
  this batch is still there with its epoch. When batches without changes were read, a
  position mark (a batch holding only the request context) is written as the follow moves to
  a new segment and when it stops, so a restart does not need old segments Kafka may have
  deleted meanwhile just because ACLs changed rarely. A crash inside a snapshot larger than
  one aclog batch resumes inside it, from the same (immutable) ``.checkpoint`` file.
- **Tail.** Every ``interval`` seconds, the complete batches appended since (in the active
  segment and in segments rolled since) are imported, each with its own fsync
  (:mod:`aclog.kraft.tail`). A batch still being written is waited for. The catch-up at the
  start (the log after the snapshot, or after the position) goes through the same tail and
  fsyncs each file once at its end.
- **Stops.** Damage, truncation (a segment shrank, or a new leader replaced batches already
  imported) and rolling (the next offset needed was deleted before it was read) stop the follow
  with a :class:`~aclog.kraft.errors.KraftError` saying what happened and what to do; every
  batch before the problem is imported, nothing after it, nothing half. The data directory is
  never changed otherwise: a restart after the KRaft log is repaired resumes where it stopped.
- **Read-only.** The KRaft directory is only read: no lock, no writes, no side files.
  The data directory's own writer lock is held while following.

Limits: KRaft's high watermark is not on disk, so a batch is imported once it is complete on
the broker's disk; a batch a new leader later truncates (it was never committed) is detected
and stops the follow rather than being silently kept. When segments are deleted (after a new
snapshot) before they are read, the changes in them cannot be recovered one by one; the error
says so and what to do. With ``reconcile`` (``--reconcile``) a resume instead records their net
effect as one batch that takes the data directory's state to the newest snapshot's, and goes
on from there (a roll found while following stops it; the restart reconciles).

Not thread-safe except :attr:`KraftFollow.stop` (an event, set from a signal handler or another
thread; the follow stops between batches). Cost per poll: see :mod:`aclog.kraft.tail`, plus one
fsynced append per imported batch.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from threading import Event

from aclog.kraft.admission import Admission
from aclog.kraft.appended import Appended
from aclog.kraft.batch import KraftBatch
from aclog.kraft.checkpoint import (
    list_checkpoints,
    parse_checkpoint_name,
    read_checkpoint_info,
    snapshot_as_batch,
)
from aclog.kraft.errors import ImportTargetError, KraftLayoutError
from aclog.kraft.importer import (
    ImportReport,
    check_follow_target,
    import_batch,
    sync_tree,
    undo_import,
)
from aclog.kraft.position import (
    BatchPosition,
    SnapshotPosition,
    import_context,
    opening_context,
    position_of,
)
from aclog.kraft.reconciled import append_reconciled
from aclog.kraft.replay import kraft_replay_batches
from aclog.kraft.tail import KraftTail
from aclog.kraft.tail_errors import REIMPORT, KraftRolledError
from aclog.log import SegmentedLog, list_segments
from aclog.log.appends import MAX_BATCH_RECORDS
from aclog.records import Record, encode_many
from aclog.records.warning import ignore_warning


@dataclass
class KraftFollow:
    """Import ``source`` into ``data_dir``, then tail it every ``interval`` seconds until
    :attr:`stop` is set or ``max_polls`` polls ran (``None``: no limit; the start's catch-up
    is the first poll). ``on_append`` hears of each batch written, ``log`` of progress.

    ``admission`` makes, once the data directory is locked, the checker every record goes
    through (the controller's rules, :class:`~aclog.controller.admission.RecordAdmission`, on
    the directory's state); what it keeps out is logged, reported and never written.

    ``reconcile``, when given, lets a resume go on past a roll: called with the end offset of
    the newest snapshot the segments continue after, it returns the records that take the
    data directory's state to that snapshot's (:func:`aclog.replay.kraft_reconcile`, which
    this layer cannot import), written as one batch.
    """

    source: Path
    data_dir: Path
    interval: float
    admission: Callable[[], Admission]
    skip_noop: bool = False
    max_polls: int | None = None
    reconcile: Callable[[int], list[Record]] | None = None
    on_append: Callable[[Appended], None] = lambda appended: None
    log: Callable[[str], None] = ignore_warning
    stop: Event = field(default_factory=Event)
    report: ImportReport = field(init=False)

    def __post_init__(self) -> None:
        self.report = ImportReport(self.source, self.data_dir)
        self.origin = self.source.resolve()
        self._unwritten: KraftBatch | None = None  # read since the last write, none written

    def run(self) -> ImportReport:
        """Follow until stopped; the report of everything read and written. Raises
        :class:`ImportTargetError`, :class:`~aclog.kraft.errors.KraftError` or
        :class:`~aclog.log.LogError` (after importing every good batch before the problem)."""
        check_follow_target(self.source, self.data_dir)
        existed = self.data_dir.exists()
        fresh = not existed or not any(os.scandir(self.data_dir))
        with SegmentedLog(self.data_dir) as log:
            try:
                self._admission = self.admission()  # the state as of now, under the lock
                tail = self._start(log)
            except BaseException:
                if fresh and log.end_offset == 0:  # nothing imported: leave no empty log behind
                    log.close()
                    undo_import(self.data_dir, created=not existed)
                raise
            polls = 1
            while not self.stop.is_set():
                if self.max_polls is not None and polls >= self.max_polls:
                    break
                if self.stop.wait(self.interval):
                    break
                self._poll(log, tail)
                polls += 1
            self._mark(log)
            self.report.aclog_end_offset = log.end_offset
        self.report.kraft_next_offset = max(self.report.kraft_next_offset, tail.next_offset)
        return self.report

    def _start(self, log: SegmentedLog) -> KraftTail:
        """Import or resume, catch up, and the tail positioned after what was read. The
        catch-up may be long, so it fsyncs each file once at its end instead of each batch:
        every batch names its position, so a crash before that still resumes exactly."""
        tail = self._first_import(log) if log.end_offset == 0 else self._resume(log)
        try:
            self._poll(log, tail, fsync=False)
        finally:
            sync_tree(self.data_dir)
        self.log(f"caught up with {self.source} at KRaft offset {tail.next_offset - 1}")
        return tail

    def _first_import(self, log: SegmentedLog) -> KraftTail:
        """Import the newest usable snapshot; the tail starts after it (the log batches go
        through the tail, whose reading is safe against a controller writing meanwhile)."""
        if not self.source.is_dir():
            raise KraftLayoutError(f"no KRaft metadata directory at {self.source}")
        info, batches = kraft_replay_batches(self.source, on_warning=self.log)
        self.report.snapshot = info
        if info is None:
            return KraftTail.open(self.source, 0)
        self._write(log, next(batches), fsync=False)
        return KraftTail.open(self.source, info.end_offset)

    def _resume(self, log: SegmentedLog) -> KraftTail:
        last = list(log.read(log.end_offset - 1))[-1]
        context = opening_context(last.values[0])
        position = position_of(context)
        if context is None or position is None:
            raise ImportTargetError(
                f"{self.data_dir} holds changes that were not imported from KRaft (the batch "
                f"at offset {last.base_offset} names no KRaft position; an import by an aclog "
                "older than --follow names none either); follow into a new or empty directory, "
                "or one that aclog import --from-kraft wrote"
            )
        if context.client_address != str(self.origin):
            raise ImportTargetError(
                f"{self.data_dir} was imported from {context.client_address}, not from "
                f"{self.origin}; follow the same KRaft directory, or import this one into a new "
                "data directory"
            )
        self.log(f"resuming after {position.describe()}")
        if isinstance(position, BatchPosition):
            after = (position.base_offset, position.last_offset, position.epoch)
            return self._open(log, position.last_offset + 1, after)
        return self._open(log, self._finish_snapshot(log, position), None)

    def _open(
        self, log: SegmentedLog, next_offset: int, after: tuple[int, int, int] | None
    ) -> KraftTail:
        """The tail from ``next_offset``; past a roll, reconciled when that was asked for."""
        try:
            return KraftTail.open(self.source, next_offset, after)
        except KraftRolledError as rolled:
            if self.reconcile is None:
                raise
            return KraftTail.open(self.source, self._reconcile(log, next_offset, rolled))

    def _reconcile(self, log: SegmentedLog, needed: int, rolled: KraftRolledError) -> int:
        """Append, as ONE batch, the net effect of the offsets from ``needed`` up to the
        newest snapshot the segments continue after; that snapshot's end offset."""
        segments = list_segments(self.source)
        start = segments[0][0] if segments else None
        fitting = [
            c
            for c in list_checkpoints(self.source)
            if c.end_offset > needed and start is not None and start <= c.end_offset
        ]
        if not fitting or self.reconcile is None:
            raise rolled
        checkpoint = fitting[-1]
        records = self.reconcile(checkpoint.end_offset)
        if len(records) >= MAX_BATCH_RECORDS:
            raise KraftLayoutError(f"{rolled}; reconciling would take {len(records)} records, more "
                                   "than one atomic batch holds")  # fmt: skip
        appended = append_reconciled(
            log, self.origin, needed, checkpoint, records, self._admission, self.report
        )
        self._told(appended)
        self.log(
            f"KRaft offsets {needed}..{checkpoint.last_offset} were deleted before they were "
            f"read; recorded their net effect from {checkpoint.path.name} ({len(records)} "
            "records) as one batch"
        )
        return checkpoint.end_offset

    def _told(self, appended: Appended) -> None:
        """Say what was appended, and each record kept out as it happens (stderr)."""
        for rejected in appended.rejected:
            self.log(rejected.describe())
        self.on_append(appended)

    def _finish_snapshot(self, log: SegmentedLog, position: SnapshotPosition) -> int:
        """Write the rest of a snapshot an interrupted import began; its end offset."""
        parsed = parse_checkpoint_name(position.name)
        path = self.source / position.name
        if parsed is None or (not position.complete and not path.is_file()):
            raise KraftLayoutError(
                f"the import into {self.data_dir} stopped inside KRaft snapshot "
                f"{position.name}, which is no longer in {self.source}; {REIMPORT}"
            )
        if not position.complete:
            info, records = read_checkpoint_info(path)
            self._write(log, snapshot_as_batch(info, records), snapshot_from=position.last + 1)
        return parsed[0]

    def _poll(self, log: SegmentedLog, tail: KraftTail, *, fsync: bool = True) -> None:
        for batch in tail.poll():
            if self.stop.is_set():  # between batches; a restart resumes from the log
                return
            self._take(log, batch, fsync=fsync)

    def _take(self, log: SegmentedLog, batch: KraftBatch, *, fsync: bool = True) -> None:
        """Import ``batch``, marking the position first when it starts a new segment."""
        pending = self._unwritten
        if pending is not None and batch.source != pending.source:
            self._mark(log)  # its segment may go once a snapshot passes it: keep our place
        self._write(log, batch, fsync=fsync)

    def _mark(self, log: SegmentedLog) -> None:
        """Write a position mark for the KRaft batches read since the last write."""
        batch = self._unwritten
        if batch is None:
            return
        position = BatchPosition(batch.base_offset, batch.last_offset, batch.epoch, mark=True)
        context = import_context(self.origin, batch.timestamp_ms, position)
        log.append(encode_many([context]), batch.epoch, timestamp_ms=batch.timestamp_ms)
        self._unwritten = None
        self.log(f"recorded the position: {position.describe()}")

    def _write(
        self, log: SegmentedLog, batch: KraftBatch, *, fsync: bool = True, snapshot_from: int = 0
    ) -> None:
        appended = import_batch(
            log,
            self.origin,
            batch,
            self.report,
            admission=self._admission,
            skip_noop=self.skip_noop,
            fsync=fsync,
            snapshot_from=snapshot_from,
        )
        for each in appended:
            self._told(each)
        self._unwritten = None if appended or batch.from_checkpoint else batch
