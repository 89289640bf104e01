"""``aclog pipeline timeline``: ``aclog timeline`` for every principal x resource x operation
asked, as one job (:func:`aclog.pipeline.questions.timeline_job`); ``--json`` holds one ``aclog
timeline --json`` answer per question, ``--out`` also writes the rows (keys plus each answer's
JSON) as Parquet. Registered on the ``aclog pipeline`` app.
"""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.tools.console import print_json
from aclog.tools.params import AllowEveryone, Host, SuperUsers
from aclog.tools.pipeline.asking import (
    GroupsOption,
    OperationsOption,
    PrincipalOption,
    PrincipalsOption,
    ResourcesOption,
    TopicsOption,
    named_principals,
    named_resources,
    parse_operations,
    question_settings,
)
from aclog.tools.pipeline.options import pipeline_command
from aclog.tools.pipeline.output import show_answers
from aclog.tools.pipeline.shared import SharedOptions


@pipeline_command("timeline", "out")
def timeline_command(
    options: SharedOptions,
    operation: OperationsOption,
    principals: PrincipalsOption = None,
    principal: PrincipalOption = None,
    resources: ResourcesOption = None,
    topic: TopicsOption = None,
    group: GroupsOption = None,
    host: Host = None,
    super_users: SuperUsers = None,
    allow_everyone_if_no_acl_found: AllowEveryone = False,
    start: Annotated[str | None, typer.Option("--from", help="An offset or a time.")] = None,
    end: Annotated[str | None, typer.Option("--to", help="An offset or a time.")] = None,
    partitions: Annotated[int | None, typer.Option("--partitions", min=1)] = None,
) -> None:
    """'aclog timeline' for every principal x resource x operation asked, as one job."""
    people = named_principals(principals, principal)
    names = named_resources(resources, topic, group)
    ops = parse_operations(operation)
    settings = question_settings(super_users, allow_everyone_if_no_acl_found)
    from aclog.replay import Point  # noqa: PLC0415 - the library when the job runs
    from aclog.tools.points import parse_range_end  # noqa: PLC0415

    first = Point(offset=-1) if start is None else parse_range_end(start, "--from")
    last = Point() if end is None else parse_range_end(end, "--to")
    with options.job() as (pipeline, job):
        answers = pipeline.commands.timelines(
            job, (people, names, ops), host=host, span=(first, last), settings=settings,
            partitions=partitions,
        )  # fmt: skip
    if options.json_output:
        print_json({"timelines": answers})
        return
    show_answers(answers, "timelines", lambda a: (
        f"{a['principal']} {a['operation']} on {a['resource_type']}:{a['resource_name']}: "
        f"{len(a['flips'])} flips, now {'/'.join(x['decision'] for x in a['final'])}"
    ))  # fmt: skip
