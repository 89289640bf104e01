"""``aclog pipeline who-can|reach``: the in-process questions as Spark jobs over whole
inventories (:mod:`aclog.pipeline.questions`); ``timeline`` is in
:mod:`aclog.tools.pipeline.timeline`, ``diff`` in :mod:`aclog.tools.pipeline.changes` and
``lint`` in :mod:`aclog.tools.pipeline.lint`.

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
from aclog.tools.params import (
    AllowEveryone,
    AtOffset,
    AtTime,
    Host,
    JsonFlag,
    SourceFormat,
    SuperUsers,
)
from aclog.tools.pipeline.app import pipeline_app
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
from aclog.tools.pipeline.inputs import job_source
from aclog.tools.pipeline.options import (
    ConfOption,
    DataDirOption,
    DriverHostOption,
    MasterOption,
    OutOption,
    SnapshotsFlag,
)
from aclog.tools.pipeline.output import show_answers
from aclog.tools.pipeline.spark import pipeline_modules, spark_for


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
    inventory, ops = named_resources(resources, topic, group), parse_operations(operation)
    settings = question_settings(super_users, allow_everyone_if_no_acl_found)
    source = job_source(data_dir, None, source_format, (at_offset, at_time), snapshots)
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        answers = pipeline_modules().commands.who_can(
            spark, source, inventory, ops, host=host, settings=settings, out=out_path
        )
    if json_output:
        print_json({"answers": answers})
        return
    show_answers(answers, "answers", lambda a: (
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
    people = named_principals(principals, principal)
    from aclog.tools.question_args import resource_types, usage  # noqa: PLC0415 - on a run

    types = usage(lambda: resource_types(resource_type))
    names = read_resources(inventory) if inventory is not None else None
    settings = question_settings(super_users, allow_everyone_if_no_acl_found)
    source = job_source(data_dir, None, source_format, (at_offset, at_time), snapshots)
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        answers = pipeline_modules().commands.reach(
            spark, source, people, host=host, resource_types=types, inventory=names,
            settings=settings, out=out_path,
        )  # fmt: skip
    if json_output:
        print_json({"answers": answers})
        return
    show_answers(
        answers, "principals", lambda a: f"{a['principal']}: {len(a['resources'])} resources"
    )
