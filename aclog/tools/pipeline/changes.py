"""``aclog pipeline diff``: ``aclog diff`` as a Spark job (:mod:`aclog.pipeline.diff`);
``--json`` prints exactly what the in-process command prints. Registered on the ``aclog
pipeline`` app.
"""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.tools.console import print_json, print_line
from aclog.tools.pipeline.options import pipeline_command
from aclog.tools.pipeline.shared import SharedOptions


@pipeline_command("diff")
def diff_command(
    options: SharedOptions,
    start: Annotated[str, typer.Option("--from", help="An offset or an ISO-8601 time.")],
    end: Annotated[str, typer.Option("--to", help="An offset or an ISO-8601 time.")],
) -> None:
    """'aclog diff' as a job: ACLs and credentials added, removed and changed, with who and
    when (a KRaft log records no authors: "author" is null, as in 'aclog diff')."""
    from aclog.tools.points import parse_range_end  # noqa: PLC0415 - the library on a run

    first, last = parse_range_end(start, "--from"), parse_range_end(end, "--to")
    with options.job() as (pipeline, job):
        result = pipeline.commands.changes(job, first, last)
    if options.json_output:
        print_json(result)
        return
    print_line(f"from offset {result['from']['last_offset']} to {result['to']['last_offset']}")
    for change in result["acls"] + result["credentials"]:
        what = change.get("resource_name", change.get("name"))
        print_line(f"  {change['change']:<7} {what} at offset {change['offset']}")
