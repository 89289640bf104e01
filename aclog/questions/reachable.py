"""What :func:`aclog.questions.reach.reach` answers: resources and resource patterns a
principal reaches, with the operations per host and the DENYs that carve names out.

Immutable values; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aclog.authorizer import Decision
from aclog.questions.host_answers import HostAnswer
from aclog.questions.pattern_text import describe_pattern
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    PatternType,
    ResourceType,
    record_to_dict,
)


@dataclass(frozen=True)
class OperationAnswer:
    """One operation on a resource or pattern, from a host: the decision and why."""

    operation: AclOperation
    answer: HostAnswer

    def to_dict(self) -> dict[str, Any]:
        return {"operation": self.operation.name, **self.answer.to_dict()}


@dataclass(frozen=True)
class Exclusion:
    """A DENY that takes ``operations`` away on the names of a pattern that it applies to."""

    acl: AccessControlEntryRecord
    operations: tuple[AclOperation, ...]

    def to_dict(self) -> dict[str, Any]:
        acl = self.acl
        return {
            "description": describe_pattern(acl.resource_type, acl.pattern_type, acl.resource_name),
            "acl": record_to_dict(acl),
            "operations": [op.name for op in self.operations],
        }


@dataclass(frozen=True)
class Reachable:
    """A resource (LITERAL name) or resource pattern the principal is granted something on."""

    resource_type: ResourceType
    pattern_type: PatternType
    resource_name: str
    operations: list[OperationAnswer]
    exclusions: list[Exclusion] = field(default_factory=list)

    @property
    def description(self) -> str:
        return describe_pattern(self.resource_type, self.pattern_type, self.resource_name)

    @property
    def allowed_operations(self) -> list[AclOperation]:
        """The operations allowed from at least one host, in code order."""
        allowed = {o.operation for o in self.operations if o.answer.decision == Decision.ALLOWED}
        return sorted(allowed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "resource_type": self.resource_type.name,
            "pattern_type": self.pattern_type.name,
            "resource_name": self.resource_name,
            "description": self.description,
            "operations": [o.to_dict() for o in self.operations],
            "exclusions": [e.to_dict() for e in self.exclusions],
        }


@dataclass(frozen=True)
class Reach:
    """What ``principal`` can reach (from ``host``, or from each host class)."""

    principal: str
    host: str | None
    resource_types: tuple[ResourceType, ...]
    per_name: bool
    super_user: bool
    allow_everyone_if_no_acl_found: bool
    resources: list[Reachable]

    def to_dict(self) -> dict[str, Any]:
        return {
            "principal": self.principal,
            "host": self.host,
            "resource_types": [t.name for t in self.resource_types],
            "per_name": self.per_name,
            "super_user": self.super_user,
            "allow_everyone_if_no_acl_found": self.allow_everyone_if_no_acl_found,
            "resources": [r.to_dict() for r in self.resources],
        }
