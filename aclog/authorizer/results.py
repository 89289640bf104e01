"""What the authorizer answers: decisions, explanations and its errors.

Immutable values; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from aclog.records.render import record_to_dict
from aclog.records.types import AccessControlEntryRecord, kafka_uuid_text


class Decision(Enum):
    """The answer to an authorization request."""

    ALLOWED = "ALLOWED"
    DENIED = "DENIED"


class AuthorizerNotReadyError(Exception):
    """The authorizer has not loaded the ACLs yet; only super users are authorized."""


class UnknownAclError(KeyError):
    """A removal named an ACL id that is not stored."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown ACL id"


@dataclass(frozen=True)
class Explanation:
    """Why a request was allowed or denied.

    ``matching_acls`` are the ACLs that match the request (resource, principal, host and
    operation), most specific first; ``deciding_acl`` is the most specific matching DENY if any,
    else the most specific matching ALLOW, else ``None`` (super user or default).
    """

    decision: Decision
    reason: str
    deciding_acl: AccessControlEntryRecord | None = None
    matching_acls: list[AccessControlEntryRecord] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form ``explain --json`` prints and the UI serves: ``{"decision",
        "reason", "deciding_acl", "matching_acls"}``, ACLs as every ``--json`` shows them."""
        deciding = self.deciding_acl
        return {
            "decision": self.decision.value,
            "reason": self.reason,
            "deciding_acl": None if deciding is None else record_to_dict(deciding),
            "matching_acls": [record_to_dict(acl) for acl in self.matching_acls],
        }


def describe_acl(acl: AccessControlEntryRecord) -> str:
    """One line naming an ACL, e.g. ``DENY rule READ on TOPIC PREFIXED 'pay' for User:bob from
    host * (id ...)``."""
    return (
        f"{acl.permission_type.name} rule {acl.operation.name} on {acl.resource_type.name} "
        f"{acl.pattern_type.name} {acl.resource_name!r} for {acl.principal} from host "
        f"{acl.host} (id {kafka_uuid_text(acl.id)})"
    )
