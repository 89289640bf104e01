"""``aclog pipeline who-can|reach|timeline``: the in-process questions as Spark jobs over whole
inventories (:mod:`aclog.pipeline.questions`); ``diff`` and ``lint`` are in
:mod:`aclog.tools.pipeline.changes`.

Each ``--json`` holds exactly what the in-process command prints for the same question:
``who-can`` and ``reach`` one ``aclog who-can``/``aclog reach --json`` answer per resource and
operation (or principal), ``timeline`` one ``aclog timeline --json`` answer per question, ``diff``
and ``lint`` the ``aclog diff``/``aclog lint --json`` document. ``--out`` also writes the rows
(keys plus each answer's JSON) as Parquet. Registered on the ``aclog pipeline`` app.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from aclog.authorizer import parse_super_users
from aclog.records import ResourceType
from aclog.replay import Point
from aclog.tools.common import AtOffset, AtTime, JsonFlag, SourceFormat
from aclog.tools.console import EXIT_USAGE, fail, print_json, print_line
from aclog.tools.pipeline.access import parse_operations, read_principals, read_resources
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.inputs import job_source
from aclog.tools.pipeline.options import (
    ConfOption,
    DataDirOption,
    DriverHostOption,
    MasterOption,
    OutOption,
    SnapshotsFlag,
)
from aclog.tools.pipeline.spark import pipeline_modules, spark_for
from aclog.tools.points import parse_range_end
from aclog.tools.questions import AllowEveryone, Host, SuperUsers

ResourcesOption = Annotated[
    Path | None,
    typer.Option("--resources", help="TYPE:name lines, e.g. TOPIC:orders.", readable=False),
]
TopicsOption = Annotated[list[str] | None, typer.Option("--topic", help="A topic (repeatable).")]
GroupsOption = Annotated[list[str] | None, typer.Option("--group", help="A group (repeatable).")]
PrincipalsOption = Annotated[
    Path | None, typer.Option("--principals", help="One User:name per line.", readable=False)
]
PrincipalOption = Annotated[
    list[str] | None, typer.Option("--principal", help="A principal (repeatable).")
]
OperationsOption = Annotated[
    list[str], typer.Option("--operation", help="Read, Write, ... (repeatable).")
]


def _inventory(
    path: Path | None, topics: list[str] | None, groups: list[str] | None
) -> list[tuple[ResourceType, str]]:
    named = [(ResourceType.TOPIC, t) for t in topics or []]
    named += [(ResourceType.GROUP, g) for g in groups or []]
    found = (read_resources(path) if path is not None else []) + named
    if not found:
        fail("name the resources: --resources FILE, --topic or --group", EXIT_USAGE)
    return list(dict.fromkeys(found))


def _people(path: Path | None, principals: list[str] | None) -> list[str]:
    found = (read_principals(path) if path is not None else []) + list(principals or [])
    if not found:
        fail("name the principals: --principals FILE or --principal", EXIT_USAGE)
    return list(dict.fromkeys(found))


def _settings(super_users: str | None, allow_everyone: bool) -> Any:
    try:
        supers = frozenset(parse_super_users(super_users))
    except ValueError as error:
        fail(str(error), EXIT_USAGE)
    settings: Any = pipeline_modules().questions.Settings(supers, allow_everyone)
    return settings


def _summary(answers: list[dict[str, Any]], what: str, line: Any) -> None:
    print_line(f"{len(answers)} {what}")
    for answer in answers:
        print_line(f"  {line(answer)}")


@pipeline_app.command("who-can")
def who_can_command(
    operation: OperationsOption,
    data_dir: DataDirOption = None,
    resources: ResourcesOption = None,
    topic: TopicsOption = None,
    group: GroupsOption = None,
    host: Host = None,
    super_users: SuperUsers = None,
    allow_everyone_if_no_acl_found: AllowEveryone = False,
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
    """'aclog who-can' for every resource and operation asked, as one job."""
    inventory, ops = _inventory(resources, topic, group), parse_operations(operation)
    settings = _settings(super_users, allow_everyone_if_no_acl_found)
    source = job_source(data_dir, None, source_format, (at_offset, at_time), snapshots)
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        answers = pipeline_modules().commands.who_can(
            spark, source, inventory, ops, host=host, settings=settings, out=out_path
        )
    if json_output:
        print_json({"answers": answers})
        return
    _summary(answers, "answers", lambda a: (
        f"{a['operation']} on {a['resource_type']}:{a['resource_name']}: allowed "
        f"{', '.join(sorted({r['principal'] for r in a['allowed']})) or 'nobody'}"
    ))  # fmt: skip


@pipeline_app.command("reach")
def reach_command(
    data_dir: DataDirOption = None,
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
    """'aclog reach' for every principal asked, as one job."""
    people = _people(principals, principal)
    types = [_resource_type(name) for name in resource_type or []]
    names = read_resources(inventory) if inventory is not None else None
    settings = _settings(super_users, allow_everyone_if_no_acl_found)
    source = job_source(data_dir, None, source_format, (at_offset, at_time), snapshots)
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        answers = pipeline_modules().commands.reach(
            spark, source, people, host=host, resource_types=types, inventory=names,
            settings=settings, out=out_path,
        )  # fmt: skip
    if json_output:
        print_json({"answers": answers})
        return
    _summary(answers, "principals", lambda a: f"{a['principal']}: {len(a['resources'])} resources")


def _resource_type(name: str) -> ResourceType:
    try:
        found = ResourceType.parse(name)
    except ValueError as error:
        fail(str(error), EXIT_USAGE)
    if found in (ResourceType.ANY, ResourceType.UNKNOWN):
        fail(f"--resource-type {name} names no resource type", EXIT_USAGE)
    return found


@pipeline_app.command("timeline")
def timeline_command(
    operation: OperationsOption,
    data_dir: DataDirOption = None,
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
    out_path: OutOption = None,
    source_format: SourceFormat = "auto",
    master: MasterOption = None,
    conf: ConfOption = None,
    driver_host: DriverHostOption = None,
    json_output: JsonFlag = False,
) -> None:
    """'aclog timeline' for every principal x resource x operation asked, as one job."""
    people, names = _people(principals, principal), _inventory(resources, topic, group)
    ops = parse_operations(operation)
    settings = _settings(super_users, allow_everyone_if_no_acl_found)
    first = Point(offset=-1) if start is None else parse_range_end(start, "--from")
    last = Point() if end is None else parse_range_end(end, "--to")
    source = job_source(data_dir, None, source_format)
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        answers = pipeline_modules().commands.timelines(
            spark, source, (people, names, ops), host=host, span=(first, last),
            settings=settings, partitions=partitions, out=out_path,
        )  # fmt: skip
    if json_output:
        print_json({"timelines": answers})
        return
    _summary(answers, "timelines", lambda a: (
        f"{a['principal']} {a['operation']} on {a['resource_type']}:{a['resource_name']}: "
        f"{len(a['flips'])} flips, now {'/'.join(x['decision'] for x in a['final'])}"
    ))  # fmt: skip
