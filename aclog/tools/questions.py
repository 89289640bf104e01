"""``aclog who-can``, ``aclog reach`` and ``aclog lint``: who may do something, what a principal
can reach, and whether the ACLs and SCRAM credentials are clean; over the committed state of a
data directory (or a KRaft metadata log) as of now, ``--at-offset`` or ``--at-time``. Reads
only: no lock, no write.

Each handler parses its options, calls one library function and renders the result; ``--json``
prints the result's ``to_dict()``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from aclog.authorizer import Authorizer, parse_super_users
from aclog.questions import reach, who_can
from aclog.records import ResourceType, call_paused
from aclog.tools.acl_options import (
    AclOptions,
    OptionError,
    parse_operations,
    read_inventory,
    resources,
)
from aclog.tools.common import is_kraft, load_state
from aclog.tools.console import (
    EXIT_USAGE,
    app,
    fail,
    print_json,
    print_line,
)
from aclog.tools.options import (
    ClusterFlag,
    DelegationTokenName,
    GroupName,
    OperationName,
    TopicName,
    TransactionalIdName,
    UserResourceName,
    check_caller_principal,
    check_host,
    check_resource_name,
)
from aclog.tools.params import (
    DATA_DIR_ENV,
    AllowEveryone,
    AtOffset,
    AtTime,
    Host,
    JsonFlag,
    SourceFormat,
    SuperUsers,
)
from aclog.tools.points import state_header
from aclog.tools.questions_text import show_reach, show_who_can

T = TypeVar("T")
ReadDataDir = Annotated[
    Path,
    typer.Option(
        "--data-dir",
        help="The aclog data directory (read only).",
        envvar=DATA_DIR_ENV,
        readable=False,
    ),
]


def _authorizer(
    data_dir: Path,
    at_offset: int | None,
    at_time: str | None,
    source_format: str,
    super_users: str | None,
    allow_everyone: bool,
    json_output: bool = True,
) -> Authorizer:
    """The committed ACLs as of the point, loaded into an authorizer with the configuration;
    for a person (not ``json_output``) an answer about a past point starts by naming it."""
    try:
        supers = parse_super_users(super_users)
    except ValueError as error:
        fail(str(error), EXIT_USAGE)
    kraft = is_kraft(data_dir, source_format)
    image = load_state(data_dir, at_offset, at_time, kraft=kraft).image
    if not json_output and (at_offset is not None or at_time is not None):
        when = image.provenance
        print_line(f"as of {state_header(when.last_offset, when.epoch, when.timestamp_ms)}")
    authorizer = Authorizer(supers, allow_everyone)
    call_paused(authorizer.load, image.acls)  # a process edge: see load_state
    return authorizer


def usage(action: Callable[[], T]) -> T:
    """``action()``, with an :class:`OptionError` or ``ValueError`` turned into exit 2."""
    try:
        return action()
    except (OptionError, ValueError) as error:
        fail(str(error), EXIT_USAGE)


def _checked_host(host: str | None) -> None:
    """Exit 2 on a ``--host`` that is not an IP address, as ``explain`` does (a name such as
    ``localhost`` is never a client address, so it would match only ``*`` ACLs)."""
    if host is not None:
        usage(lambda: check_host(host, "--host"))


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
    resource_type, name = one_resource(
        topic, group, cluster, transactional_id, user, delegation_token
    )
    (op,) = usage(lambda: parse_operations([operation]))
    _checked_host(host)
    authorizer = _authorizer(
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


def one_resource(
    topic: str | None,
    group: str | None,
    cluster: bool,
    transactional_id: str | None,
    user: str | None,
    delegation_token: str | None,
) -> tuple[ResourceType, str]:
    """The one resource the options name, as ``aclog acls`` reads them; exit 2 unless one."""
    options = AclOptions(
        topics=[topic] if topic is not None else [],
        groups=[group] if group is not None else [],
        cluster=cluster,
        transactional_ids=[transactional_id] if transactional_id is not None else [],
        users=[user] if user is not None else [],
        delegation_tokens=[delegation_token] if delegation_token is not None else [],
    )
    named = resources(options)
    if len(named) != 1:
        fail(
            "name exactly one resource: --topic, --group, --cluster, --transactional-id, "
            "--user or --delegation-token",
            EXIT_USAGE,
        )
    resource_type, name = named[0]
    option = f"--{resource_type.name.lower().replace('_', '-')}"
    return resource_type, usage(lambda: check_resource_name(name, option))


def resource_types(names: list[str] | None) -> list[ResourceType]:
    """``--resource-type`` names as resource types (``ValueError`` for one that names none)."""
    types: list[ResourceType] = []
    for name in names or []:
        parsed = ResourceType.parse(name)
        if parsed in (ResourceType.ANY, ResourceType.UNKNOWN):
            raise ValueError(f"--resource-type {name} names no resource type")
        types.append(parsed)
    return types


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
    types = usage(lambda: resource_types(resource_type))
    names = usage(lambda: read_inventory(inventory)) if inventory is not None else None
    usage(lambda: check_caller_principal(principal, "--principal"))
    _checked_host(host)
    authorizer = _authorizer(
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
