"""``aclog explain``: why a principal may or may not do an operation on a resource. The library
is imported when the command runs, not for its ``--help``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from aclog.records import ResourceType
from aclog.tools.console import EXIT_USAGE, app, fail, print_json, print_line
from aclog.tools.options import (
    ClusterFlag,
    GroupName,
    OperationName,
    OptionError,
    TopicName,
    TransactionalIdName,
    UserResourceName,
    check_caller_principal,
    check_host,
    check_resource_name,
    check_text,
    parse_operation,
)
from aclog.tools.params import (
    DATA_DIR_ENV,
    AllowEveryone,
    AtOffset,
    AtTime,
    JsonFlag,
    SourceFormat,
    SuperUsers,
)

if TYPE_CHECKING:
    from aclog.authorizer import Explanation


def explanation_to_dict(explanation: Explanation) -> dict[str, Any]:
    """The JSON form of an explanation (:meth:`aclog.authorizer.Explanation.to_dict`)."""
    return explanation.to_dict()


def _resource(
    topic: str | None,
    group: str | None,
    cluster: bool,
    transactional_id: str | None,
    user: str | None,
) -> tuple[ResourceType, str]:
    from aclog.controller import CLUSTER_NAME  # noqa: PLC0415 - see the module docstring

    named = [
        (ResourceType.TOPIC, topic),
        (ResourceType.GROUP, group),
        (ResourceType.CLUSTER, CLUSTER_NAME if cluster else None),
        (ResourceType.TRANSACTIONAL_ID, transactional_id),
        (ResourceType.USER, user),
    ]
    given = [(rt, name) for rt, name in named if name is not None]
    if len(given) != 1:
        raise OptionError(
            "name exactly one resource: --topic, --group, --cluster, --transactional-id or --user"
        )
    resource_type, name = given[0]
    check_resource_name(name, f"--{resource_type.name.lower().replace('_', '-')}")
    return resource_type, name


@app.command()
def explain(
    data_dir: Annotated[
        Path,
        typer.Option(
            "--data-dir", help="The aclog data directory.", envvar=DATA_DIR_ENV, readable=False
        ),
    ],
    principal: Annotated[str, typer.Option(help="The caller, Type:name, e.g. User:alice.")],
    host: Annotated[str, typer.Option(help="The caller's IP address (v4 or v6).")],
    operation: OperationName,
    topic: TopicName = None,
    group: GroupName = None,
    cluster: ClusterFlag = False,
    transactional_id: TransactionalIdName = None,
    user: UserResourceName = None,
    super_users: SuperUsers = None,
    allow_everyone_if_no_acl_found: AllowEveryone = False,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    source_format: SourceFormat = "auto",
    json_output: JsonFlag = False,
) -> None:
    """Decide one request against the committed ACLs and say why (exit 0 either way).

    The principal is a caller's (Type:name, either part possibly empty, as Kafka's session
    principals; :func:`~aclog.tools.options.check_caller_principal`) and the host is checked as
    `acls add` checks an ACL's, so a typo is refused instead of answered."""
    from aclog.authorizer import Authorizer, parse_super_users  # noqa: PLC0415 - see above
    from aclog.records import call_paused  # noqa: PLC0415
    from aclog.tools.common import is_kraft, load_state  # noqa: PLC0415
    from aclog.tools.points import state_header  # noqa: PLC0415

    try:
        resource_type, name = _resource(topic, group, cluster, transactional_id, user)
        check_caller_principal(principal, "--principal")
        check_host(host, "--host")
        op = parse_operation(operation)
        supers = parse_super_users(
            check_text(super_users, "--super-users") if super_users else None
        )
    except ValueError as error:  # OptionError, or super users that are not Type:name
        fail(str(error), EXIT_USAGE)
    image = load_state(data_dir, at_offset, at_time, kraft=is_kraft(data_dir, source_format)).image
    authorizer = Authorizer(supers, allow_everyone_if_no_acl_found)
    call_paused(authorizer.load, image.acls)  # a process edge: see load_state
    result = explanation_to_dict(authorizer.explain(principal, host, op, resource_type, name))
    if json_output:
        print_json(result)
        return
    if at_offset is not None or at_time is not None:  # an answer about the past says so first
        when = image.provenance
        print_line(f"as of {state_header(when.last_offset, when.epoch, when.timestamp_ms)}")
    print_line(f"{result['decision']}: {result['reason']}")
    for acl in result["matching_acls"]:
        print_line(
            f"  matches {acl['permission_type']} {acl['operation']} on "
            f"{acl['pattern_type']} '{acl['resource_name']}' for {acl['principal']} "
            f"from {acl['host']} (id {acl['id']})"
        )
