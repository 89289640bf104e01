"""What ``aclog timeline`` answers: one request's decisions over time, as the answer at the start
and every change point after it (the batch, its author and the ACL records that flipped it).

A *state* is the request's answer per host class, folded as
:mod:`aclog.questions.host_answers` folds it (with a host given: that host's answer alone).
Two states are the same when every host class has the same decision; a change of deciding ACL
or reason alone is not a flip.

Immutable values; thread-safe. Cost: ``to_dict`` is linear in the flips and their records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aclog.authorizer import Decision
from aclog.image import MetadataProvenance
from aclog.questions.host_answers import HostAnswer
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    RequestContextRecord,
    ResourceType,
    record_to_dict,
)

ADDED = "added"
REMOVED = "removed"
GAINED = "gained"
LOST = "lost"
CHANGED = "changed"


def state_key(answers: Sequence[HostAnswer]) -> tuple[tuple[str, Decision], ...]:
    """What a flip compares: the decision from any other host (the last answer) and from each
    named host whose decision differs from it (a named host with the same decision for another
    reason is no difference)."""
    if not answers:
        return ()
    other = answers[-1]
    named = sorted((a.host, a.decision) for a in answers[:-1] if a.decision != other.decision)
    return (*named, (other.host, other.decision))


@dataclass(frozen=True)
class AclChange:
    """One ACL a flipping batch added or removed, of those that apply to the resource."""

    change: str  # ADDED or REMOVED
    acl: AccessControlEntryRecord

    def to_dict(self) -> dict[str, Any]:
        return {"change": self.change, **record_to_dict(self.acl)}


@dataclass(frozen=True)
class Flip:
    """A batch after which the request's answer differs: where it sits in the log, when it was
    committed, who asked for it (``None`` for a batch without a request context), the ACLs it
    changed on the resource, and the answers before and after it."""

    base_offset: int
    last_offset: int
    timestamp_ms: int
    author: RequestContextRecord | None
    changes: tuple[AclChange, ...]
    before: tuple[HostAnswer, ...]
    after: tuple[HostAnswer, ...]

    @property
    def direction(self) -> str:
        """``gained`` (nothing allowed before, something now), ``lost`` (the reverse), or
        ``changed`` (allowed from other hosts than before)."""
        was = any(a.decision == Decision.ALLOWED for a in self.before)
        now = any(a.decision == Decision.ALLOWED for a in self.after)
        if was == now:
            return CHANGED
        return GAINED if now else LOST

    def to_dict(self) -> dict[str, Any]:
        return {
            "offset": self.last_offset,
            "base_offset": self.base_offset,
            "timestamp": self.timestamp_ms,
            "direction": self.direction,
            "author": None if self.author is None else record_to_dict(self.author),
            "changes": [change.to_dict() for change in self.changes],
            "before": [answer.to_dict() for answer in self.before],
            "after": [answer.to_dict() for answer in self.after],
        }


@dataclass(frozen=True)
class Timeline:
    """The decisions of one request (principal, operation, resource; from ``host`` or from each
    host class) between two points of a log: the answer at ``start``, and every flip up to
    ``end`` in log order."""

    principal: str
    operation: AclOperation
    resource_type: ResourceType
    resource_name: str
    host: str | None
    start: MetadataProvenance
    end: MetadataProvenance
    initial: tuple[HostAnswer, ...]
    flips: tuple[Flip, ...]

    @property
    def final(self) -> tuple[HostAnswer, ...]:
        """The answer at ``end``."""
        return self.flips[-1].after if self.flips else self.initial

    def to_dict(self) -> dict[str, Any]:
        return {
            "principal": self.principal,
            "operation": self.operation.name,
            "resource_type": self.resource_type.name,
            "resource_name": self.resource_name,
            "host": self.host,
            "from": self.start.to_dict(),
            "to": self.end.to_dict(),
            "initial": [answer.to_dict() for answer in self.initial],
            "flips": [flip.to_dict() for flip in self.flips],
            "final": [answer.to_dict() for answer in self.final],
        }
