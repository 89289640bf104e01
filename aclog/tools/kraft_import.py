"""``aclog import --from-kraft``: turn Kafka's own KRaft metadata log into an aclog data directory.

The command checks the source, runs :func:`aclog.kraft.importer.import_kraft` under a progress
bar and prints its :class:`~aclog.kraft.importer.ImportReport` (``--json``: the report's dict).
What is imported and how is described in :mod:`aclog.kraft.importer`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from aclog.kraft import (
    CHECKPOINT_SUFFIX,
    ImportReport,
    ImportTargetError,
    KraftError,
    import_kraft,
    is_kraft_path,
)
from aclog.log import LogError, estimated_end_offset
from aclog.snapshot import SNAPSHOT_SUFFIX
from aclog.tools.common import DATA_DIR_ENV
from aclog.tools.console import (
    EXIT_USAGE,
    app,
    fail,
    print_json,
    print_line,
)
from aclog.tools.exit_codes import fail_for
from aclog.tools.progress import offsets_bar


def _check_source(source: Path) -> None:
    if not source.exists():
        fail(f"no such file or directory: {source}", EXIT_USAGE)
    if source.is_file():
        if not source.name.endswith(CHECKPOINT_SUFFIX):
            fail(
                f"{source} is not a KRaft snapshot; give the metadata log directory "
                "(__cluster_metadata-0) or one of its .checkpoint files",
                EXIT_USAGE,
            )
        return
    names = [entry.name for entry in os.scandir(source)]
    if any(name.endswith(SNAPSHOT_SUFFIX) for name in names):
        fail(f"{source} looks like an aclog data directory, not a KRaft one", EXIT_USAGE)
    if not is_kraft_path(source) and not any(name.endswith(".log") for name in names):
        fail(
            f"no KRaft segments (.log) or snapshots (.checkpoint) in {source}; give the "
            "metadata log directory, usually <metadata.log.dir>/__cluster_metadata-0",
            EXIT_USAGE,
        )


@app.command("import")
def import_command(
    from_kraft: Annotated[
        Path,
        typer.Option(
            "--from-kraft",
            help="Kafka's metadata log directory (__cluster_metadata-0) or one .checkpoint.",
        ),
    ],
    data_dir: Annotated[
        Path,
        typer.Option(
            "--data-dir",
            help="The new aclog data directory (missing or empty).",
            envvar=DATA_DIR_ENV,
        ),
    ],
    skip_noop: Annotated[
        bool,
        typer.Option("--skip-noop", help="Leave out KRaft's periodic NoOpRecords."),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Import the ACLs and SCRAM credentials of a KRaft metadata log into a new aclog log,
    keeping record order, epochs and timestamps (read-only on the KRaft side)."""
    _check_source(from_kraft)
    try:
        end = None if from_kraft.is_file() else estimated_end_offset(from_kraft)
        with offsets_bar("importing: KRaft", end) as on_offset:
            on_batch = None if on_offset is None else lambda b: on_offset(b.last_offset)
            report = import_kraft(from_kraft, data_dir, skip_noop=skip_noop, on_batch=on_batch)
    except (ImportTargetError, KraftError, LogError, OSError) as error:
        fail_for(error, f"import {from_kraft} into {data_dir}")
    for warning in report.warnings:
        print_line(f"aclog: warning: {warning}", stderr=True)
    if json_output:
        print_json(report.to_dict())
        return
    _print_report(report)


def _print_report(report: ImportReport) -> None:
    snapshot = report.snapshot
    if snapshot is not None:
        print_line(
            f"snapshot {snapshot.path.name}: {snapshot.record_count} records "
            f"(state before KRaft offset {snapshot.end_offset}, epoch {snapshot.epoch})"
        )
    print_line(
        f"read {report.kraft_batches} KRaft batches up to offset {report.kraft_next_offset}; "
        f"wrote {report.records_written} records in {report.batches_written} batches to "
        f"{report.data_dir} (offsets 0..{report.aclog_end_offset - 1})"
    )
    for name, count in sorted(report.records_by_type.items()):
        print_line(f"  {count:>8}  {name}")
    skipped = sum(report.skipped.values())
    if skipped:
        kinds = ", ".join(f"{name} {n}" for name, n in report.skipped.most_common())
        print_line(f"skipped {skipped} other KRaft records: {kinds}")
