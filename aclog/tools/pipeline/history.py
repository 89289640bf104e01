"""``aclog pipeline history``: one row per ACL and per SCRAM credential lifetime."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from aclog.tools.console import print_json, print_line
from aclog.tools.params import JsonFlag, SourceFormat
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.inputs import job_source
from aclog.tools.pipeline.options import (
    ConfOption,
    DataDirOption,
    DriverHostOption,
    LimitOption,
    MasterOption,
    OutOption,
    RecordsOption,
)
from aclog.tools.pipeline.output import show_rows
from aclog.tools.pipeline.spark import pipeline_modules, spark_for


@pipeline_app.command("history")
def history_command(
    data_dir: DataDirOption = None,
    records: RecordsOption = None,
    out_path: OutOption = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot", help="Draw counts over time and changes per author.", readable=False
        ),
    ] = None,
    source_format: SourceFormat = "auto",
    master: MasterOption = None,
    conf: ConfOption = None,
    driver_host: DriverHostOption = None,
    json_output: JsonFlag = False,
    limit: LimitOption = 20,
) -> None:
    """One row per ACL lifetime and per SCRAM credential lifetime: created, rotated, removed
    (a KRaft log records no authors: the by/from columns are empty)."""
    source = job_source(data_dir, records, source_format)
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        rows = pipeline_modules().commands.lifetimes(
            spark, source, out_path, plot, json_output or not out_path
        )
    _show_lifetimes(rows, out_path, plot, json_output, limit)


def _show_lifetimes(
    rows: list[dict[str, Any]],
    out_path: Path | None,
    plot: Path | None,
    json_output: bool,
    limit: int,
) -> None:
    """Render what ``history`` found: JSON, a table, or where it was written and drawn."""
    if json_output:
        print_json({"lifetimes": rows})
    elif out_path is None:
        columns = ["kind", "acl_id", "user", "mechanism", "created_offset", "created_by"]
        show_rows(rows, [*columns, "rotations", "removed_offset", "removed_by"], limit, "lifetimes")
    else:
        print_line(f"wrote lifetimes to {out_path}")
    if plot is not None and not json_output:
        print_line(f"drew {plot}")
