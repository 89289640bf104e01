"""Wire codes to aclog's ACL types, shared by CreateAcls, DescribeAcls and DeleteAcls.

Codes are read with Kafka's ``fromCode`` semantics (an unknown code becomes UNKNOWN, so it is
rejected later with Kafka's per-item message). GLOB travels as pattern type 5 (KIP-1042).
Kafka's request parsers refuse code 0 (UNKNOWN) in any of the four enum fields outright: the
request cannot be built and the connection is closed (``reference/kafka-acl-spec.md`` §3 stage
1, §4 stage 1); :func:`check_known` does the same.
"""

from __future__ import annotations

from typing import Any

from aclog.authorizer import AclFilter
from aclog.records import (
    AccessControlEntryRecord,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from aclog.wire.errors import CloseConnection


def check_known(api: str, items: list[tuple[int, int, int, int]]) -> None:
    """Close the connection if any (resource type, pattern type, operation, permission) holds
    code 0, as Kafka's request parser does."""
    for index, codes in enumerate(items):
        if 0 in codes:
            raise CloseConnection(
                f"{api} entry {index} contains UNKNOWN (code 0) elements "
                "(resource type, pattern type, operation, permission)"
            )


def binding(creation: Any) -> AclBinding:
    """A CreateAcls creation as a binding."""
    return AclBinding(
        ResourceType.from_code(creation.resource_type),
        creation.resource_name,
        PatternType.from_code(creation.resource_pattern_type),
        creation.principal,
        creation.host,
        AclOperation.from_code(creation.operation),
        AclPermissionType.from_code(creation.permission_type),
    )


def acl_filter(item: Any) -> AclFilter:
    """A DescribeAcls request or a DeleteAcls filter as an :class:`AclFilter`."""
    return AclFilter(
        ResourceType.from_code(item.resource_type_filter),
        item.resource_name_filter,
        PatternType.from_code(item.pattern_type_filter),
        item.principal_filter,
        item.host_filter,
        AclOperation.from_code(item.operation),
        AclPermissionType.from_code(item.permission_type),
    )


def filter_codes(item: Any) -> tuple[int, int, int, int]:
    """The four enum codes of a filter, for :func:`check_known`."""
    return (
        item.resource_type_filter,
        item.pattern_type_filter,
        item.operation,
        item.permission_type,
    )


def acl_fields(acl: AccessControlEntryRecord) -> dict[str, Any]:
    """An ACL's fields under the names the response structs use."""
    return {
        "resource_type": int(acl.resource_type),
        "resource_name": acl.resource_name,
        "pattern_type": int(acl.pattern_type),
        "principal": acl.principal,
        "host": acl.host,
        "operation": int(acl.operation),
        "permission_type": int(acl.permission_type),
    }
