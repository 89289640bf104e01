"""``aclog pipeline access``: every principal x resource x operation decision, as ``explain``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.console import print_json, print_line
from aclog.tools.params import AllowEveryone, SuperUsers
from aclog.tools.pipeline.asking import (
    parse_operations,
    read_principals,
    read_resources,
    super_user_set,
)
from aclog.tools.pipeline.options import pipeline_command
from aclog.tools.pipeline.output import show_rows
from aclog.tools.pipeline.shared import SharedOptions


@pipeline_command("access", "records", "point", "out", "snapshots", "limit")
def access_command(
    options: SharedOptions,
    resources: Annotated[
        Path,
        typer.Option("--resources", help="TYPE:name lines, e.g. TOPIC:orders.", readable=False),
    ],
    principals: Annotated[
        Path, typer.Option("--principals", help="One User:name per line.", readable=False)
    ],
    hosts: Annotated[
        list[str] | None, typer.Option("--hosts", help="Client addresses (repeat; default *).")
    ] = None,
    operations: Annotated[
        list[str] | None,
        typer.Option("--operations", help="Operations (repeat; default: each type's own)."),
    ] = None,
    super_users: SuperUsers = None,
    allow_everyone_if_no_acl_found: AllowEveryone = False,
    partitions: Annotated[
        int | None, typer.Option("--partitions", min=1, help="Tasks that share the grid.")
    ] = None,
) -> None:
    """Every principal x resource x operation decision and its deciding ACL, as 'explain'."""
    asked = (read_resources(resources), read_principals(principals))
    operation_list = parse_operations(operations or [])
    supers = super_user_set(super_users)
    with options.job() as (pipeline, job):
        question = pipeline.AccessQuestion(
            tuple(hosts or ["*"]), operation_list, supers, allow_everyone_if_no_acl_found
        )
        rows = pipeline.commands.decisions(
            job, asked, question, partitions=partitions, collect=options.collect
        )
    if options.json_output:
        print_json({"decisions": rows})
    elif options.out is None:
        keys = pipeline.commands.ACCESS_ORDER
        show_rows(rows, [*keys, "decision", "reason", "acl_id"], options.limit, "decisions")
    else:
        print_line(f"wrote decisions to {options.out}")
