"""``aclog acls add|remove|list``: kafka-acls-style ACL management on a data directory."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from aclog.authorizer.filters import AclFilter
from aclog.authorizer.impact import impact_of_adding
from aclog.controller.result import AclCreateResult, AclDeleteResult
from aclog.image import ApiError
from aclog.records import AclBinding, record_to_dict
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
    DataDir,
    JsonFlag,
    load_state,
    local_caller,
    open_controller,
    report_failures,
)
from aclog.tools.console import EXIT_USAGE, app, fail, out, print_json

acls_app = typer.Typer(
    help="Add, remove and list ACLs (options as in kafka-acls).", no_args_is_help=True
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
    data_dir: DataDir,
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
    dry_run: DryRun = False,
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
    """Add ACLs. Adding an ACL that already exists succeeds and writes nothing."""
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
    if inventory is not None and not dry_run:
        fail("--inventory shows the effect of a change; use it with --dry-run", EXIT_USAGE)
    resources = _parse(lambda: read_inventory(inventory)) if inventory else None
    with open_controller(data_dir) as controller:
        current = controller.image.acls
        results = controller.create_acls(bindings, local_caller("aclog acls add"), dry_run=dry_run)
    before = set(current.acls)
    rows = [_create_row(b, r) for b, r in zip(bindings, results, strict=True)]
    impacts = None
    if resources is not None:
        new = [
            b.with_id(r.acl_id)
            for b, r in zip(bindings, results, strict=True)
            if r.acl_id is not None and r.acl_id not in before
        ]
        impacts = [i.to_dict() for i in impact_of_adding(current, new, resources)]
    if json_output:
        print_json({"results": rows} if impacts is None else {"results": rows, "impact": impacts})
    else:
        for binding, result in zip(bindings, results, strict=True):
            _print_created(binding, result, before, dry_run)
        _print_impacts(impacts)
    report_failures(
        [
            (_describe(b), r.error)
            for b, r in zip(bindings, results, strict=True)
            if not r.error.is_success
        ]
    )


@acls_app.command("remove")
def remove(
    data_dir: DataDir,
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
    """Remove the ACLs that match; without principals, every ACL on the named resources."""
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
    caller = local_caller("aclog acls remove")
    with open_controller(data_dir) as controller:
        if not force and not dry_run:
            planned = controller.delete_acls(filters, caller, dry_run=True)
            _confirm(planned)
        results = controller.delete_acls(filters, caller, dry_run=dry_run)
    if json_output:
        print_json({"results": [_delete_row(f, r) for f, r in zip(filters, results, strict=True)]})
    else:
        verb = "would remove" if dry_run else "removed"
        for result in results:
            for acl in result.acls:
                out.print(f"{verb} {_describe(acl)}", markup=False)
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
    out.print(f"the new ACLs apply to {len(impacts)} inventory resources", markup=False)
    for impact in impacts:
        out.print(f"  {impact['resource_type']}:{impact['resource_name']}", markup=False)
        for c in impact["changes"]:
            out.print(
                f"    {c['principal']} from {c['host']} {c['operation']}: "
                f"{c['before']} -> {c['after']}",
                markup=False,
            )


def _confirm(planned: list[AclDeleteResult]) -> None:
    acls = {acl.id: acl for result in planned for acl in result.acls}
    if not acls:
        return
    if not sys.stdin.isatty():
        fail(
            f"this would remove {len(acls)} ACLs; pass --force to confirm "
            "(or --dry-run to list them)",
            EXIT_USAGE,
        )
    for acl in acls.values():
        out.print(f"  {_describe(acl)}", markup=False)
    if not typer.confirm(f"Remove these {len(acls)} ACLs?"):
        raise typer.Exit(1)


@acls_app.command("list")
def list_acls(
    data_dir: DataDir,
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
    """List ACLs; with --resource-pattern-type match, every ACL that applies to the resource."""
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
    image = load_state(data_dir, at_offset, at_time).image
    found = {acl.id: acl for acl in image.acls if any(f.matches(acl) for f in filters)}
    if json_output:
        print_json({"acls": [record_to_dict(acl) for acl in found.values()]})
        return
    for acl in found.values():
        out.print(_describe(acl), markup=False)
    out.print(f"{len(found)} ACLs", markup=False)


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


def _delete_row(acl_filter: AclFilter, result: AclDeleteResult) -> dict[str, Any]:
    row = record_to_dict(acl_filter)
    row["acls"] = [record_to_dict(acl) for acl in result.acls]
    row.update(_error_fields(result.error))
    return row


def _print_created(
    binding: AclBinding, result: AclCreateResult, before: set[Any], dry_run: bool
) -> None:
    if not result.error.is_success:
        return
    fresh = "would add" if dry_run else "added"
    state = "exists" if result.acl_id in before else fresh
    out.print(f"{state:<9} {_describe(binding)}", markup=False)


def _describe(acl: Any) -> str:
    return (
        f"{acl.permission_type.name} {acl.principal} {acl.operation.name} from {acl.host} on "
        f"{acl.resource_type.name}:{acl.pattern_type.name}:{acl.resource_name}"
    )


def _describe_filter(acl_filter: AclFilter) -> str:
    name = "*any*" if acl_filter.resource_name is None else acl_filter.resource_name
    return f"filter {acl_filter.resource_type.name}:{acl_filter.pattern_type.name}:{name}"
