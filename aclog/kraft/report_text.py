"""What an import or a follow of a KRaft metadata log says to a person: the report's summary
(:func:`report_lines`) and one line per aclog batch a follow wrote (:func:`appended_line`);
``--json`` prints their ``to_dict`` forms instead.

Pure functions; thread-safe. Cost: O(record types) per line.
"""

from __future__ import annotations

from aclog.kraft.appended import Appended
from aclog.kraft.importer import ImportReport
from aclog.kraft.position import BatchPosition


def report_lines(report: ImportReport) -> list[str]:
    """The snapshot read, the KRaft batches read and aclog batches written with the records
    by type, a reconciled batch, and the KRaft records skipped by type."""
    lines = []
    snapshot = report.snapshot
    if snapshot is not None:
        lines.append(
            f"snapshot {snapshot.path.name}: {snapshot.record_count} records "
            f"(state before KRaft offset {snapshot.end_offset}, epoch {snapshot.epoch})"
        )
    lines.append(
        f"read {report.kraft_batches} KRaft batches up to offset {report.kraft_next_offset}; "
        f"wrote {report.records_written} records in {report.batches_written} batches to "
        f"{report.data_dir} (offsets 0..{report.aclog_end_offset - 1})"
    )
    lines += [f"  {count:>8}  {name}" for name, count in sorted(report.records_by_type.items())]
    reconciled = report.reconciled
    if reconciled is not None:
        first, last = reconciled["aclog_offsets"]
        lines.append(
            f"reconciled KRaft offsets from {reconciled['reconciled_from']} with "
            f"{reconciled['kraft_snapshot']}: {reconciled['records']} records as one batch "
            f"(aclog {first}..{last})"
        )
    skipped = sum(report.skipped.values())
    if skipped:
        kinds = ", ".join(f"{name} {n}" for name, n in report.skipped.most_common())
        lines.append(f"skipped {skipped} other KRaft records: {kinds}")
    return lines


def appended_line(appended: Appended) -> str:
    """Where a follow's batch came from in KRaft, its epoch, where it went in aclog and its
    records by type."""
    position, result = appended.position, appended.result
    where = (
        f"KRaft {position.base_offset}..{position.last_offset}"
        if isinstance(position, BatchPosition)
        else f"KRaft snapshot {position.name}"
    )
    kinds = ", ".join(f"{k} {n}" for k, n in appended.to_dict()["records_by_type"].items())
    return (
        f"{where} epoch {result.epoch} -> aclog {result.base_offset}..{result.last_offset}: {kinds}"
    )
