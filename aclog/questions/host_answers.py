"""Answers that depend on the client's host: one request decided from every host the ACLs name
and from any other host, folded so that a host shows up only where its answer differs.

An ACL restricted to a host allows or denies only from that host, so "may P do O on R?" has one
answer per host class: each host an ACL on the resource names (an address, or a GLOB host
pattern, which stands for the addresses it matches and is decided from its own text), plus "any
other host", decided from an address that no host-specific ACL matching the request names.
The folded answer lists the named hosts whose answer differs from "any other host", then
"any other host" itself as host ``*`` (the ACL spelling of "any host": alone it means every
host).

Every decision is :meth:`Authorizer.explain`'s; nothing here matches ACLs itself.

Immutable values; thread-safe. Cost: one ``explain`` per named host, plus one (rarely a few)
for any other host.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from aclog.acl import GlobSyntaxError, canonical_host, compile_glob
from aclog.authorizer import Decision, Explanation
from aclog.records import AccessControlEntryRecord, AclPermissionType, PatternType, record_to_dict

ANY_HOST = "*"
OTHER_HOST_CANDIDATES = ("0.0.0.0", "::", "255.255.255.255", "192.0.2.1", "2001:db8::1")
"""Addresses tried, in order, as "any other host": the first that no host-specific ACL matching
the request names is used (``0.0.0.0`` is what :mod:`aclog.questions.impact` uses too)."""

Explainer = Callable[[str], Explanation]
"""Decides one fixed request (principal, operation, resource) from the given host."""


@dataclass(frozen=True)
class HostAnswer:
    """The decision for a request from ``host`` (``*``: from every host, or every other host
    when answers for named hosts sit beside it), and the explanation behind it.
    ``evaluated_at`` is the address it was decided from."""

    host: str
    explanation: Explanation
    evaluated_at: str

    @property
    def decision(self) -> Decision:
        return self.explanation.decision

    @property
    def deciding_acl(self) -> AccessControlEntryRecord | None:
        return self.explanation.deciding_acl

    @property
    def explicit(self) -> bool:
        """True when allowed, or denied by a DENY ACL (not merely for want of an ALLOW)."""
        deciding = self.deciding_acl
        return self.decision == Decision.ALLOWED or (
            deciding is not None and deciding.permission_type == AclPermissionType.DENY
        )

    def same_as(self, other: HostAnswer) -> bool:
        """Same decision for the same reason: equal decision and deciding ACL."""
        return self.decision == other.decision and _id(self.deciding_acl) == _id(other.deciding_acl)

    def to_dict(self) -> dict[str, Any]:
        deciding = self.deciding_acl
        return {
            "host": self.host,
            "decision": self.decision.value,
            "reason": self.explanation.reason,
            "deciding_acl": None if deciding is None else record_to_dict(deciding),
        }


def _id(acl: AccessControlEntryRecord | None) -> int | None:
    return None if acl is None else acl.id.int


def host_text(acl: AccessControlEntryRecord) -> str:
    """The host an ACL names, as a request would spell it: a canonical address, or the text of
    a GLOB host pattern (``*`` for any host)."""
    if acl.pattern_type == PatternType.GLOB and acl.host != ANY_HOST:
        try:
            glob = compile_glob(acl.host)
        except GlobSyntaxError:
            return canonical_host(acl.host)
        return acl.host if glob.has_wildcards else canonical_host(glob.literal_prefix)
    return acl.host if acl.host == ANY_HOST else canonical_host(acl.host)


def named_hosts(acls: Iterable[AccessControlEntryRecord]) -> list[str]:
    """The distinct hosts other than ``*`` that ``acls`` name, sorted."""
    return sorted({host_text(acl) for acl in acls} - {ANY_HOST})


def answers_by_host(
    explain_at: Explainer, hosts: Sequence[str], asked: str | None = None
) -> list[HostAnswer]:
    """The request's answer from ``asked`` alone when given; otherwise the folded answers for
    ``hosts`` (see the module docstring), the ``*`` answer last."""
    if asked is not None:
        return [HostAnswer(asked, explain_at(asked), asked)]
    other = any_other_host(explain_at)
    named = [HostAnswer(host, explain_at(host), host) for host in hosts]
    return [*(answer for answer in named if not answer.same_as(other)), other]


def any_other_host(explain_at: Explainer) -> HostAnswer:
    """The answer from an address no host-specific ACL matching the request names."""
    first: HostAnswer | None = None
    for candidate in OTHER_HOST_CANDIDATES:
        answer = HostAnswer(ANY_HOST, explain_at(candidate), candidate)
        if all(acl.host == ANY_HOST for acl in answer.explanation.matching_acls):
            return answer
        first = first or answer
    assert first is not None
    return first
