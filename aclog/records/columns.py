"""Decodes runs of ACL record values a field at a time, without fastavro.

fastavro reads a record field by field through its generic schema walk and builds a dict per
record: four fifths of a batch decode. The Avro body of an ACL record (v0: fixed(16) id, int,
string, int, string, string, int, int) is simple enough to take apart with C-level ``map``
passes over the whole run when every varint in it is one byte (codes below 64, strings shorter
than 64 bytes: the ACLs real clusters hold): the field positions then follow from the three
string lengths. Each pass fails loudly on anything else (a longer varint, a negative length, a
value that ends early or has bytes left over, text that is not UTF-8), and the run is then left
to fastavro, which decodes it or raises the codec's error naming the offset.

Thread-safe (tables are never mutated). Cost: about forty C-level passes per run, no Python
call per record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat
from operator import add, getitem, itemgetter
from typing import Any

_ZIGZAG = {b: (b >> 1) ^ -(b & 1) for b in range(0x80)}
"""A one-byte Avro ``int`` -> its value; a byte with the continuation bit is missing."""

CodeTable = dict[int, Any]
"""A one-byte Avro ``int`` (the byte) -> what a column holds for it; longer ones are missing."""


def code_table(convert: Callable[[int], Any]) -> CodeTable:
    """The table giving ``convert(value)`` for each one-byte Avro ``int``: a caller that maps
    codes (to enum members, say) gets them from the decode's own pass, not a pass of its own."""
    return {b: convert(value) for b, value in _ZIGZAG.items()}


RAW_CODES: tuple[CodeTable, ...] = (_ZIGZAG,) * 4
"""The tables that keep the four code fields as written."""
_LENGTH = {b: b >> 1 for b in range(0, 0x80, 2)}
"""A one-byte Avro length -> the length; negative (odd) and longer ones are missing."""
_FIXED_ID: Callable[[bytes], bytes] = itemgetter(slice(3, 19))
_AFTER_ID: Callable[[bytes], int] = itemgetter(19)
_FAILED = (KeyError, IndexError, UnicodeDecodeError)

AclColumns = tuple[
    list[bytes], list[Any], list[str], list[Any], list[str], list[str], list[Any], list[Any]
]
"""id bytes, resource type, resource name, pattern type, principal, host, operation,
permission: the fields of ACL record v0, a list each, codes through their tables."""


def acl_columns(values: list[bytes], codes: tuple[CodeTable, ...] = RAW_CODES) -> AclColumns | None:
    """The fields of ``values``, each a framed ACL record v0 (its 3 frame bytes checked by the
    caller), or ``None`` when one of them is not in the one-byte-varint form or is damaged.

    ``codes`` are the :func:`code_table` of the resource type, pattern type, operation and
    permission columns (by default the codes as written)."""
    try:
        return _acl_columns(values, codes)
    except _FAILED:
        return None


def _acl_columns(values: list[bytes], codes: tuple[CodeTable, ...]) -> AclColumns | None:
    # Positions: frame 0-2, id 3-18, resource type 19, name length 20, then from the lengths.
    resource_type, pattern_type, operation, permission = codes
    ids = list(map(_FIXED_ID, values))
    resource_types = list(map(resource_type.__getitem__, map(_AFTER_ID, values)))
    name_ends, names = _strings(values, [20] * len(values))
    pattern_types = _codes(values, name_ends, pattern_type)
    principal_ends, principals = _strings(values, list(map(add, name_ends, repeat(1))))
    host_ends, hosts = _strings(values, principal_ends)
    operations = _codes(values, host_ends, operation)
    permissions = _codes(values, map(add, host_ends, repeat(1)), permission)
    if list(map(add, host_ends, repeat(2))) != list(map(len, values)):
        return None  # bytes left over (or a string cut short): not this layout
    return ids, resource_types, names, pattern_types, principals, hosts, operations, permissions


def _codes(values: list[bytes], at: Iterable[int], table: CodeTable) -> list[Any]:
    """What ``table`` holds for the one-byte Avro ints at positions ``at``."""
    found: Any = map(getitem, values, at)
    return list(map(table.__getitem__, found))


def _strings(values: list[bytes], at: list[int]) -> tuple[list[int], list[str]]:
    """Where the strings whose one-byte length sits at ``at`` end, and the strings."""
    found: Any = map(getitem, values, at)
    lengths = map(_LENGTH.__getitem__, found)
    starts = list(map(add, at, repeat(1)))
    ends = list(map(add, starts, lengths))
    raw: Any = map(getitem, values, map(slice, starts, ends))
    return ends, list(map(bytes.decode, raw))


def remove_acl_ids(values: list[bytes]) -> list[bytes] | None:
    """The id bytes of ``values``, each a framed ACL removal v0, or ``None`` when one is not
    exactly frame + 16 bytes."""
    if set(map(len, values)) != {19}:
        return None
    return list(map(_FIXED_ID, values))
