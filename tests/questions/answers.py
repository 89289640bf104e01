"""Reading who-can and reach answers back as single decisions, the way a user reads them: a
principal's (or resource's) row for the host, else its ``*`` row, else not allowed."""

from __future__ import annotations

from aclog.authorizer import Decision, canonical_host
from aclog.questions.host_answers import HostAnswer, host_text
from aclog.records import AccessControlEntryRecord

OTHER_HOST = "192.0.2.7"
"""A client address no ACL in the strategies names or matches."""


def pick(answers: list[HostAnswer], host: str) -> HostAnswer | None:
    """The answer that applies from ``host``: its own row, else the ``*`` row."""
    wanted = canonical_host(host)
    exact = [a for a in answers if a.host != "*" and canonical_host(a.host) == wanted]
    if exact:
        return exact[0]
    return next((a for a in answers if a.host == "*"), None)


def decision_of(answer: HostAnswer | None) -> tuple[Decision, int | None]:
    """A listed answer's decision and deciding ACL id; not listed means DENIED."""
    if answer is None:
        return Decision.DENIED, None
    deciding = answer.deciding_acl
    return answer.decision, None if deciding is None else deciding.id.int


def expected(explanation: object) -> tuple[Decision, int | None]:
    """The same pair from an explanation; a DENIED one without a DENY counts as unlisted."""
    decision = explanation.decision  # type: ignore[attr-defined]
    deciding = explanation.deciding_acl  # type: ignore[attr-defined]
    if decision == Decision.DENIED and deciding is None:
        return Decision.DENIED, None
    if decision == Decision.DENIED and deciding.permission_type.name != "DENY":
        return Decision.DENIED, None
    return decision, None if deciding is None else deciding.id.int


def hosts_to_check(acls: list[AccessControlEntryRecord], asked: str | None) -> list[str]:
    """The hosts to check answers from: the asked one, else every host ``acls`` name (as a
    request spells it) and an address no ACL names."""
    if asked is not None:
        return [asked]
    return [*sorted({host_text(a) for a in acls} - {"*"}), OTHER_HOST]
