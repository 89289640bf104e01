"""``aclog pipeline state``: the ACLs and SCRAM users as of a point, as ``aclog replay``."""

from __future__ import annotations

from typing import Any

from aclog.tools.console import print_json, print_line
from aclog.tools.pipeline.options import pipeline_command
from aclog.tools.pipeline.shared import SharedOptions


@pipeline_command("state", "records", "point", "out", "snapshots")
def state_command(options: SharedOptions) -> None:
    """ACLs and SCRAM users (no secrets) as of a point; the same answer as 'aclog replay'."""
    with options.job() as (pipeline, job):
        answer = pipeline.commands.state_of(job, options.collect)
    _render(answer.written, answer.document, options.json_output)


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
