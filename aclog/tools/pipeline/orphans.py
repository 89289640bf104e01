"""``aclog pipeline orphans``: ACLs naming users without credentials, credentials no ACL names,
ACLs on resources the inventory lacks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.console import print_json
from aclog.tools.pipeline.asking import read_resources
from aclog.tools.pipeline.options import pipeline_command
from aclog.tools.pipeline.output import show_rows
from aclog.tools.pipeline.shared import SharedOptions


@pipeline_command("orphans", "records", "point", "out", "snapshots", "limit")
def orphans_command(
    options: SharedOptions,
    resources: Annotated[
        Path | None,
        typer.Option("--resources", help="TYPE:name lines (an inventory).", readable=False),
    ] = None,
) -> None:
    """ACLs naming users without credentials, credentials no ACL names, ACLs on nothing."""
    inventory = read_resources(resources) if resources is not None else None
    with options.job() as (pipeline, job):
        rows = pipeline.commands.orphan_rows(job, inventory)
    if options.json_output:
        print_json({"orphans": rows})
        return
    columns = ["kind", "acl_id", "principal", "resource_type", "resource_name", "user"]
    show_rows(rows, [*columns, "mechanisms"], options.limit, "orphans")
