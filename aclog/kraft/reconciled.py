"""The batch a ``--reconcile`` resume writes: the net effect of KRaft offsets Kafka deleted
before they were read, taken from the newest snapshot, as ONE aclog batch.

Its records (computed by :func:`aclog.replay.kraft_reconcile`) go through the same
:class:`~aclog.kraft.admission.Admission` as every imported record; those kept out are
reported with the snapshot's name. The batch is counted in the follow's report and repeated
under ``reconciled``.

Not thread-safe (the follow's writer owns the log). Cost: the admission's, plus one fsynced
append.
"""

from __future__ import annotations

from pathlib import Path

from aclog.kraft.admission import Admission
from aclog.kraft.appended import Appended
from aclog.kraft.checkpoint import CheckpointFile, checkpoint_timestamp
from aclog.kraft.importer import ImportReport
from aclog.kraft.position import SnapshotPosition, import_context
from aclog.log import SegmentedLog
from aclog.records import Record, encode_many


def append_reconciled(
    log: SegmentedLog,
    origin: Path,
    needed: int,
    checkpoint: CheckpointFile,
    records: list[Record],
    admission: Admission,
    report: ImportReport,
) -> Appended:
    """Append what ``admission`` admits of ``records`` (the net effect of the offsets from
    ``needed`` up to ``checkpoint``) as one batch, and count it in ``report``."""
    at = checkpoint.last_offset
    verdict = admission.admit(
        [(at, record) for record in records], atomic=False, snapshot=checkpoint.path.name
    )
    position = SnapshotPosition.reconciled(checkpoint.path.name, needed)
    timestamp = checkpoint_timestamp(checkpoint.path)
    context = import_context(origin, timestamp, position)
    result = log.append(
        encode_many([context, *verdict.kept]), checkpoint.epoch, timestamp_ms=timestamp
    )
    appended = Appended(position, result, verdict.kept, verdict.rejected)
    report.batches_written += 1
    report.records_written += len(verdict.kept)
    report.records_by_type.update(type(r).__name__ for r in verdict.kept)
    report.rejected += verdict.rejected
    report.reconciled = appended.to_dict()
    return appended
