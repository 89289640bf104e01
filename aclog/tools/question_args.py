"""What a question names, read as the library asks it (the one resource, resource types, a
checked caller and host), the authorizer as of a point, and the timeline walked; a bad value
exits 2 naming it. Imported when a question runs, not for its ``--help``.

Thread-safe (no shared state). Cost: :func:`authorizer_at` replays the log to the point.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from aclog.authorizer import Authorizer, parse_super_users
from aclog.questions import Timeline, timeline
from aclog.records import AclOperation, ResourceType, call_paused
from aclog.replay import Point
from aclog.tools.acl_options import AclOptions, OptionError, resources
from aclog.tools.common import is_kraft, load_state, log_bar, replay_errors
from aclog.tools.console import EXIT_FAILURE, EXIT_USAGE, fail, fail_os, print_line, print_warning
from aclog.tools.options import (
    check_caller_principal,
    check_host,
    check_resource_name,
    parse_operation,
)
from aclog.tools.points import state_header

T = TypeVar("T")


def authorizer_at(
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
    image = load_state(data_dir, at_offset, at_time, kraft=is_kraft(data_dir, source_format)).image
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


def checked_host(host: str | None) -> None:
    """Exit 2 on a ``--host`` that is not an IP address, as ``explain`` does (a name such as
    ``localhost`` is never a client address, so it would match only ``*`` ACLs)."""
    if host is not None:
        usage(lambda: check_host(host, "--host"))


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


def caller_checks(
    principal: str, host: str | None, operation: str, super_users: str | None
) -> tuple[AclOperation, frozenset[str]]:
    """The operation and super users, with the principal and host checked as ``explain``
    checks them; exit 2 on a usage error."""
    try:
        check_caller_principal(principal, "--principal")
        if host is not None:
            check_host(host, "--host")
        return parse_operation(operation), frozenset(parse_super_users(super_users))
    except ValueError as error:  # OptionError, or super users that are not Type:name
        fail(str(error), EXIT_USAGE)


def walk_timeline(
    data_dir: Path,
    principal: str,
    operation: AclOperation,
    resource_type: ResourceType,
    name: str,
    host: str | None,
    start: Point,
    end: Point,
    super_users: frozenset[str],
    allow_everyone: bool,
    kraft: bool,
) -> Timeline:
    """:func:`aclog.questions.timeline` with a progress bar; exit 1 when the log cannot be
    replayed, 3 when it cannot be read."""
    try:
        with log_bar(data_dir, "replaying", end.offset) as on_offset:
            return timeline(
                data_dir, principal, operation, resource_type, name, host=host, start=start,
                end=end, super_users=super_users, allow_everyone_if_no_acl_found=allow_everyone,
                kraft=kraft, on_warning=print_warning, on_progress=on_offset,
            )  # fmt: skip
    except OSError as error:
        fail_os("read", error)
    except replay_errors() as error:
        fail(f"cannot replay {data_dir}: {error}", EXIT_FAILURE)
