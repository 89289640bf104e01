"""``aclog who-can``, ``aclog reach`` and ``aclog lint``: who may do something, what a principal
can reach, and whether the ACLs and SCRAM credentials are clean; over the committed state of a
data directory (or a KRaft metadata log) as of now, ``--at-offset`` or ``--at-time``. Reads
only: no lock, no write.

Each handler parses its options, calls one library function and renders the result; ``--json``
prints the result's ``to_dict()``. What they need to run (:mod:`aclog.tools.question_args`, the
library) is imported when they run, not for their ``--help``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.console import app, print_json
from aclog.tools.options import (
    ClusterFlag,
    DelegationTokenName,
    GroupName,
    OperationName,
    TopicName,
    TransactionalIdName,
    UserResourceName,
)
from aclog.tools.params import (
    AllowEveryone,
    AtOffset,
    AtTime,
    Host,
    JsonFlag,
    ReadDataDir,
    SourceFormat,
    SuperUsers,
)


@app.command("who-can")
def who_can_command(
    data_dir: ReadDataDir,
    operation: OperationName,
    topic: TopicName = None,
    group: GroupName = None,
    cluster: ClusterFlag = False,
    transactional_id: TransactionalIdName = None,
    user: UserResourceName = None,
    delegation_token: DelegationTokenName = None,
    host: Host = None,
    super_users: SuperUsers = None,
    allow_everyone_if_no_acl_found: AllowEveryone = False,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    source_format: SourceFormat = "auto",
    json_output: JsonFlag = False,
) -> None:
    """Every principal allowed an operation on a resource (and those a DENY takes out), by
    host, with the deciding ACL; "any principal" is User:*."""
    from aclog.questions import who_can  # noqa: PLC0415 - see the module docstring
    from aclog.tools.acl_options import parse_operations  # noqa: PLC0415
    from aclog.tools.question_args import authorizer_at, checked_host, one_resource, usage  # noqa: PLC0415
    from aclog.tools.questions_text import show_who_can  # noqa: PLC0415

    resource_type, name = one_resource(
        topic, group, cluster, transactional_id, user, delegation_token
    )
    (op,) = usage(lambda: parse_operations([operation]))
    checked_host(host)
    authorizer = authorizer_at(
        data_dir,
        at_offset,
        at_time,
        source_format,
        super_users,
        allow_everyone_if_no_acl_found,
        json_output,
    )
    result = who_can(authorizer, op, resource_type, name, host)
    if json_output:
        print_json(result.to_dict())
    else:
        show_who_can(result)


@app.command("reach")
def reach_command(
    data_dir: ReadDataDir,
    principal: Annotated[str, typer.Option(help="The principal, e.g. User:alice.")],
    host: Host = None,
    resource_type: Annotated[
        list[str] | None,
        typer.Option("--resource-type", help="topic, group, cluster, ... (repeatable)."),
    ] = None,
    inventory: Annotated[
        Path | None,
        typer.Option(
            help="TYPE:name lines: answer per resource name instead of per pattern.", readable=False
        ),
    ] = None,
    super_users: SuperUsers = None,
    allow_everyone_if_no_acl_found: AllowEveryone = False,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    source_format: SourceFormat = "auto",
    json_output: JsonFlag = False,
) -> None:
    """What a principal can reach: every resource pattern (or inventory resource) its ACLs
    grant it something on, with the operations, the deciding ACLs and the DENY exceptions."""
    from aclog.questions import reach  # noqa: PLC0415 - see the module docstring
    from aclog.tools.acl_options import read_inventory  # noqa: PLC0415
    from aclog.tools.options import check_caller_principal  # noqa: PLC0415
    from aclog.tools.question_args import authorizer_at, checked_host, resource_types, usage  # noqa: PLC0415
    from aclog.tools.questions_text import show_reach  # noqa: PLC0415

    types = usage(lambda: resource_types(resource_type))
    names = usage(lambda: read_inventory(inventory)) if inventory is not None else None
    usage(lambda: check_caller_principal(principal, "--principal"))
    checked_host(host)
    authorizer = authorizer_at(
        data_dir,
        at_offset,
        at_time,
        source_format,
        super_users,
        allow_everyone_if_no_acl_found,
        json_output,
    )
    result = reach(authorizer, principal, host, types, names)
    if json_output:
        print_json(result.to_dict())
    else:
        show_reach(result)
