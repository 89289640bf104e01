"""Kafka's sort order of stored ACLs (``StandardAcl.compareTo``, ``reference/kafka-acl-spec.md``
§2), which DescribeAcls answers follow.

Resource type code ascending, then resource name **descending**, then pattern type code,
operation code, principal, host and permission code ascending. Strings compare as Java's
``String.compareTo`` does, by UTF-16 code units (this differs from Python's code-point order only
for characters above U+FFFF). ACLs equal in all seven fields (possible only under distinct ids)
are ordered by id, so the order is total and does not depend on how the ACLs were stored.

Pure; thread-safe. O(n log n) with two stable sorts; strings are encoded only when one of
them is not ASCII.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from aclog.records.types import AccessControlEntryRecord


def _utf16(text: str) -> bytes:
    # Big-endian UTF-16 bytes compare like Java strings compare their code units.
    return text.encode("utf-16-be", "surrogatepass")


def _ascii(acls: list[AccessControlEntryRecord]) -> bool:
    """Whether every string that is compared is ASCII (``isascii`` is O(1) in CPython): then
    Python's own string order is Java's, and nothing needs encoding."""
    return all(
        a.resource_name.isascii() and a.principal.isascii() and a.host.isascii() for a in acls
    )


def kafka_order(acls: Iterable[AccessControlEntryRecord]) -> list[AccessControlEntryRecord]:
    """``acls`` sorted in Kafka's order (see the module docstring)."""
    ordered = list(acls)
    text: Callable[[str], str | bytes] = str if _ascii(ordered) else _utf16
    # The id's integer orders as its big-endian bytes do.
    ordered.sort(
        key=lambda a: (
            a.pattern_type,
            a.operation,
            text(a.principal),
            text(a.host),
            a.permission_type,
            a.id.int,
        )
    )
    # Then type ascending and name descending in one stable sort: reversing the whole key
    # reverses the negated type back to ascending.
    ordered.sort(key=lambda a: (-a.resource_type, text(a.resource_name)), reverse=True)
    return ordered
