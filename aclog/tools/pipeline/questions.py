"""``aclog pipeline who-can|reach|timeline``: the in-process questions as Spark jobs over whole
inventories (:mod:`aclog.pipeline.questions`); ``diff`` is in
:mod:`aclog.tools.pipeline.changes` and ``lint`` in :mod:`aclog.tools.pipeline.lint`.

Each ``--json`` holds exactly what the in-process command prints for the same question:
``who-can`` and ``reach`` one ``aclog who-can``/``aclog reach --json`` answer per resource and
operation (or principal), ``timeline`` one ``aclog timeline --json`` answer per question, ``diff``
and ``lint`` the ``aclog diff``/``aclog lint --json`` document. ``--out`` also writes the rows
(keys plus each answer's JSON) as Parquet. Registered on the ``aclog pipeline`` app.
"""

from __future__ import annotations

from pathlib import Path
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
    read_resources,
)
from aclog.tools.pipeline.options import pipeline_command
from aclog.tools.pipeline.output import show_answers
from aclog.tools.pipeline.shared import SharedOptions


@pipeline_command("who-can", "point", "out", "snapshots")
def who_can_command(
    options: SharedOptions,
    operation: OperationsOption,
    resources: ResourcesOption = None,
    topic: TopicsOption = None,
    group: GroupsOption = None,
    host: Host = None,
    super_users: SuperUsers = None,
    allow_everyone_if_no_acl_found: AllowEveryone = False,
) -> None:
    """'aclog who-can' for every resource and operation asked, as one job."""
    inventory, ops = named_resources(resources, topic, group), parse_operations(operation)
    settings = question_settings(super_users, allow_everyone_if_no_acl_found)
    with options.job() as (pipeline, job):
        answers = pipeline.commands.who_can(job, inventory, ops, host=host, settings=settings)
    if options.json_output:
        print_json({"answers": answers})
        return
    show_answers(answers, "answers", lambda a: (
        f"{a['operation']} on {a['resource_type']}:{a['resource_name']}: allowed "
        f"{', '.join(sorted({r['principal'] for r in a['allowed']})) or 'nobody'}"
    ))  # fmt: skip


@pipeline_command("reach", "point", "out", "snapshots")
def reach_command(
    options: SharedOptions,
    principals: PrincipalsOption = None,
    principal: PrincipalOption = None,
    host: Host = None,
    resource_type: Annotated[
        list[str] | None, typer.Option("--resource-type", help="topic, group, ... (repeatable).")
    ] = None,
    inventory: Annotated[
        Path | None,
        typer.Option(help="TYPE:name lines: answer per name, not per pattern.", readable=False),
    ] = None,
    super_users: SuperUsers = None,
    allow_everyone_if_no_acl_found: AllowEveryone = False,
) -> None:
    """'aclog reach' for every principal asked, as one job."""
    people = named_principals(principals, principal)
    from aclog.tools.question_args import resource_types, usage  # noqa: PLC0415 - on a run

    types = usage(lambda: resource_types(resource_type))
    names = read_resources(inventory) if inventory is not None else None
    settings = question_settings(super_users, allow_everyone_if_no_acl_found)
    with options.job() as (pipeline, job):
        answers = pipeline.commands.reach(
            job, people, host=host, resource_types=types, inventory=names, settings=settings
        )
    if options.json_output:
        print_json({"answers": answers})
        return
    show_answers(
        answers, "principals", lambda a: f"{a['principal']}: {len(a['resources'])} resources"
    )


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
