"""How resource patterns and ACLs are named to a person, in one line.

Pure functions; thread-safe; O(length of the names).
"""

from __future__ import annotations

from aclog.records import AccessControlEntryRecord, PatternType, ResourceType


def describe_pattern(resource_type: ResourceType, pattern_type: PatternType, name: str) -> str:
    """``topic 'orders'``, ``every topic starting with 'orders.'``, ``every topic matching
    'orders.*'`` (GLOB) or ``every topic`` (LITERAL ``*``)."""
    kind = resource_type.name.lower().replace("_", " ")
    if pattern_type == PatternType.LITERAL:
        return f"every {kind}" if name == "*" else f"{kind} {name!r}"
    if pattern_type == PatternType.PREFIXED:
        return f"every {kind} starting with {name!r}"
    return f"every {kind} matching {name!r}"


def short_acl(acl: AccessControlEntryRecord) -> str:
    """``ALLOW READ on TOPIC PREFIXED 'orders.' for User:alice from *``: an ACL without its id."""
    return (
        f"{acl.permission_type.name} {acl.operation.name} on {acl.resource_type.name} "
        f"{acl.pattern_type.name} {acl.resource_name!r} for {acl.principal} from {acl.host}"
    )
