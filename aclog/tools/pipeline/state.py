"""``aclog pipeline state``: the ACLs and SCRAM users as of a point, as ``aclog replay``."""

from __future__ import annotations

from typing import Any

from aclog.tools.console import print_json, print_line
from aclog.tools.params import AtOffset, AtTime, JsonFlag, SourceFormat
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.inputs import job_source
from aclog.tools.pipeline.options import (
    ConfOption,
    DataDirOption,
    DriverHostOption,
    MasterOption,
    OutOption,
    RecordsOption,
    SnapshotsFlag,
)
from aclog.tools.pipeline.spark import pipeline_modules, spark_for


@pipeline_app.command("state")
def state_command(
    data_dir: DataDirOption = None,
    records: RecordsOption = None,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    out_path: OutOption = None,
    snapshots: SnapshotsFlag = True,
    source_format: SourceFormat = "auto",
    master: MasterOption = None,
    conf: ConfOption = None,
    driver_host: DriverHostOption = None,
    json_output: JsonFlag = False,
) -> None:
    """ACLs and SCRAM users (no secrets) as of a point; the same answer as 'aclog replay'."""
    source = job_source(data_dir, records, source_format, (at_offset, at_time), snapshots)
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        answer = pipeline_modules().commands.state_of(
            spark, source, out_path, json_output or out_path is None
        )
    _render(answer.written, answer.document, json_output)


def _render(written: Any, document: dict[str, Any] | None, json_output: bool) -> None:
    if json_output:
        print_json(document)
    elif document is None:
        _state_line(written.to_dict(), f"; written to {written.out}")
    else:
        credentials = sum(len(user["credentials"]) for user in document["users"])
        _state_line({**document, "acls": len(document["acls"]), "credentials": credentials}, "")


def _state_line(summary: dict[str, Any], written: str) -> None:
    print_line(
        f"state at offset {summary['offset']} (epoch {summary['epoch']}): "
        f"{summary['acls']} ACLs, {summary['credentials']} SCRAM credentials{written}"
    )
