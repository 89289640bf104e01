"""ACL filters: Kafka's ``AclBindingFilter`` semantics, extended to GLOB.

Used by DescribeAcls, DeleteAcls and ``aclog acls list|remove``. A filter matches an ACL when its
resource-pattern part and its entry part both match (``reference/kafka-acl-spec.md`` §5):

- resource type ANY matches every type; otherwise types must be equal;
- pattern type ANY or MATCH matches every pattern type; another pattern type must be equal;
- a ``None`` name matches every name ("*" is an exact name in a filter, not a wildcard);
- with pattern type ANY or the ACL's own pattern type, names must be equal; so a GLOB filter
  matches GLOB ACLs with exactly that pattern string;
- with MATCH, the ACL must apply to the named resource: LITERAL equal or LITERAL ``*``,
  PREFIXED a prefix of the name, GLOB matching the name;
- a ``None`` principal or host matches anything, otherwise strings must be equal; operation and
  permission ANY match anything, otherwise they must be equal (READ does not match ALL).

Immutable; thread-safe. ``matches`` is O(1) except MATCH against a GLOB ACL, which costs one
GLOB match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from aclog.acl.glob import compile_glob
from aclog.records.enums import (
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)


class AclLike(Protocol):
    """Anything with an ACL's seven fields (a binding or a stored record)."""

    @property
    def resource_type(self) -> ResourceType: ...
    @property
    def resource_name(self) -> str: ...
    @property
    def pattern_type(self) -> PatternType: ...
    @property
    def principal(self) -> str: ...
    @property
    def host(self) -> str: ...
    @property
    def operation(self) -> AclOperation: ...
    @property
    def permission_type(self) -> AclPermissionType: ...


@dataclass(frozen=True, slots=True)
class AclFilter:
    """A pattern over ACLs; ``None`` and the ANY codes are the "match anything" values."""

    resource_type: ResourceType = ResourceType.ANY
    resource_name: str | None = None
    pattern_type: PatternType = PatternType.ANY
    principal: str | None = None
    host: str | None = None
    operation: AclOperation = AclOperation.ANY
    permission_type: AclPermissionType = AclPermissionType.ANY

    @property
    def matches_everything(self) -> bool:
        """True when no field narrows the selection: :meth:`matches` is true for every ACL."""
        return (
            self.resource_type == ResourceType.ANY
            and self.resource_name is None
            and self.pattern_type in (PatternType.ANY, PatternType.MATCH)
            and self.principal is None
            and self.host is None
            and self.operation == AclOperation.ANY
            and self.permission_type == AclPermissionType.ANY
        )

    def matches(self, acl: AclLike) -> bool:
        """True when ``acl`` is selected by this filter. ``PatternType.MATCH`` selects the ACLs
        that apply to the named resource (as kafka-acls ``--resource-pattern-type match``):

        >>> from aclog.records import AclBinding
        >>> acl = AclBinding(ResourceType.TOPIC, "orders.", PatternType.PREFIXED, "User:alice",
        ...                  "*", AclOperation.READ, AclPermissionType.ALLOW)
        >>> AclFilter(ResourceType.TOPIC, "orders.eu", PatternType.MATCH).matches(acl)
        True
        >>> AclFilter(ResourceType.TOPIC, "orders.eu", PatternType.LITERAL).matches(acl)
        False
        >>> AclFilter(principal="User:bob").matches(acl)
        False
        """
        return self.matches_pattern(acl) and self.matches_entry(acl)

    def matches_pattern(self, acl: AclLike) -> bool:
        """The resource-pattern half of :meth:`matches`."""
        if self.resource_type not in (ResourceType.ANY, acl.resource_type):
            return False
        wanted = self.pattern_type
        if wanted not in (PatternType.ANY, PatternType.MATCH) and wanted != acl.pattern_type:
            return False
        name = self.resource_name
        if name is None:
            return True
        if wanted != PatternType.MATCH:
            return name == acl.resource_name
        return pattern_applies(acl.pattern_type, acl.resource_name, name)

    def matches_entry(self, acl: AclLike) -> bool:
        """The entry half of :meth:`matches`."""
        return (
            self.principal in (None, acl.principal)
            and self.host in (None, acl.host)
            and self.operation in (AclOperation.ANY, acl.operation)
            and self.permission_type in (AclPermissionType.ANY, acl.permission_type)
        )


def pattern_applies(pattern_type: PatternType, pattern: str, name: str) -> bool:
    """True when an ACL with this resource pattern applies to the resource called ``name``."""
    if pattern_type == PatternType.LITERAL:
        return pattern in (name, "*")
    if pattern_type == PatternType.PREFIXED:
        return name.startswith(pattern)
    if pattern_type == PatternType.GLOB:
        return compile_glob(pattern).matches(name)
    return False
