"""``aclog pipeline access``: every principal x resource x operation decision, as ``explain``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.console import print_json, print_line
from aclog.tools.params import AtOffset, AtTime, JsonFlag, SourceFormat
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.asking import (
    parse_operations,
    read_principals,
    read_resources,
    super_user_set,
)
from aclog.tools.pipeline.inputs import job_source
from aclog.tools.pipeline.options import (
    ConfOption,
    DataDirOption,
    DriverHostOption,
    LimitOption,
    MasterOption,
    OutOption,
    RecordsOption,
    SnapshotsFlag,
)
from aclog.tools.pipeline.output import show_rows
from aclog.tools.pipeline.spark import pipeline_modules, spark_for


@pipeline_app.command("access")
def access_command(
    resources: Annotated[
        Path,
        typer.Option("--resources", help="TYPE:name lines, e.g. TOPIC:orders.", readable=False),
    ],
    principals: Annotated[
        Path, typer.Option("--principals", help="One User:name per line.", readable=False)
    ],
    data_dir: DataDirOption = None,
    records: RecordsOption = None,
    hosts: Annotated[
        list[str] | None, typer.Option("--hosts", help="Client addresses (repeat; default *).")
    ] = None,
    operations: Annotated[
        list[str] | None,
        typer.Option("--operations", help="Operations (repeat; default: each type's own)."),
    ] = None,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    super_users: Annotated[
        str | None, typer.Option(help="Kafka's super.users, e.g. 'User:admin;User:ops'.")
    ] = None,
    allow_everyone_if_no_acl_found: Annotated[
        bool, typer.Option("--allow-everyone-if-no-acl-found", help="Kafka's setting.")
    ] = False,
    partitions: Annotated[
        int | None, typer.Option("--partitions", min=1, help="Tasks that share the grid.")
    ] = None,
    out_path: OutOption = None,
    snapshots: SnapshotsFlag = True,
    source_format: SourceFormat = "auto",
    master: MasterOption = None,
    conf: ConfOption = None,
    driver_host: DriverHostOption = None,
    json_output: JsonFlag = False,
    limit: LimitOption = 20,
) -> None:
    """Every principal x resource x operation decision and its deciding ACL, as 'explain'."""
    inventory = read_resources(resources)
    people = read_principals(principals)
    asked = parse_operations(operations or [])
    source = job_source(data_dir, records, source_format, (at_offset, at_time), snapshots)
    pipeline = pipeline_modules()
    question = pipeline.AccessQuestion(
        hosts=tuple(hosts or ["*"]),
        operations=asked,
        super_users=super_user_set(super_users),
        allow_everyone_if_no_acl_found=allow_everyone_if_no_acl_found,
    )
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        rows = pipeline.commands.decisions(
            spark, source, inventory, people, question, partitions=partitions, out=out_path,
            collect=json_output or not out_path,
        )  # fmt: skip
    if json_output:
        print_json({"decisions": rows})
    elif out_path is None:
        keys = pipeline.commands.ACCESS_ORDER
        show_rows(rows, [*keys, "decision", "reason", "acl_id"], limit, "decisions")
    else:
        print_line(f"wrote decisions to {out_path}")
