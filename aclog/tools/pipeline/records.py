"""``aclog pipeline records``: every record of a data directory, written as Parquet."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.console import print_json, print_line
from aclog.tools.pipeline.options import pipeline_command
from aclog.tools.pipeline.shared import SharedOptions


@pipeline_command("records")
def records_command(
    options: SharedOptions,
    out_path: Annotated[
        Path, typer.Option("--out", help="Write the records here (Parquet).", readable=False)
    ],
    snapshots: Annotated[
        str,
        typer.Option(
            "--snapshots",
            help="none, all, or snapshot paths (comma-separated; .checkpoint files with "
            "--format kraft).",
        ),
    ] = "none",
) -> None:
    """Every record with offset, epoch, time, author, type and fields (no salts or keys); a
    KRaft log's records have no author, and each of its other records is one UNKNOWN row."""
    with replace(options, out=out_path).job() as (pipeline, job):
        count = pipeline.commands.records(job, snapshots=snapshots)
    if options.json_output:
        print_json({"out": str(out_path), "records": count})
    else:
        print_line(f"wrote {count} records to {out_path}")
