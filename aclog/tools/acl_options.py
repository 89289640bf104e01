"""kafka-acls-style options turned into ACL bindings (for add) and filters (for remove, list).

Follows ``kafka-acls.sh``: each resource option may repeat; principals and hosts multiply with
operations; ``--allow-host``/``--deny-host`` default to ``*``; ``--operation`` defaults to ALL
for add; the ``--producer``, ``--consumer`` and ``--idempotent`` shortcuts grant what
kafka-acls grants (:mod:`aclog.tools.acl_roles`); ``--cluster`` is the LITERAL
``kafka-cluster``, so ``add`` refuses it with another ``--resource-pattern-type``. Deliberate
differences: ``remove`` without ``--operation`` removes every operation of the named principals
(kafka-acls would remove only ALL ACLs); ``add --cluster`` with a non-literal pattern type is
refused even beside other resources (kafka-acls then drops the cluster without a word); filter
principals and hosts are checked by the rules ``add`` applies, so a query cannot ask about an
ACL no one could create.

Pure functions; thread-safe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from aclog.acl import SUPPORTED_OPERATIONS, AclFilter
from aclog.controller import CLUSTER_NAME, cluster_pattern_error
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from aclog.tools.acl_args import AclOptions
from aclog.tools.acl_roles import Grant, has_role, role_grants
from aclog.tools.completion import pattern_type_names
from aclog.tools.console import EXIT_USAGE, fail, fail_os
from aclog.tools.inventory import read_inventory
from aclog.tools.options import (
    OptionError,
    check_host,
    check_principal,
    check_texts,
    parse_operation,
)

T = TypeVar("T")

__all__ = [
    "CLUSTER_NAME",
    "AclOptions",
    "OptionError",
    "bindings_for_add",
    "check_option_texts",
    "filters_for_list",
    "filters_for_remove",
    "parse_operations",
    "parse_or_exit",
    "parse_pattern_type",
    "read_inventory",
    "resources",
]

_OPTION_NAMES = {
    "allow_principals": "--allow-principal",
    "deny_principals": "--deny-principal",
    "allow_hosts": "--allow-host",
    "deny_hosts": "--deny-host",
    "operations": "--operation",
    "topics": "--topic",
    "groups": "--group",
    "transactional_ids": "--transactional-id",
    "users": "--user",
    "delegation_tokens": "--delegation-token",
    "principals": "--principal",
}
"""The command-line option of each list field of :class:`AclOptions`."""


def parse_pattern_type(text: str | None, default: PatternType, *, filter_ok: bool) -> PatternType:
    """``literal|prefixed|glob`` (plus ``any|match`` for filters), case-insensitive."""
    if text is None:
        return default
    allowed = pattern_type_names(filter_ok=filter_ok)
    if text.lower() not in allowed:
        raise OptionError(
            f"--resource-pattern-type {text!r} is not valid here; use one of: {', '.join(allowed)}"
        )
    return PatternType.parse(text)


def parse_operations(names: list[str]) -> list[AclOperation]:
    """Operation names in any case or style: ``Read``, ``DESCRIBE_CONFIGS``, ``DescribeConfigs``."""
    return [parse_operation(name) for name in names]


def resources(options: AclOptions) -> list[tuple[ResourceType, str]]:
    """Every resource the options name, in option order."""
    named = [(ResourceType.TOPIC, t) for t in options.topics]
    named += [(ResourceType.GROUP, g) for g in options.groups]
    named += [(ResourceType.CLUSTER, CLUSTER_NAME)] if options.cluster else []
    named += [(ResourceType.TRANSACTIONAL_ID, t) for t in options.transactional_ids]
    named += [(ResourceType.USER, u) for u in options.users]
    named += [(ResourceType.DELEGATION_TOKEN, d) for d in options.delegation_tokens]
    return named


def bindings_for_add(options: AclOptions) -> list[AclBinding]:
    """The ACLs ``acls add`` asks for, in a stable order without repeats."""
    check_option_texts(options)
    if not options.allow_principals and not options.deny_principals:
        raise OptionError("give at least one --allow-principal or --deny-principal")
    _check_hosts(options)
    pattern = parse_pattern_type(options.pattern_type, PatternType.LITERAL, filter_ok=False)
    grants = role_grants(options, pattern) if has_role(options) else _grants(options, pattern)
    bindings: list[AclBinding] = []
    for (resource_type, name, pattern_type), operations in grants:
        for permission, principals, hosts in _entries(options):
            bindings += [
                AclBinding(resource_type, name, pattern_type, p, h, op, permission)
                for p in principals
                for h in hosts
                for op in operations
            ]
    return list(dict.fromkeys(bindings))


def check_option_texts(options: AclOptions) -> None:
    """Refuse any name or value that is not UTF-8 text (:func:`check_text`)."""
    for attribute, option in _OPTION_NAMES.items():
        check_texts(getattr(options, attribute), option)


def _check_hosts(options: AclOptions) -> None:
    if options.allow_hosts and not options.allow_principals:
        raise OptionError("--allow-host needs an --allow-principal")
    if options.deny_hosts and not options.deny_principals:
        raise OptionError("--deny-host needs a --deny-principal")


def _entries(options: AclOptions) -> list[tuple[AclPermissionType, list[str], list[str]]]:
    return [
        (AclPermissionType.ALLOW, options.allow_principals, options.allow_hosts or ["*"]),
        (AclPermissionType.DENY, options.deny_principals, options.deny_hosts or ["*"]),
    ]


def _grants(options: AclOptions, pattern: PatternType) -> list[Grant]:
    """What ``--operation`` (default ALL) grants on each named resource."""
    if options.idempotent:
        raise OptionError("--idempotent is only available with --producer")
    named = resources(options)
    if not named:
        raise OptionError(
            "name a resource: --topic, --group, --cluster, --transactional-id, --user or "
            "--delegation-token"
        )
    cluster_problem = cluster_pattern_error(ResourceType.CLUSTER, pattern)
    if options.cluster and cluster_problem is not None:
        raise OptionError(
            f"--cluster cannot take --resource-pattern-type {pattern.name.lower()}: "
            f"{cluster_problem}"
        )
    operations = parse_operations(options.operations) or [AclOperation.ALL]
    for resource_type, _ in named:
        _check_supported(resource_type, operations)
    return [((rt, name, pattern), operations) for rt, name in named]


def _check_supported(resource_type: ResourceType, operations: list[AclOperation]) -> None:
    supported = SUPPORTED_OPERATIONS[resource_type]
    bad = [op.name for op in operations if op != AclOperation.ALL and op not in supported]
    if bad:
        names = ", ".join(sorted(op.name for op in supported))
        raise OptionError(
            f"{resource_type.name} ACLs cannot name {', '.join(bad)}; "
            f"{resource_type.name} supports ALL, {names}"
        )


def filters_for_remove(options: AclOptions) -> list[AclFilter]:
    """The filters ``acls remove`` deletes with: per resource, per named principal and host.

    Without principals every ACL on the resource matches; without hosts every host does.
    """
    check_option_texts(options)
    named = resources(options)
    if not named:
        raise OptionError("name the resource whose ACLs to remove (--topic, --group, ...)")
    _check_hosts(options)
    pattern = parse_pattern_type(options.pattern_type, PatternType.LITERAL, filter_ok=True)
    _check_filter_entries(options, pattern)
    operations = parse_operations(options.operations) or [AclOperation.ANY]
    allow_hosts: list[str | None] = list(options.allow_hosts) or [None]
    deny_hosts: list[str | None] = list(options.deny_hosts) or [None]
    entries: list[tuple[AclPermissionType, str | None, str | None]] = [
        (AclPermissionType.ALLOW, p, h) for p in options.allow_principals for h in allow_hosts
    ]
    entries += [(AclPermissionType.DENY, p, h) for p in options.deny_principals for h in deny_hosts]
    filters = [
        AclFilter(rt, name, pattern, principal, host, op, permission)
        for rt, name in named
        for permission, principal, host in entries or [(AclPermissionType.ANY, None, None)]
        for op in operations
    ]
    return list(dict.fromkeys(filters))


def _check_filter_entries(options: AclOptions, pattern: PatternType) -> None:
    """Principals and hosts in a filter follow the rules an ACL's do; a filter that may meet
    GLOB ACLs may name a host pattern, as a GLOB ACL may."""
    glob = pattern in (PatternType.GLOB, PatternType.ANY, PatternType.MATCH)
    for principals, option in (
        (options.allow_principals, "--allow-principal"),
        (options.deny_principals, "--deny-principal"),
        (options.principals, "--principal"),
    ):
        for principal in principals:
            check_principal(principal, option)
    for hosts, option in (
        (options.allow_hosts, "--allow-host"),
        (options.deny_hosts, "--deny-host"),
    ):
        for host in hosts:
            check_host(host, option, glob=glob)


def filters_for_list(options: AclOptions) -> list[AclFilter]:
    """The filters ``acls list`` shows: per resource (or everything) and per ``--principal``."""
    check_option_texts(options)
    pattern = parse_pattern_type(options.pattern_type, PatternType.ANY, filter_ok=True)
    _check_filter_entries(options, pattern)
    principals: list[str | None] = list(options.principals) or [None]
    named = resources(options)
    if not named:
        # MATCH needs a name; without one it means every pattern type.
        unnamed = PatternType.ANY if pattern == PatternType.MATCH else pattern
        return [AclFilter(ResourceType.ANY, None, unnamed, p) for p in principals]
    return [AclFilter(rt, name, pattern, p) for rt, name in named for p in principals]


def parse_or_exit(build: Callable[[], T]) -> T:
    """What ``build`` returns; an option error exits 2, a file that cannot be read by the
    rule for every path (:func:`aclog.tools.console.os_error_code`)."""
    try:
        return build()
    except OptionError as error:
        fail(str(error), EXIT_USAGE)
    except OSError as error:
        fail_os("read", error)
