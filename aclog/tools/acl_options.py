"""kafka-acls-style options turned into ACL bindings (for add) and filters (for remove, list).

Follows ``kafka-acls.sh``: each resource option may repeat; principals and hosts multiply with
operations; ``--allow-host``/``--deny-host`` default to ``*``; ``--operation`` defaults to ALL
for add; ``--producer`` grants WRITE, DESCRIBE and CREATE on topics (plus WRITE and DESCRIBE on
transactional ids, and IDEMPOTENT_WRITE on the cluster with ``--idempotent`` or a transactional
id); ``--consumer`` grants READ and DESCRIBE on topics and READ on groups. One deliberate
difference: ``remove`` without ``--operation`` removes every operation of the named principals
(kafka-acls would remove only ALL ACLs).

Pure functions; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from aclog.acl.filters import AclFilter
from aclog.acl.operations import SUPPORTED_OPERATIONS
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)

CLUSTER_NAME = "kafka-cluster"


class OptionError(ValueError):
    """Options that do not make a valid request; the message says what to change."""


@dataclass
class AclOptions:
    """The parsed options of one ``aclog acls`` command."""

    allow_principals: list[str] = field(default_factory=list)
    deny_principals: list[str] = field(default_factory=list)
    allow_hosts: list[str] = field(default_factory=list)
    deny_hosts: list[str] = field(default_factory=list)
    operations: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    cluster: bool = False
    transactional_ids: list[str] = field(default_factory=list)
    users: list[str] = field(default_factory=list)
    delegation_tokens: list[str] = field(default_factory=list)
    pattern_type: str | None = None
    producer: bool = False
    consumer: bool = False
    idempotent: bool = False
    principals: list[str] = field(default_factory=list)


def parse_pattern_type(text: str | None, default: PatternType, *, filter_ok: bool) -> PatternType:
    """``literal|prefixed|glob`` (plus ``any|match`` for filters), case-insensitive."""
    if text is None:
        return default
    allowed = ["literal", "prefixed", "glob"] + (["any", "match"] if filter_ok else [])
    if text.lower() not in allowed:
        raise OptionError(
            f"--resource-pattern-type {text!r} is not valid here; use one of: {', '.join(allowed)}"
        )
    return PatternType.parse(text)


def parse_operations(names: list[str]) -> list[AclOperation]:
    """Operation names in any case or style: ``Read``, ``DESCRIBE_CONFIGS``, ``DescribeConfigs``."""
    operations: list[AclOperation] = []
    for name in names:
        try:
            operation = AclOperation.parse(name)
        except ValueError as error:
            raise OptionError(str(error)) from None
        if operation in (AclOperation.ANY, AclOperation.UNKNOWN):
            raise OptionError(f"--operation {name} is not an operation an ACL can name")
        operations.append(operation)
    return operations


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
    if not options.allow_principals and not options.deny_principals:
        raise OptionError("give at least one --allow-principal or --deny-principal")
    _check_hosts(options)
    pattern = parse_pattern_type(options.pattern_type, PatternType.LITERAL, filter_ok=False)
    wanted = _operations_by_resource(options)
    bindings: list[AclBinding] = []
    for (resource_type, name), operations in wanted:
        for permission, principals, hosts in _entries(options):
            bindings += [
                AclBinding(resource_type, name, pattern, p, h, op, permission)
                for p in principals
                for h in hosts
                for op in operations
            ]
    return list(dict.fromkeys(bindings))


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


def _operations_by_resource(
    options: AclOptions,
) -> list[tuple[tuple[ResourceType, str], list[AclOperation]]]:
    if options.producer or options.consumer:
        if options.operations:
            raise OptionError("--operation cannot be combined with --producer or --consumer")
        return _role_operations(options)
    named = resources(options)
    if not named:
        raise OptionError(
            "name a resource: --topic, --group, --cluster, --transactional-id, --user or "
            "--delegation-token"
        )
    operations = parse_operations(options.operations) or [AclOperation.ALL]
    for resource_type, _ in named:
        _check_supported(resource_type, operations)
    return [(resource, operations) for resource in named]


def _check_supported(resource_type: ResourceType, operations: list[AclOperation]) -> None:
    supported = SUPPORTED_OPERATIONS[resource_type]
    bad = [op.name for op in operations if op != AclOperation.ALL and op not in supported]
    if bad:
        names = ", ".join(sorted(op.name for op in supported))
        raise OptionError(
            f"{resource_type.name} ACLs cannot name {', '.join(bad)}; "
            f"{resource_type.name} supports ALL, {names}"
        )


def _role_operations(
    options: AclOptions,
) -> list[tuple[tuple[ResourceType, str], list[AclOperation]]]:
    out: list[tuple[tuple[ResourceType, str], list[AclOperation]]] = []
    if not options.topics:
        raise OptionError("--producer and --consumer need at least one --topic")
    if options.producer:
        writes = [AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE]
        out += [((ResourceType.TOPIC, t), writes) for t in options.topics]
        txn = [AclOperation.WRITE, AclOperation.DESCRIBE]
        out += [((ResourceType.TRANSACTIONAL_ID, t), txn) for t in options.transactional_ids]
        if options.idempotent or options.transactional_ids:
            out.append(((ResourceType.CLUSTER, CLUSTER_NAME), [AclOperation.IDEMPOTENT_WRITE]))
    if options.consumer:
        if not options.groups:
            raise OptionError("--consumer needs at least one --group")
        reads = [AclOperation.READ, AclOperation.DESCRIBE]
        out += [((ResourceType.TOPIC, t), reads) for t in options.topics]
        out += [((ResourceType.GROUP, g), [AclOperation.READ]) for g in options.groups]
    return out


def filters_for_remove(options: AclOptions) -> list[AclFilter]:
    """The filters ``acls remove`` deletes with: per resource, per named principal and host.

    Without principals every ACL on the resource matches; without hosts every host does.
    """
    named = resources(options)
    if not named:
        raise OptionError("name the resource whose ACLs to remove (--topic, --group, ...)")
    _check_hosts(options)
    pattern = parse_pattern_type(options.pattern_type, PatternType.LITERAL, filter_ok=True)
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


def filters_for_list(options: AclOptions) -> list[AclFilter]:
    """The filters ``acls list`` shows: per resource (or everything) and per ``--principal``."""
    pattern = parse_pattern_type(options.pattern_type, PatternType.ANY, filter_ok=True)
    principals: list[str | None] = list(options.principals) or [None]
    named = resources(options)
    if not named:
        # MATCH needs a name; without one it means every pattern type.
        unnamed = PatternType.ANY if pattern == PatternType.MATCH else pattern
        return [AclFilter(ResourceType.ANY, None, unnamed, p) for p in principals]
    return [AclFilter(rt, name, pattern, p) for rt, name in named for p in principals]


def read_inventory(path: Path | None) -> list[tuple[ResourceType, str]]:
    """Resources from a file of ``TYPE:name`` lines (``TOPIC:orders``); blank lines and lines
    starting with ``#`` are skipped. The type is any resource type name, in any case."""
    if path is None:
        return []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise OptionError(f"cannot read the inventory {path}: {error.strerror}") from None
    resources: list[tuple[ResourceType, str]] = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        kind, sep, name = text.partition(":")
        try:
            resource_type = ResourceType.parse(kind)
        except ValueError:
            resource_type = ResourceType.UNKNOWN
        if not sep or not name or resource_type in (ResourceType.UNKNOWN, ResourceType.ANY):
            raise OptionError(
                f"{path}:{number}: expected TYPE:name such as TOPIC:orders, got {text!r}"
            )
        resources.append((resource_type, name))
    return resources
