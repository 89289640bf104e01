"""Who can do an operation on a resource: every principal the ACLs allow, with the deciding ACL.

The principals examined are the super users, "any principal" (Kafka's ``User:*``) and every
principal an ACL on the resource names (LITERAL, PREFIXED, LITERAL ``*`` or GLOB ACLs whose
pattern applies to the name, whatever their operation or host); no inventory of principals is
needed, because a principal no ACL names is decided exactly like "any principal". Every
decision is :meth:`Authorizer.explain`'s, so the deciding ACL is the one ``aclog explain``
reports:

- "any principal" is decided for a principal that no principal-specific ACL matching the
  request names (``User:*`` itself, unless a GLOB principal such as ``User:\\*`` names it); with
  no ACL on the resource at all this is where allow.everyone.if.no.acl.found shows;
- a named principal is listed only when its answer differs from "any principal" (its own grant,
  a DENY that takes "any principal"'s grant away, a host condition); the others answer as "any
  principal" does;
- a GLOB principal pattern (``User:svc-*``) is listed as a pattern, decided from its own text:
  it answers for the principals it matches that no other listed row names; where rows overlap,
  a DENY wins as always;
- hosts are folded as :mod:`aclog.questions.host_answers` describes: one answer per host the
  ACLs name that differs from "any other host", then ``*``; with ``host`` given, the answer
  from that host alone.

``allowed`` lists the ALLOWED rows, ``denied`` the rows a DENY ACL decides (for example a
principal denied although any principal is allowed). Rows denied only for want of an ALLOW are
not listed.

Pure; thread-safe (reads one authorizer snapshot per explain). Cost: one MATCH listing of the
resource, then (principals named on the resource + super users + 1) x (hosts named + 1)
explains.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aclog.acl import AclFilter, GlobSyntaxError, compile_glob
from aclog.authorizer import Authorizer, Decision
from aclog.questions.host_answers import HostAnswer, answers_by_host, named_hosts
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    PatternType,
    ResourceType,
)

ANY_PRINCIPAL = "User:*"
_UNNAMED_CANDIDATES = (ANY_PRINCIPAL, "User:\ue000", "Unnamed:\ue000\ue001")
"""Principals tried, in order, to decide "any principal": the first that no principal-specific
ACL matching the request names is used."""

SUPER_USER = "super_user"
ANYONE = "any"
PRINCIPAL = "principal"
PRINCIPAL_PATTERN = "glob"


@dataclass(frozen=True)
class PrincipalAccess:
    """One row of the answer: a principal (or ``User:*``, or a GLOB principal pattern; ``kind``
    says which, or ``super_user``) from a host, with the decision and why."""

    principal: str
    kind: str
    answer: HostAnswer

    @property
    def host(self) -> str:
        return self.answer.host

    def to_dict(self) -> dict[str, Any]:
        return {"principal": self.principal, "principal_kind": self.kind, **self.answer.to_dict()}


@dataclass(frozen=True)
class WhoCan:
    """Who may do ``operation`` on the resource (from ``host``, or from each host class)."""

    resource_type: ResourceType
    resource_name: str
    operation: AclOperation
    host: str | None
    allowed: list[PrincipalAccess]
    denied: list[PrincipalAccess]

    @property
    def any_principal_allowed(self) -> bool:
        """True when "any principal" is allowed from at least one host."""
        return any(row.kind == ANYONE for row in self.allowed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "resource_type": self.resource_type.name,
            "resource_name": self.resource_name,
            "operation": self.operation.name,
            "host": self.host,
            "allowed": [row.to_dict() for row in self.allowed],
            "denied": [row.to_dict() for row in self.denied],
        }


def who_can(
    authorizer: Authorizer,
    operation: AclOperation,
    resource_type: ResourceType,
    name: str,
    host: str | None = None,
) -> WhoCan:
    """Every principal allowed ``operation`` on the resource, and every one a DENY ACL denies
    (see the module docstring)."""
    on_resource = authorizer.acls(AclFilter(resource_type, name, PatternType.MATCH))
    hosts = named_hosts(on_resource)

    def answers(principal: str) -> list[HostAnswer]:
        return answers_by_host(
            lambda at: authorizer.explain(principal, at, operation, resource_type, name),
            hosts,
            host,
        )

    rows = [
        PrincipalAccess(user, SUPER_USER, answer)
        for user in sorted(authorizer.super_users)
        for answer in answers(user)
    ]
    anyone = _unnamed(answers, authorizer.super_users)
    rows += [PrincipalAccess(ANY_PRINCIPAL, ANYONE, answer) for answer in anyone]
    for principal, kind in _named(on_resource, authorizer.super_users):
        mine = answers(principal)
        if not _same(mine, anyone):
            rows += [PrincipalAccess(principal, kind, answer) for answer in mine]
    shown = [row for row in rows if row.answer.explicit]
    return WhoCan(
        resource_type,
        name,
        operation,
        host,
        [row for row in shown if row.answer.decision == Decision.ALLOWED],
        [row for row in shown if row.answer.decision == Decision.DENIED],
    )


def _unnamed(
    answers: Callable[[str], list[HostAnswer]], super_users: frozenset[str]
) -> list[HostAnswer]:
    first: list[HostAnswer] | None = None
    for candidate in _UNNAMED_CANDIDATES:
        if candidate in super_users:
            continue
        found = answers(candidate)
        matched = (acl for a in found for acl in a.explanation.matching_acls)
        if all(acl.principal == ANY_PRINCIPAL for acl in matched):
            return found
        first = first or found
    assert first is not None
    return first


def _named(
    acls: list[AccessControlEntryRecord], super_users: frozenset[str]
) -> list[tuple[str, str]]:
    """The principals ``acls`` name (text a caller would have, or a GLOB pattern), sorted; the
    wildcard is "any principal", answered apart."""
    named = dict(_principal_of(acl) for acl in acls if acl.principal != ANY_PRINCIPAL)
    return sorted((p, kind) for p, kind in named.items() if p not in super_users)


def _principal_of(acl: AccessControlEntryRecord) -> tuple[str, str]:
    if acl.pattern_type != PatternType.GLOB:
        return acl.principal, PRINCIPAL
    try:
        glob = compile_glob(acl.principal)
    except GlobSyntaxError:
        return acl.principal, PRINCIPAL
    if glob.has_wildcards:
        return acl.principal, PRINCIPAL_PATTERN
    # An escaped GLOB principal means its plain text: User:\* is a caller literally "User:*".
    return glob.literal_prefix, PRINCIPAL


def _same(mine: list[HostAnswer], theirs: list[HostAnswer]) -> bool:
    return len(mine) == len(theirs) and all(
        a.host == b.host and a.same_as(b) for a, b in zip(mine, theirs, strict=True)
    )
