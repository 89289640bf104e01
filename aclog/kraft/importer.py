"""Importing Kafka's own KRaft metadata log into a new aclog data directory.

The import reads the newest usable ``.checkpoint`` snapshot and every log batch after it (see
:mod:`aclog.kraft.replay`) and appends ONE aclog batch per KRaft batch that holds anything aclog
tracks, with the KRaft batch's epoch and timestamp, keeping record order. The snapshot's
records come first, with the snapshot's epoch and header timestamp (split into batches of at
most ``MAX_BATCH_RECORDS`` records when it is larger). KRaft batches holding only other record
types (topics, partitions, brokers, features...) write nothing, so aclog offsets are renumbered
from 0 and do not equal KRaft offsets; the report gives both ends. Each aclog batch opens with
a request context naming the KRaft position it came from (:mod:`aclog.kraft.position`); its
requester is ``unknown``, as KRaft does not record who asked for a change.

Every record goes through an :class:`~aclog.kraft.admission.Admission` (the controller's rules,
which this layer cannot import, so the caller passes them); what it keeps out is never written
and is listed in the report's ``rejected`` with its KRaft offset.

The KRaft directory is only read (no lock, no writes); the target must be missing or empty, and
on any failure whatever was written there is removed again.

Not thread-safe: one import per target. Cost: O(KRaft bytes read + aclog records written), with
one fsync per imported file at the end instead of one per batch.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aclog.kraft.admission import Admission, Admitted, Rejected
from aclog.kraft.appended import Appended
from aclog.kraft.batch import KraftBatch
from aclog.kraft.checkpoint import CheckpointInfo, checkpoint_batch
from aclog.kraft.errors import ImportTargetError
from aclog.kraft.position import BatchPosition, Position, SnapshotPosition, import_context
from aclog.kraft.replay import kraft_replay_batches
from aclog.kraft.schemas import control_name, record_name
from aclog.log import SegmentedLog, list_segments
from aclog.log.appends import MAX_BATCH_RECORDS
from aclog.log.durable import fsync_directory, fsync_path
from aclog.records import NoOpRecord, encode_many


@dataclass
class ImportReport:
    """What an import (or a follow) read and wrote; every aclog batch written is counted,
    a follow's reconciled batch too (also described on its own in ``reconciled``)."""

    source: Path
    data_dir: Path
    snapshot: CheckpointInfo | None = None
    kraft_batches: int = 0
    kraft_next_offset: int = 0
    batches_written: int = 0
    records_written: int = 0
    aclog_end_offset: int = 0
    batches_without_aclog_records: int = 0
    records_by_type: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    skipped_control: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    reconciled: dict[str, Any] | None = None  # a follow's --reconcile batch, as its JSON line

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` form."""
        return {
            "source": str(self.source),
            "data_dir": str(self.data_dir),
            "snapshot": None if self.snapshot is None else self.snapshot.to_dict(),
            "kraft_batches": self.kraft_batches,
            "kraft_next_offset": self.kraft_next_offset,
            "batches_written": self.batches_written,
            "records_written": self.records_written,
            "aclog_end_offset": self.aclog_end_offset,
            "batches_without_aclog_records": self.batches_without_aclog_records,
            "records_by_type": dict(sorted(self.records_by_type.items())),
            "skipped": dict(sorted(self.skipped.items())),
            "skipped_control": dict(sorted(self.skipped_control.items())),
            "warnings": self.warnings,
            "rejected": [r.to_dict() for r in self.rejected],
            "reconciled": self.reconciled,
        }


def check_target(source: Path, data_dir: Path) -> None:
    """Refuse a non-empty target and any target inside the KRaft directory."""
    src = source.resolve()
    _check_outside(src.parent if src.is_file() else src, data_dir)
    if data_dir.is_dir() and any(data_dir.iterdir()):
        raise ImportTargetError(
            f"{data_dir} is not empty; import into a new or empty directory so no existing "
            "log is mixed with the imported one (to continue an earlier import of the same "
            "KRaft directory, add --follow)"
        )


def check_follow_target(source: Path, data_dir: Path) -> None:
    """Refuse a data directory inside the KRaft one, or one that is not an aclog log."""
    _check_outside(source.resolve(), data_dir)
    if data_dir.is_dir() and any(os.scandir(data_dir)) and not list_segments(data_dir):
        raise ImportTargetError(
            f"{data_dir} holds files but no aclog log; follow into a new or empty directory, "
            "or one that aclog import --from-kraft wrote"
        )


def _check_outside(kraft_dir: Path, data_dir: Path) -> None:
    """Refuse a data directory inside ``kraft_dir`` (resolved) or one that is not a directory."""
    dst = data_dir.resolve()
    if dst == kraft_dir or kraft_dir in dst.parents:
        raise ImportTargetError(
            f"{data_dir} is inside the KRaft directory {kraft_dir}; aclog never writes there, "
            "give a data directory elsewhere"
        )
    if data_dir.exists() and not data_dir.is_dir():
        raise ImportTargetError(f"{data_dir} exists and is not a directory")


def import_kraft(
    source: Path,
    data_dir: Path,
    *,
    admission: Admission,
    skip_noop: bool = False,
    on_batch: Callable[[KraftBatch], None] | None = None,
) -> ImportReport:
    """Convert the KRaft metadata in ``source`` (a directory or one ``.checkpoint``) into a new
    aclog log in ``data_dir``, every record through ``admission`` (the controller's rules: an
    empty :class:`~aclog.controller.admission.RecordAdmission`); those it keeps out are in the
    report's ``rejected``, the rest is imported. Raise :class:`ImportTargetError`,
    :class:`KraftError` or :class:`LogError`, leaving ``data_dir`` as it was."""
    check_target(source, data_dir)
    report = ImportReport(source, data_dir)
    if source.is_file():
        whole = checkpoint_batch(source)
        batches: Iterator[KraftBatch] = iter([whole])
    else:
        report.snapshot, batches = kraft_replay_batches(source, on_warning=report.warnings.append)
    created = not data_dir.exists()
    origin = source.resolve()
    try:
        with SegmentedLog(data_dir, fsync=False) as log:
            for batch in batches:
                import_batch(
                    log, origin, batch, report, admission=admission, skip_noop=skip_noop,
                    fsync=False,
                )  # fmt: skip
                if on_batch is not None:
                    on_batch(batch)
            report.aclog_end_offset = log.end_offset
        sync_tree(data_dir)
    except BaseException:
        undo_import(data_dir, created)
        raise
    return report


def import_batch(
    log: SegmentedLog,
    origin: Path,
    batch: KraftBatch,
    report: ImportReport,
    *,
    admission: Admission,
    skip_noop: bool,
    fsync: bool,
    snapshot_from: int = 0,
) -> list[Appended]:
    """Append the aclog records of one KRaft batch that ``admission`` admits (those it keeps
    out go to ``report.rejected``), each aclog batch opened by the request context recording
    its KRaft position (``origin`` is the KRaft directory); a snapshot batch larger than
    ``MAX_BATCH_RECORDS`` becomes several, and ``snapshot_from`` skips the records of a
    snapshot an interrupted import already wrote. Returns what was appended."""
    report.kraft_batches += 0 if batch.from_checkpoint else 1
    report.kraft_next_offset = max(report.kraft_next_offset, batch.last_offset + 1)
    for api_key, count in batch.skipped.items():
        report.skipped[record_name(api_key)] += count
    for control_type, count in batch.skipped_control.items():
        report.skipped_control[control_name(control_type)] += count
    records = [
        (r.offset, r.record)
        for r in batch.records
        if not (skip_noop and isinstance(r.record, NoOpRecord))
    ]
    if not records:
        report.batches_without_aclog_records += 0 if batch.from_checkpoint else 1
        return []
    appended = []
    chunk_size = MAX_BATCH_RECORDS - 1  # room for the request context
    snapshot = batch.source.name if batch.from_checkpoint and batch.source else None
    for start in range(snapshot_from, len(records), chunk_size):
        chunk = records[start : start + chunk_size]
        verdict = admission.admit(
            chunk, atomic=not batch.from_checkpoint, snapshot=snapshot, first_index=start
        )
        # The position covers the records read, kept or not: a batch whose records were all
        # kept out still records that it was read, so a resume neither repeats nor skips it.
        position = _position(batch, start, len(chunk), len(records))
        appended.append(_append(log, origin, batch, position, verdict, report, fsync=fsync))
    return appended


def _append(
    log: SegmentedLog,
    origin: Path,
    batch: KraftBatch,
    position: Position,
    verdict: Admitted,
    report: ImportReport,
    *,
    fsync: bool,
) -> Appended:
    """Append what ``verdict`` kept, led by the request context naming ``position``."""
    context = import_context(origin, batch.timestamp_ms, position)
    values = encode_many([context, *verdict.kept])
    result = log.append(values, batch.epoch, timestamp_ms=batch.timestamp_ms, fsync=fsync)
    report.batches_written += 1
    report.records_written += len(verdict.kept)
    report.records_by_type.update(type(r).__name__ for r in verdict.kept)
    report.rejected += verdict.rejected
    return Appended(position, result, verdict.kept, verdict.rejected)


def _position(batch: KraftBatch, start: int, count: int, total: int) -> Position:
    if batch.from_checkpoint:
        name = "" if batch.source is None else batch.source.name
        return SnapshotPosition(name, start, start + count - 1, total)
    return BatchPosition(batch.base_offset, batch.last_offset, batch.epoch)


def sync_tree(directory: Path) -> None:
    """Make the imported files durable (the log was written without per-batch fsyncs)."""
    for entry in os.scandir(directory):
        if entry.is_file():
            fsync_path(Path(entry.path))
    fsync_directory(directory)


def undo_import(data_dir: Path, created: bool) -> None:
    """Remove what a failed import wrote (the directory was missing or empty before)."""
    if created:
        shutil.rmtree(data_dir, ignore_errors=True)
        return
    for entry in os.scandir(data_dir):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            Path(entry.path).unlink(missing_ok=True)
