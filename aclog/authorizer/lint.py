"""ACL hygiene: ACLs that change no decision, and grants that give too much.

- ``redundant_acl`` (info): another ACL with the same permission, principal and host (the same
  principal and host *meaning*: ``::1`` equals ``0:0:0:0:0:0:0:1``) applies to every name this
  one applies to and decides every operation this one decides: a broader PREFIXED, GLOB or
  ``*`` pattern, an ALL operation, or an implying one (ALLOW READ decides DESCRIBE too).
  Removing the redundant ACL changes no decision. Of two equivalent ACLs only the later (in
  Kafka's order) is reported. A grant to ``User:*`` does not make named principals' grants
  redundant: those are deliberate, and needed once the wildcard grant goes.
- ``allow_never_decides`` (warning): DENY ACLs together cover every (name, principal, host)
  the ALLOW applies to and deny every operation it would grant; since a DENY wins at any
  specificity, the ALLOW never decides anything.
- the risky grants of :mod:`aclog.authorizer.risky`.

Coverage is :mod:`aclog.authorizer.coverage`'s: sound, so every finding is certain, and
complete except for unusual GLOBs (a finding may then be missed, never invented).

Pure; thread-safe. Cost: O(sum over (type, permission, principal, host) groups of size²) for
redundancy, O(ALLOWs x DENYs of the type) for ALLOWs that never decide.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from aclog.acl import kafka_order
from aclog.authorizer.coverage import (
    decided_operations,
    entry_covers,
    host_span,
    principal_span,
    resource_span,
    span_covers,
)
from aclog.authorizer.findings import Finding, Severity
from aclog.authorizer.pattern_text import short_acl
from aclog.authorizer.risky import risky_grants
from aclog.records import AccessControlEntryRecord, AclOperation, AclPermissionType, ResourceType


def lint_acls(acls: Iterable[AccessControlEntryRecord]) -> list[Finding]:
    """Every finding about ``acls``: redundant ACLs, ALLOWs that never decide, risky grants;
    each kind in Kafka's ACL order."""
    ordered = kafka_order(list(acls))
    return [*redundant_acls(ordered), *allows_that_never_decide(ordered), *risky_grants(ordered)]


def _decided(acl: AccessControlEntryRecord) -> frozenset[AclOperation]:
    return decided_operations(acl.permission_type, acl.operation, acl.resource_type)


def redundant_acls(acls: list[AccessControlEntryRecord]) -> list[Finding]:
    """The ``redundant_acl`` findings; ``acls`` in Kafka's order."""
    groups: dict[tuple[object, ...], list[AccessControlEntryRecord]] = defaultdict(list)
    for acl in acls:
        key = (acl.resource_type, acl.permission_type, principal_span(acl), host_span(acl))
        groups[key].append(acl)
    findings = []
    for acl in acls:
        key = (acl.resource_type, acl.permission_type, principal_span(acl), host_span(acl))
        broader = _broader(acl, groups[key])
        if broader is not None:
            verb = "allows" if acl.permission_type == AclPermissionType.ALLOW else "denies"
            message = f"{short_acl(acl)}: redundant, {short_acl(broader)} already {verb} it"
            findings.append(Finding("redundant_acl", Severity.INFO, message, (acl, broader)))
    return findings


def _broader(
    acl: AccessControlEntryRecord, members: list[AccessControlEntryRecord]
) -> AccessControlEntryRecord | None:
    """A member that decides everything ``acl`` decides, on every name it applies to."""
    mine = _decided(acl)
    if not mine:
        return None
    position = members.index(acl)
    for index, other in enumerate(members):
        if index == position or not mine <= _decided(other):
            continue
        if not span_covers(resource_span(other), resource_span(acl)):
            continue
        equivalent = mine == _decided(other) and span_covers(
            resource_span(acl), resource_span(other)
        )
        if equivalent and index > position:
            continue  # of two equivalent ACLs, the later one is the redundant one
        return other
    return None


def allows_that_never_decide(acls: list[AccessControlEntryRecord]) -> list[Finding]:
    """The ``allow_never_decides`` findings; ``acls`` in Kafka's order."""
    denies: dict[ResourceType, list[AccessControlEntryRecord]] = defaultdict(list)
    for acl in acls:
        if acl.permission_type == AclPermissionType.DENY:
            denies[acl.resource_type].append(acl)
    findings = []
    for acl in acls:
        if acl.permission_type != AclPermissionType.ALLOW or not _decided(acl):
            continue
        covering = [d for d in denies[acl.resource_type] if entry_covers(d, acl)]
        used = [d for d in covering if _decided(d) & _decided(acl)]
        taken = frozenset().union(*(_decided(d) for d in used))
        if used and _decided(acl) <= taken:
            by = " and ".join(short_acl(d) for d in used)
            message = f"{short_acl(acl)}: never decides, {by} denies every request it matches"
            findings.append(Finding("allow_never_decides", Severity.WARNING, message, (acl, *used)))
    return findings
