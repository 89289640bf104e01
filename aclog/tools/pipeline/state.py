"""``aclog pipeline state``: the ACLs and SCRAM users as of a point, as ``aclog replay``."""

from __future__ import annotations

from typing import Any

from aclog.tools.common import AtOffset, AtTime, JsonFlag, SourceFormat
from aclog.tools.console import out, print_json, print_warning
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.inputs import check_source, job_state, time_ms
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
    at_time_ms = time_ms(at_time)
    kraft = check_source(data_dir, records, source_format)
    collect = json_output or out_path is None
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        pipeline = pipeline_modules()
        point = (at_offset, at_time_ms)
        if data_dir is not None and records is None and not kraft:
            # aclog's own files: the decoding tasks keep the rows (no row enters the JVM).
            answer = pipeline.state_answer.answer_state(
                spark,
                data_dir,
                *point,
                out=out_path,
                collect=collect,
                use_snapshots=snapshots,
                on_warning=print_warning,
            )
        else:
            result = job_state(spark, data_dir, records, point, snapshots, kraft)
            answer = pipeline.state_answer.answer_from_state(result, out_path, collect)
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
    out.print(
        f"state at offset {summary['offset']} (epoch {summary['epoch']}): "
        f"{summary['acls']} ACLs, {summary['credentials']} SCRAM credentials{written}",
        markup=False,
    )
