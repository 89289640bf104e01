"""What a principal can reach: every resource (or resource pattern) its ACLs grant it something
on, with the operations allowed and the deciding ACL per operation.

Two forms of the answer:

- Per pattern (no inventory). Every resource pattern named by an ALLOW ACL that may cover the
  principal (its own, ``User:*``'s, or a GLOB principal's) is examined. A LITERAL name is a
  resource; a PREFIXED, GLOB or LITERAL ``*`` pattern stands for every name it applies to and is
  decided from a *typical* name: the stem followed by a long run of a character no resource
  name of the type contains (:func:`~aclog.authorizer.proposals`), so that only
  patterns covering the whole pattern apply to it. Each supported operation is explained
  there (implied operations come out as Kafka computes them) and kept when the pattern's own
  ALLOW matches: ALLOWED, or DENIED when a DENY covering the pattern takes it away. A DENY
  that denies only some names of the pattern (a narrower LITERAL, PREFIXED or GLOB DENY, or a
  GLOB DENY that decides only the pattern's shorter names) is listed as an exclusion under it,
  with the operations it takes away there: it is found from a name both patterns apply to (the
  pattern's probe names, and the DENY's own probe names inside the pattern) and explained
  there.
- Per name (``inventory`` given): each inventory resource of the asked types is explained for
  every supported operation, exactly as ``aclog explain`` would; a resource is listed when at
  least one operation is allowed.

Hosts are folded as :mod:`aclog.questions.host_answers` describes (or the asked host alone).
Super users are allowed everything by configuration: the per-pattern answer says so instead of
listing patterns. Resources with no ACL at all are allowed to everyone when the authorizer
allows everyone by default; the answer says so but cannot list them without an inventory.

Limits of the per-pattern form: exclusions are found from a few probe names per DENY and are
complete for LITERAL and PREFIXED DENYs; a GLOB DENY that requires a minimum length (``ab?*``)
can decide the typical name while a few short names stay allowed. ``inventory`` gives the exact
answer per name.

Pure; thread-safe. Cost per pattern: (supported operations) x (hosts named + 1) explains at
the typical name, plus a few per exclusion; per inventory name the same at the name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from aclog.acl import AclFilter, compile_glob, kafka_order, pattern_applies, supported_operations
from aclog.authorizer import Authorizer, Decision, Explanation, fresh_character, proposals
from aclog.questions.host_answers import HostAnswer, answers_by_host, host_text, named_hosts
from aclog.questions.reachable import Exclusion, OperationAnswer, Reach, Reachable
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)

RESOURCE_TYPES = (
    ResourceType.TOPIC,
    ResourceType.GROUP,
    ResourceType.CLUSTER,
    ResourceType.TRANSACTIONAL_ID,
    ResourceType.DELEGATION_TOKEN,
    ResourceType.USER,
)
_ANY_PRINCIPAL = "User:*"
_ALLOW = AclPermissionType.ALLOW
_DENY = AclPermissionType.DENY
_GLOB = PatternType.GLOB
Found = dict[int, tuple[AccessControlEntryRecord, set[AclOperation]]]
"""Exclusions found so far: DENY id -> (the DENY, the operations it takes away)."""


def reach(
    authorizer: Authorizer,
    principal: str,
    host: str | None = None,
    resource_types: Iterable[ResourceType] | None = None,
    inventory: Sequence[tuple[ResourceType, str]] | None = None,
) -> Reach:
    """What ``principal`` can reach, per pattern or per inventory name (module docstring)."""
    types = tuple(resource_types) if resource_types else RESOURCE_TYPES
    super_user = principal in authorizer.super_users
    if inventory is not None:
        found = [_named(authorizer, principal, host, rt, name) for rt, name in inventory]
        resources = [r for r in found if r is not None and r.resource_type in types]
    elif super_user:
        resources = []
    else:
        resources = [r for rt in types for r in _patterns(authorizer, principal, host, rt)]
    return Reach(
        principal,
        host,
        types,
        inventory is not None,
        super_user,
        authorizer.allow_everyone_if_no_acl_found,
        resources,
    )


class _Asker:
    """Explains requests of one principal on one resource type."""

    def __init__(
        self, authorizer: Authorizer, principal: str, host: str | None, rt: ResourceType
    ) -> None:
        self.authorizer, self.principal, self.host, self.rt = authorizer, principal, host, rt

    def explain(self, at: str, operation: AclOperation, name: str) -> Explanation:
        return self.authorizer.explain(self.principal, at, operation, self.rt, name)

    def answers(self, operation: AclOperation, name: str) -> list[HostAnswer]:
        """The folded per-host answers for ``operation`` on ``name``."""
        hosts = named_hosts(self.authorizer.acls(AclFilter(self.rt, name, PatternType.MATCH)))
        return answers_by_host(lambda at: self.explain(at, operation, name), hosts, self.host)


def _named(
    authorizer: Authorizer, principal: str, host: str | None, rt: ResourceType, name: str
) -> Reachable | None:
    asker = _Asker(authorizer, principal, host, rt)
    rows = [
        OperationAnswer(op, answer)
        for op in sorted(supported_operations(rt))
        for answer in asker.answers(op, name)
        if answer.explicit
    ]
    found = Reachable(rt, PatternType.LITERAL, name, rows)
    return found if found.allowed_operations else None


def _patterns(
    authorizer: Authorizer, principal: str, host: str | None, rt: ResourceType
) -> list[Reachable]:
    acls = authorizer.acls(AclFilter(rt))
    if not acls:
        return []
    fresh = fresh_character(acls)
    run = 1 + max((len(a.resource_name) for a in acls if a.pattern_type == _GLOB), default=0)
    maybe_mine = [a for a in acls if _may_cover(a, principal)]
    denies = [a for a in maybe_mine if a.permission_type == _DENY]
    grants = {
        (a.pattern_type, a.resource_name): a for a in maybe_mine if a.permission_type == _ALLOW
    }
    asker = _Asker(authorizer, principal, host, rt)
    found = []
    for grant in kafka_order(grants.values()):
        entry = _pattern(asker, grant, list(proposals(grant, fresh, run)), denies, (fresh, run))
        if entry is not None:
            found.append(entry)
    return found


def _may_cover(acl: AccessControlEntryRecord, principal: str) -> bool:
    """A cheap filter: ACLs that cannot cover ``principal`` are skipped (explain decides)."""
    return acl.principal in (principal, _ANY_PRINCIPAL) or acl.pattern_type == _GLOB


def _pattern(
    asker: _Asker,
    grant: AccessControlEntryRecord,
    probes: list[str],
    denies: list[AccessControlEntryRecord],
    fresh_run: tuple[str, int],
) -> Reachable | None:
    typical = probes[-1]
    rows = [
        OperationAnswer(op, answer)
        for op in sorted(supported_operations(asker.rt))
        for answer in asker.answers(op, typical)
        if answer.explicit and _grants(answer.explanation, grant)
    ]
    if not rows:
        return None
    found = Reachable(asker.rt, grant.pattern_type, grant.resource_name, rows)
    if grant.pattern_type == PatternType.LITERAL and grant.resource_name != "*":
        return found
    allowed = [r for r in rows if r.answer.decision == Decision.ALLOWED]
    exclusions: Found = {}
    for deny in denies:
        if pattern_applies(deny.pattern_type, deny.resource_name, typical):
            continue  # it decides the typical name: it shows in the rows
        name = _witness(grant, deny, probes, fresh_run)
        if name is not None:
            _exclude(exclusions, asker, grant, deny, name, allowed)
    found.exclusions.extend(
        Exclusion(acl, tuple(sorted(ops))) for acl, ops in exclusions.values() if ops
    )
    return found


def _grants(explanation: Explanation, grant: AccessControlEntryRecord) -> bool:
    """True when an ALLOW ACL with ``grant``'s resource pattern matched the request."""
    return any(
        acl.permission_type == _ALLOW
        and acl.pattern_type == grant.pattern_type
        and acl.resource_name == grant.resource_name
        for acl in explanation.matching_acls
    )


def _exclude(
    found: Found,
    asker: _Asker,
    grant: AccessControlEntryRecord,
    deny: AccessControlEntryRecord,
    name: str,
    allowed: list[OperationAnswer],
) -> None:
    """Records the operations ``deny`` takes away on ``name`` (a name of both patterns)."""
    for row in allowed:
        specific = deny.host != "*" and asker.host is None
        at = host_text(deny) if specific else row.answer.evaluated_at
        explanation = asker.explain(at, row.operation, name)
        if (
            explanation.decision == Decision.DENIED
            and deny in explanation.matching_acls
            and _grants(explanation, grant)
        ):
            found.setdefault(deny.id.int, (deny, set()))[1].add(row.operation)


def _witness(
    grant: AccessControlEntryRecord,
    deny: AccessControlEntryRecord,
    probes: list[str],
    fresh_run: tuple[str, int],
) -> str | None:
    """A name both patterns apply to, from a few candidates; ``None`` when none is found."""
    stem, tail = _stem_and_tail(grant)
    candidates = [*probes]
    for name in proposals(deny, *fresh_run):
        candidates += [name, stem + name, name + tail, stem + name + tail]
    for name in candidates:
        if pattern_applies(grant.pattern_type, grant.resource_name, name) and pattern_applies(
            deny.pattern_type, deny.resource_name, name
        ):
            return name
    return None


def _stem_and_tail(acl: AccessControlEntryRecord) -> tuple[str, str]:
    """The text every name of the pattern starts with, and the text it ends with."""
    if acl.pattern_type == PatternType.PREFIXED:
        return acl.resource_name, ""
    if acl.pattern_type == _GLOB:
        glob = compile_glob(acl.resource_name)
        return glob.literal_prefix, glob.literal_suffix
    return "", ""
