"""Kafka's sort order of stored ACLs (``StandardAcl.compareTo``, ``reference/kafka-acl-spec.md``
§2), which DescribeAcls answers follow.

Resource type code ascending, then resource name **descending**, then pattern type code,
operation code, principal, host and permission code ascending. Strings compare as Java's
``String.compareTo`` does, by UTF-16 code units (this differs from Python's code-point order only
for characters above U+FFFF). ACLs equal in all seven fields (possible only under distinct ids)
are ordered by id, so the order is total and does not depend on how the ACLs were stored.

Pure; thread-safe. O(n log n) with three stable sorts.
"""

from __future__ import annotations

from collections.abc import Iterable

from aclog.records.types import AccessControlEntryRecord


def _utf16(text: str) -> bytes:
    # Big-endian UTF-16 bytes compare like Java strings compare their code units.
    return text.encode("utf-16-be", "surrogatepass")


def kafka_order(acls: Iterable[AccessControlEntryRecord]) -> list[AccessControlEntryRecord]:
    """``acls`` sorted in Kafka's order (see the module docstring)."""
    ordered = list(acls)
    ordered.sort(
        key=lambda a: (
            a.pattern_type,
            a.operation,
            _utf16(a.principal),
            _utf16(a.host),
            a.permission_type,
            a.id.bytes,
        )
    )
    ordered.sort(key=lambda a: _utf16(a.resource_name), reverse=True)  # stable, even reversed
    ordered.sort(key=lambda a: a.resource_type)
    return ordered
