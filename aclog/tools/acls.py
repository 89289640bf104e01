"""``aclog acls add|remove|list``: kafka-acls-style ACL management on a data directory, or on
any Kafka cluster with ``--bootstrap-server`` (see :mod:`aclog.tools.remote`)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import typer

from aclog.acl import ApiError
from aclog.acl.filters import AclFilter
from aclog.authorizer.impact import impact_of_adding
from aclog.controller.controller import Controller
from aclog.controller.result import AclCreateResult, AclDeleteResult
from aclog.records import AccessControlEntryRecord, AclBinding, ResourceType, record_to_dict
from aclog.records.render import json_value
from aclog.tools.acl_options import (
    AclOptions,
    OptionError,
    bindings_for_add,
    filters_for_list,
    filters_for_remove,
    read_inventory,
)
from aclog.tools.common import (
    AtOffset,
    AtTime,
    JsonFlag,
    OptionalDataDir,
    load_state,
    local_caller,
    report_failures,
)
from aclog.tools.console import EXIT_USAGE, app, fail, print_json, print_line
from aclog.tools.remote import (
    BootstrapServer,
    CommandConfig,
    RemoteTarget,
    Target,
    choose_target,
    data_dir_only,
    open_admin,
)
from aclog.tools.remote_admin import REMOTE_ACL_ID, RemoteAdmin

acls_app = typer.Typer(
    help="Add, remove and list ACLs (options as in kafka-acls), in a data directory "
    "(--data-dir) or on a Kafka cluster (--bootstrap-server; Kafka has no ACL ids, so JSON "
    'shows "id": null).',
    no_args_is_help=True,
)
app.add_typer(acls_app, name="acls")

_Many = list[str] | None
AllowPrincipal = Annotated[_Many, typer.Option("--allow-principal", help="Type:name to allow.")]
DenyPrincipal = Annotated[_Many, typer.Option("--deny-principal", help="Type:name to deny.")]
AllowHost = Annotated[_Many, typer.Option("--allow-host", help="Host to allow (default *).")]
DenyHost = Annotated[_Many, typer.Option("--deny-host", help="Host to deny (default *).")]
Operation = Annotated[_Many, typer.Option("--operation", help="Read, Write, DescribeConfigs…")]
Topic = Annotated[_Many, typer.Option("--topic", help="Topic name or pattern.")]
Group = Annotated[_Many, typer.Option("--group", help="Consumer group name or pattern.")]
Cluster = Annotated[bool, typer.Option("--cluster", help="The cluster resource.")]
TxnId = Annotated[_Many, typer.Option("--transactional-id", help="Transactional id.")]
User = Annotated[_Many, typer.Option("--user", help="User resource (delegation tokens).")]
Token = Annotated[_Many, typer.Option("--delegation-token", help="Delegation token id.")]
PatternOpt = Annotated[
    str | None,
    typer.Option(
        "--resource-pattern-type",
        help="literal, prefixed or glob (list/remove also take any and match).",
    ),
]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Show what would change; write nothing.")]


def _options(**values: Any) -> AclOptions:
    return AclOptions(**{k: (v if v is not None else []) for k, v in values.items()})


@acls_app.command("add")
def add(
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    allow_principal: AllowPrincipal = None,
    deny_principal: DenyPrincipal = None,
    allow_host: AllowHost = None,
    deny_host: DenyHost = None,
    operation: Operation = None,
    topic: Topic = None,
    group: Group = None,
    cluster: Cluster = False,
    transactional_id: TxnId = None,
    user: User = None,
    delegation_token: Token = None,
    resource_pattern_type: PatternOpt = None,
    producer: Annotated[bool, typer.Option("--producer", help="Producer role ACLs.")] = False,
    consumer: Annotated[bool, typer.Option("--consumer", help="Consumer role ACLs.")] = False,
    idempotent: Annotated[bool, typer.Option("--idempotent", help="With --producer.")] = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Show what would change; write nothing (--data-dir only)."),
    ] = False,
    inventory: Annotated[
        Path | None,
        typer.Option(
            "--inventory",
            help="With --dry-run: a file of TYPE:name resources; show "
            "which the new ACLs apply to and whose decisions change.",
        ),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Add ACLs. Adding an ACL that already exists succeeds and writes nothing.

    With --bootstrap-server the JSON "id" is null: Kafka does not expose ACL ids.
    """
    options = _options(
        allow_principals=allow_principal,
        deny_principals=deny_principal,
        allow_hosts=allow_host,
        deny_hosts=deny_host,
        operations=operation,
        topics=topic,
        groups=group,
        transactional_ids=transactional_id,
        users=user,
        delegation_tokens=delegation_token,
    )
    options.cluster, options.pattern_type = cluster, resource_pattern_type
    options.producer, options.consumer, options.idempotent = producer, consumer, idempotent
    bindings = _parse(lambda: bindings_for_add(options))
    target = _add_target(data_dir, bootstrap_server, command_config, dry_run, inventory)
    resources = _parse(lambda: read_inventory(inventory)) if inventory else None
    with open_admin(target) as admin:
        current = admin.image.acls if isinstance(admin, Controller) else None
        before = _existing(admin, bindings) if not json_output or resources else set()
        results = admin.create_acls(bindings, local_caller("aclog acls add"), dry_run=dry_run)
    impacts = None
    if resources is not None and current is not None:
        impacts = _impacts(current, bindings, results, before, resources)
    rows = [_create_row(b, r) for b, r in zip(bindings, results, strict=True)]
    if json_output:
        print_json({"results": rows} if impacts is None else {"results": rows, "impact": impacts})
    else:
        for binding, result in zip(bindings, results, strict=True):
            _print_created(binding, result, before, dry_run)
        _print_impacts(impacts)
    pairs = zip(bindings, results, strict=True)
    report_failures([(_describe(b), r.error) for b, r in pairs if not r.error.is_success])


def _add_target(
    data_dir: Path | None,
    bootstrap_server: str | None,
    command_config: Path | None,
    dry_run: bool,
    inventory: Path | None,
) -> Target:
    """Where ``acls add`` writes, after checking the flags that only a data directory takes."""
    if inventory is not None and not dry_run:
        fail("--inventory shows the effect of a change; use it with --dry-run", EXIT_USAGE)
    target = choose_target(data_dir, bootstrap_server, command_config)
    if dry_run:
        data_dir_only(target, "--dry-run", "Kafka's CreateAcls cannot preview a change")
    if inventory is not None:
        data_dir_only(target, "--inventory", "it needs the whole ACL state to compare against")
    return target


def _impacts(
    current: Iterable[AccessControlEntryRecord],
    bindings: list[AclBinding],
    results: list[AclCreateResult],
    before: set[AclBinding],
    resources: list[tuple[ResourceType, str]],
) -> list[dict[str, Any]]:
    """The inventory resources whose decisions the ACLs that ``results`` would add change."""
    new = [
        b.with_id(r.acl_id)
        for b, r in zip(bindings, results, strict=True)
        if r.acl_id is not None and b not in before
    ]
    return [i.to_dict() for i in impact_of_adding(current, new, resources)]


@acls_app.command("remove")
def remove(
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    allow_principal: AllowPrincipal = None,
    deny_principal: DenyPrincipal = None,
    allow_host: AllowHost = None,
    deny_host: DenyHost = None,
    operation: Operation = None,
    topic: Topic = None,
    group: Group = None,
    cluster: Cluster = False,
    transactional_id: TxnId = None,
    user: User = None,
    delegation_token: Token = None,
    resource_pattern_type: PatternOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Do not ask for confirmation.")] = False,
    dry_run: DryRun = False,
    json_output: JsonFlag = False,
) -> None:
    """Remove the ACLs that match; without principals, every ACL on the named resources.

    With --bootstrap-server, --dry-run and the confirmation list the ACLs DescribeAcls finds
    with the same filters, and the JSON "id" is null: Kafka does not expose ACL ids.
    """
    options = _options(
        allow_principals=allow_principal,
        deny_principals=deny_principal,
        allow_hosts=allow_host,
        deny_hosts=deny_host,
        operations=operation,
        topics=topic,
        groups=group,
        transactional_ids=transactional_id,
        users=user,
        delegation_tokens=delegation_token,
    )
    options.cluster, options.pattern_type = cluster, resource_pattern_type
    filters = _parse(lambda: filters_for_remove(options))
    target = choose_target(data_dir, bootstrap_server, command_config)
    caller = local_caller("aclog acls remove")
    with open_admin(target) as admin:
        if not force and not dry_run:
            planned = admin.delete_acls(filters, caller, dry_run=True)
            _confirm(planned)
        results = admin.delete_acls(filters, caller, dry_run=dry_run)
    if json_output:
        print_json({"results": [_delete_row(f, r) for f, r in zip(filters, results, strict=True)]})
    else:
        verb = "would remove" if dry_run else "removed"
        for result in results:
            for acl in result.acls:
                print_line(f"{verb} {_describe(acl)}")
    report_failures(
        [
            (_describe_filter(f), r.error)
            for f, r in zip(filters, results, strict=True)
            if not r.error.is_success
        ]
    )


def _print_impacts(impacts: list[dict[str, Any]] | None) -> None:
    if impacts is None:
        return
    print_line(f"the new ACLs apply to {len(impacts)} inventory resources")
    for impact in impacts:
        print_line(f"  {impact['resource_type']}:{impact['resource_name']}")
        for c in impact["changes"]:
            print_line(
                f"    {c['principal']} from {c['host']} {c['operation']}: "
                f"{c['before']} -> {c['after']}"
            )


def _confirm(planned: list[AclDeleteResult]) -> None:
    acls = {acl.binding: acl for result in planned for acl in result.acls}
    if not acls:
        return
    if not sys.stdin.isatty():
        fail(
            f"this would remove {len(acls)} ACLs; pass --force to confirm "
            "(or --dry-run to list them)",
            EXIT_USAGE,
        )
    for acl in acls.values():
        print_line(f"  {_describe(acl)}")
    if not typer.confirm(f"Remove these {len(acls)} ACLs?"):
        raise typer.Exit(1)


@acls_app.command("list")
def list_acls(
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    topic: Topic = None,
    group: Group = None,
    cluster: Cluster = False,
    transactional_id: TxnId = None,
    user: User = None,
    delegation_token: Token = None,
    resource_pattern_type: PatternOpt = None,
    principal: Annotated[_Many, typer.Option("--principal", help="Only this principal.")] = None,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    json_output: JsonFlag = False,
) -> None:
    """List ACLs; with --resource-pattern-type match, every ACL that applies to the resource.

    A data directory lists in commit order; a cluster (--bootstrap-server) in its DescribeAcls
    order, with "id": null in JSON (Kafka does not expose ACL ids).
    """
    options = _options(
        topics=topic,
        groups=group,
        transactional_ids=transactional_id,
        users=user,
        delegation_tokens=delegation_token,
        principals=principal,
    )
    options.cluster, options.pattern_type = cluster, resource_pattern_type
    filters = _parse(lambda: filters_for_list(options))
    target = choose_target(data_dir, bootstrap_server, command_config)
    failures: list[tuple[str, ApiError]] = []
    found: dict[Any, AccessControlEntryRecord]
    if isinstance(target, RemoteTarget):
        if at_offset is not None or at_time is not None:
            data_dir_only(target, "--at-offset/--at-time", "Kafka keeps no ACL history")
        found = {}
        with open_admin(target) as admin:
            for acl_filter in filters:
                error, acls = admin.describe_acls(acl_filter)
                if not error.is_success:
                    failures.append((_describe_filter(acl_filter), error))
                for acl in acls:
                    found.setdefault(acl.binding, acl)
    else:
        image = load_state(target, at_offset, at_time).image
        found = {acl.id: acl for acl in image.acls if any(f.matches(acl) for f in filters)}
    if json_output:
        print_json({"acls": [_acl_dict(acl) for acl in found.values()]})
    else:
        for acl in found.values():
            print_line(_describe(acl))
        print_line(f"{len(found)} ACLs")
    report_failures(failures)


def _parse(build: Any) -> Any:
    try:
        return build()
    except OptionError as error:
        fail(str(error), EXIT_USAGE)


def _error_fields(error: ApiError) -> dict[str, Any]:
    return {"error_code": error.code, "error_message": error.message}


def _create_row(binding: AclBinding, result: AclCreateResult) -> dict[str, Any]:
    row: dict[str, Any] = {"id": json_value(result.acl_id) if result.acl_id else None}
    row.update(record_to_dict(binding))
    row.update(_error_fields(result.error))
    return row


def _acl_dict(acl: AccessControlEntryRecord) -> dict[str, Any]:
    row = record_to_dict(acl)
    if acl.id == REMOTE_ACL_ID:
        row["id"] = None  # read from a cluster: Kafka does not expose ACL ids
    return row


def _existing(admin: Controller | RemoteAdmin, bindings: list[AclBinding]) -> set[AclBinding]:
    """Which of ``bindings`` exist already (for "exists" versus "added")."""
    if isinstance(admin, Controller):
        return {acl.binding for acl in admin.image.acls}
    patterns = dict.fromkeys((b.resource_type, b.resource_name, b.pattern_type) for b in bindings)
    found: set[AclBinding] = set()
    for resource_type, name, pattern_type in patterns:
        error, acls = admin.describe_acls(AclFilter(resource_type, name, pattern_type))
        if error.is_success:  # without DESCRIBE on the cluster every ACL shows as added
            found.update(acl.binding for acl in acls)
    return found & set(bindings)


def _delete_row(acl_filter: AclFilter, result: AclDeleteResult) -> dict[str, Any]:
    row = record_to_dict(acl_filter)
    row["acls"] = [_acl_dict(acl) for acl in result.acls]
    row.update(_error_fields(result.error))
    return row


def _print_created(
    binding: AclBinding, result: AclCreateResult, before: set[AclBinding], dry_run: bool
) -> None:
    if not result.error.is_success:
        return
    fresh = "would add" if dry_run else "added"
    state = "exists" if binding in before else fresh
    print_line(f"{state:<9} {_describe(binding)}")


def _describe(acl: Any) -> str:
    return (
        f"{acl.permission_type.name} {acl.principal} {acl.operation.name} from {acl.host} on "
        f"{acl.resource_type.name}:{acl.pattern_type.name}:{acl.resource_name}"
    )


def _describe_filter(acl_filter: AclFilter) -> str:
    name = "*any*" if acl_filter.resource_name is None else acl_filter.resource_name
    return f"filter {acl_filter.resource_type.name}:{acl_filter.pattern_type.name}:{name}"
