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
- the risky grants of :mod:`aclog.questions.risky`.

Coverage is :mod:`aclog.questions.coverage`'s: sound, so every finding is certain, and
complete except for unusual GLOBs (a finding may then be missed, never invented).

Pure; thread-safe. Cost: O(sum over (type, permission, principal, host) groups of size²) for
redundancy, O(ALLOWs x DENYs of the type) for ALLOWs that never decide, in the worst case;
indexed by resource name and principal, an ACL is compared only with those that could cover
it (a 200k-ACL inventory of a few hundred principals: seconds). This is the reference: an
image's ACLs are linted by :mod:`aclog.questions.lint_fast`, held equal to it, which judges
its candidates by :func:`makes_redundant`, :func:`never_decides` and the risky rules here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from heapq import merge

from aclog.acl import kafka_order
from aclog.questions.coverage import (
    Span,
    decided_operations,
    entry_covers,
    host_span,
    principal_span,
    resource_span,
    span_covers,
)
from aclog.questions.findings import Finding, Severity
from aclog.questions.pattern_text import short_acl
from aclog.questions.risky import risky_grants
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
    groups: dict[tuple[object, ...], _Group] = {}
    keyed = []
    for acl in acls:
        key = (acl.resource_type, acl.permission_type, principal_span(acl), host_span(acl))
        keyed.append((acl, groups.setdefault(key, _Group()).add(acl)))
    findings = []
    for acl, (group, position) in keyed:
        broader = _broader(acl, position, group)
        if broader is not None:
            findings.append(redundant_finding(acl, broader))
    return findings


def redundant_finding(acl: AccessControlEntryRecord, broader: AccessControlEntryRecord) -> Finding:
    """The ``redundant_acl`` finding of ``acl``, made redundant by ``broader``."""
    verb = "allows" if acl.permission_type == AclPermissionType.ALLOW else "denies"
    message = f"{short_acl(acl)}: redundant, {short_acl(broader)} already {verb} it"
    return Finding("redundant_acl", Severity.INFO, message, (acl, broader))


class _Group:
    """The ACLs of one (type, permission, principal, host), in Kafka's order, indexed by the
    resource names they apply to, so an ACL is compared only with those whose pattern could
    cover it (equal LITERALs, PREFIXEDs of its name, GLOBs and ``*``): without the index, a
    principal with thousands of ACLs cost millions of comparisons.
    Not thread-safe (built by one call). Cost: O(1) per add; :meth:`candidates` O(name length
    + candidates x log)."""

    def __init__(self) -> None:
        self.members: list[AccessControlEntryRecord] = []
        self.by_span: dict[Span, list[int]] = defaultdict(list)
        self.wide: list[int] = []  # GLOB and ``*`` patterns: checked for every member

    def add(self, acl: AccessControlEntryRecord) -> tuple[_Group, int]:
        index = len(self.members)
        self.members.append(acl)
        span = resource_span(acl)
        (self.by_span[span] if span[0] in ("exact", "prefix") else self.wide).append(index)
        return self, index

    def candidates(self, span: Span) -> list[int]:
        """Indices (ascending) of the members that may cover ``span``."""
        kind, text = span
        if kind not in ("exact", "prefix"):
            return list(range(len(self.members)))
        found = list(self.wide)
        if kind == "exact":
            found += self.by_span.get(span, ())
        for length in range(len(text) + 1):
            found += self.by_span.get(("prefix", text[:length]), ())
        return sorted(found)


def _broader(
    acl: AccessControlEntryRecord, position: int, group: _Group
) -> AccessControlEntryRecord | None:
    """A member of ``group`` (``acl`` is its member at ``position``) that decides everything
    ``acl`` decides, on every name it applies to; the first such in Kafka's order."""
    if not _decided(acl):
        return None
    for index in group.candidates(resource_span(acl)):
        other = group.members[index]
        if index != position and makes_redundant(other, acl, later=index > position):
            return other
    return None


def makes_redundant(
    other: AccessControlEntryRecord, acl: AccessControlEntryRecord, *, later: bool
) -> bool:
    """Whether ``other`` (of ``acl``'s permission, principal and host; after it in Kafka's
    order when ``later``) decides every operation ``acl`` decides on every name it applies
    to, and is not an equivalent ACL that comes later (of two, the later is redundant)."""
    mine, theirs = _decided(acl), _decided(other)
    span, outer = resource_span(acl), resource_span(other)
    if not mine <= theirs or not span_covers(outer, span):
        return False
    return not (later and mine == theirs and span_covers(span, outer))


def allows_that_never_decide(acls: list[AccessControlEntryRecord]) -> list[Finding]:
    """The ``allow_never_decides`` findings; ``acls`` in Kafka's order."""
    # A DENY naming one principal covers only that principal's ALLOWs; the others (User:*,
    # GLOB principals) may cover any. So each ALLOW is compared with its principal's DENYs
    # and the wide ones, not with every DENY of the type (10k DENYs x 190k ALLOWs took hours).
    named: dict[tuple[ResourceType, Span], list[int]] = defaultdict(list)
    wide: dict[ResourceType, list[int]] = defaultdict(list)
    for index, acl in enumerate(acls):
        if acl.permission_type == AclPermissionType.DENY:
            span = principal_span(acl)
            bucket = (
                named[acl.resource_type, span] if span[0] == "exact" else wide[acl.resource_type]
            )
            bucket.append(index)
    findings = []
    for acl in acls:
        if acl.permission_type != AclPermissionType.ALLOW or not _decided(acl):
            continue
        span = principal_span(acl)
        mine = named.get((acl.resource_type, span), []) if span[0] == "exact" else []
        finding = never_decides(
            acl, [acls[i] for i in merge(mine, wide.get(acl.resource_type, []))]
        )
        if finding is not None:
            findings.append(finding)
    return findings


def never_decides(
    acl: AccessControlEntryRecord, denies: list[AccessControlEntryRecord]
) -> Finding | None:
    """The ``allow_never_decides`` finding of the ALLOW ``acl`` when the DENYs among
    ``denies`` (in Kafka's order; any that may cover it) that cover it deny every operation
    it decides; else ``None``."""
    covering = [d for d in denies if entry_covers(d, acl)]
    used = [d for d in covering if _decided(d) & _decided(acl)]
    taken = frozenset().union(*(_decided(d) for d in used))
    if not used or not _decided(acl) <= taken:
        return None
    by = " and ".join(short_acl(d) for d in used)
    message = f"{short_acl(acl)}: never decides, {by} denies every request it matches"
    return Finding("allow_never_decides", Severity.WARNING, message, (acl, *used))
