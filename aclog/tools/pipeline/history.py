"""``aclog pipeline history``: one row per ACL and per SCRAM credential lifetime."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from aclog.tools.console import print_json, print_line
from aclog.tools.pipeline.options import pipeline_command
from aclog.tools.pipeline.output import show_rows
from aclog.tools.pipeline.shared import SharedOptions


@pipeline_command("history", "records", "out", "limit")
def history_command(
    options: SharedOptions,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot", help="Draw counts over time and changes per author.", readable=False
        ),
    ] = None,
) -> None:
    """One row per ACL lifetime and per SCRAM credential lifetime: created, rotated, removed
    (a KRaft log records no authors: the by/from columns are empty)."""
    with options.job() as (pipeline, job):
        rows = pipeline.commands.lifetimes(job, plot, options.collect)
    _show_lifetimes(rows, options, plot)


def _show_lifetimes(rows: list[dict[str, Any]], options: SharedOptions, plot: Path | None) -> None:
    """Render what ``history`` found: JSON, a table, or where it was written and drawn."""
    if options.json_output:
        print_json({"lifetimes": rows})
    elif options.out is None:
        columns = ["kind", "acl_id", "user", "mechanism", "created_offset", "created_by"]
        columns += ["rotations", "removed_offset", "removed_by"]
        show_rows(rows, columns, options.limit, "lifetimes")
    else:
        print_line(f"wrote lifetimes to {options.out}")
    if plot is not None and not options.json_output:
        print_line(f"drew {plot}")
