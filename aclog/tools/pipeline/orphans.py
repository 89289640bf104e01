"""``aclog pipeline orphans``: ACLs naming users without credentials, credentials no ACL names,
ACLs on resources the inventory lacks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.console import print_json
from aclog.tools.params import AtOffset, AtTime, JsonFlag, SourceFormat
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.asking import read_resources
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


@pipeline_app.command("orphans")
def orphans_command(
    data_dir: DataDirOption = None,
    records: RecordsOption = None,
    resources: Annotated[
        Path | None,
        typer.Option("--resources", help="TYPE:name lines (an inventory).", readable=False),
    ] = None,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    out_path: OutOption = None,
    snapshots: SnapshotsFlag = True,
    source_format: SourceFormat = "auto",
    master: MasterOption = None,
    conf: ConfOption = None,
    driver_host: DriverHostOption = None,
    json_output: JsonFlag = False,
    limit: LimitOption = 20,
) -> None:
    """ACLs naming users without credentials, credentials no ACL names, ACLs on nothing."""
    inventory = read_resources(resources) if resources is not None else None
    source = job_source(data_dir, records, source_format, (at_offset, at_time), snapshots)
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        rows = pipeline_modules().commands.orphan_rows(spark, source, inventory, out_path)
    if json_output:
        print_json({"orphans": rows})
        return
    columns = ["kind", "acl_id", "principal", "resource_type", "resource_name", "user"]
    show_rows(rows, [*columns, "mechanisms"], limit, "orphans")
