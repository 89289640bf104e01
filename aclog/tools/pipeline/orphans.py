"""``aclog pipeline orphans``: ACLs naming users without credentials, credentials no ACL names,
ACLs on resources the inventory lacks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.common import AtOffset, AtTime, JsonFlag, SourceFormat
from aclog.tools.console import print_json
from aclog.tools.pipeline.access import read_resources
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.inputs import check_source, job_state, time_ms
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
from aclog.tools.pipeline.output import collect_rows, show_rows, write_parquet
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
    at_time_ms = time_ms(at_time)
    kraft = check_source(data_dir, records, source_format)
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        pipeline = pipeline_modules()

        result = job_state(spark, data_dir, records, (at_offset, at_time_ms), snapshots, kraft)
        frame = pipeline.orphans.orphans(
            result.acls,
            result.users,
            None if inventory is None else pipeline.access.resources_frame(spark, inventory),
        )
        if out_path is not None:
            frame = write_parquet(frame, out_path)
        rows = collect_rows(frame.orderBy("kind", "acl_id", "user"))
        result.unpersist()
    if json_output:
        print_json({"orphans": rows})
        return
    columns = ["kind", "acl_id", "principal", "resource_type", "resource_name", "user"]
    show_rows(rows, [*columns, "mechanisms"], limit, "orphans")
