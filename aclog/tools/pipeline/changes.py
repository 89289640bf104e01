"""``aclog pipeline diff``: ``aclog diff`` as a Spark job (:mod:`aclog.pipeline.diff`);
``--json`` prints exactly what the in-process command prints. Registered on the ``aclog
pipeline`` app.
"""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.tools.console import (
    EXIT_USAGE,
    fail,
    print_json,
    print_line,
)
from aclog.tools.params import JsonFlag, SourceFormat
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.inputs import job_source
from aclog.tools.pipeline.options import (
    ConfOption,
    DataDirOption,
    DriverHostOption,
    MasterOption,
)
from aclog.tools.pipeline.spark import pipeline_modules, spark_for


@pipeline_app.command("diff")
def diff_command(
    start: Annotated[str, typer.Option("--from", help="An offset or an ISO-8601 time.")],
    end: Annotated[str, typer.Option("--to", help="An offset or an ISO-8601 time.")],
    data_dir: DataDirOption = None,
    source_format: SourceFormat = "auto",
    master: MasterOption = None,
    conf: ConfOption = None,
    driver_host: DriverHostOption = None,
    json_output: JsonFlag = False,
) -> None:
    """'aclog diff' as a job: ACLs and credentials added, removed and changed, with who and
    when (a KRaft log records no authors: "author" is null, as in 'aclog diff')."""
    from aclog.tools.points import parse_range_end  # noqa: PLC0415 - the library on a run

    first, last = parse_range_end(start, "--from"), parse_range_end(end, "--to")
    source = job_source(data_dir, None, source_format)
    with spark_for(master, conf, driver_host) as spark:
        try:
            result = pipeline_modules().commands.changes(spark, source, first, last)
        except ValueError as error:
            fail(f"--from comes after --to ({error})", EXIT_USAGE)
    if json_output:
        print_json(result)
        return
    print_line(f"from offset {result['from']['last_offset']} to {result['to']['last_offset']}")
    for change in result["acls"] + result["credentials"]:
        what = change.get("resource_name", change.get("name"))
        print_line(f"  {change['change']:<7} {what} at offset {change['offset']}")
