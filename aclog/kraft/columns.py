"""Decodes a KRaft batch's metadata record values a field at a time: the batch path of
:func:`aclog.kraft.codec.decode_metadata_value`.

The values are grouped by their three frame bytes. For the four record types aclog reads
(AccessControlEntryRecord, RemoveAccessControlEntryRecord, UserScramCredentialRecord,
RemoveUserScramCredentialRecord, version 0, one-byte frame fields) each group is taken apart
with C-level ``map`` passes over all its values at once, the way
:mod:`aclog.records.columns` reads aclog's own ACL records: the field positions follow from
the compact-string lengths (``uvarint length + 1``), read as ONE byte each. A pass fails on
anything else: a null or longer string (a length byte of 0 or with the continuation bit), a
value that ends early or has bytes left over, a non-empty tagged-field section (Kafka may add
tags; the codec skips them), text that is not UTF-8. Then the whole batch is decoded value by
value with the codec, which decodes it or raises its own :class:`KraftFormatError` naming the
first bad record's offset. Values of other frames (other api keys, NoOpRecord, other versions,
a null value) always go through the codec, after the groups, so the first error in offset
order is the one raised.

Thread-safe (tables are never mutated). Cost: about thirty C-level passes per group and one
builder call per record; no Python bytecode per record on the common path.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from itertools import repeat
from operator import add, getitem, itemgetter
from pathlib import Path
from typing import Any

from aclog.kraft.codec import MetadataValue, decode_metadata_value
from aclog.kraft.schemas import (
    ACCESS_CONTROL_ENTRY,
    REMOVE_ACCESS_CONTROL_ENTRY,
    REMOVE_USER_SCRAM_CREDENTIAL,
    USER_SCRAM_CREDENTIAL,
)
from aclog.records import (
    AclOperation,
    AclPermissionType,
    PatternType,
    Record,
    RemoveUserScramCredentialRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
)
from aclog.records.build import acls_from_columns, remove_acls_from_ids

_COMPACT = {b: b - 1 for b in range(1, 0x80)}
"""A one-byte compact length (``uvarint length + 1``) -> the length; null (0) and longer
lengths are missing."""
_FAILED = (KeyError, IndexError, UnicodeDecodeError, struct.error)
_FIXED_ID: Callable[[bytes], bytes] = itemgetter(slice(3, 19))
_INT32 = struct.Struct(">i")


def _int8_table(convert: Callable[[int], Any]) -> dict[int, Any]:
    """A byte -> ``convert`` of it read as Kafka's signed ``int8``."""
    return {b: convert(b - 256 if b >= 0x80 else b) for b in range(0x100)}


_RESOURCE = _int8_table(ResourceType.from_code)
_PATTERN = _int8_table(PatternType.from_code)
_OPERATION = _int8_table(AclOperation.from_code)
_PERMISSION = _int8_table(AclPermissionType.from_code)
_MECHANISM = _int8_table(ScramMechanism.from_code)


def decode_metadata_values(
    values: list[bytes | None], *, path: Path | str | None = None, first_offset: int = 0
) -> list[MetadataValue]:
    """``[decode_metadata_value(v, path=path, offset=first_offset + i) for i, v in ...]``: the
    same results and the same first error, decoded a group at a time."""
    groups: dict[int, list[int]] = {}
    rest: list[int] = []
    for index, value in enumerate(values):  # one frame comparison per value, no decoding
        api_key = _FAST_FRAMES.get(value[:3]) if value is not None else None
        if api_key is None:
            rest.append(index)
        else:
            groups.setdefault(api_key, []).append(index)
    out: list[MetadataValue | None] = [None] * len(values)
    for api_key, rows in groups.items():
        run: list[bytes] = [values[i] for i in rows]  # type: ignore[misc]
        try:
            records = _RUN_DECODERS[api_key](run)
        except _FAILED:
            records = None
        if records is None:
            return _one_by_one(values, path, first_offset)
        for row, record in zip(rows, records, strict=True):
            out[row] = MetadataValue(api_key, 0, record)
    for i in rest:
        out[i] = decode_metadata_value(values[i], path=path, offset=first_offset + i)
    return out  # type: ignore[return-value]


def _one_by_one(
    values: list[bytes | None], path: Path | str | None, first_offset: int
) -> list[MetadataValue]:
    return [
        decode_metadata_value(v, path=path, offset=first_offset + i) for i, v in enumerate(values)
    ]


def _strings(values: list[bytes], at: list[int]) -> tuple[list[int], list[bytes]]:
    """Where the compact strings (or bytes) whose one-byte length sits at ``at`` end, and
    their bytes; a cut-short value is caught by the caller's end check."""
    found: Any = map(getitem, values, at)
    starts = _after(at, 1)
    ends = list(map(add, starts, map(_COMPACT.__getitem__, found)))
    raw: Any = map(getitem, values, map(slice, starts, ends))
    return ends, list(raw)


def _texts(values: list[bytes], at: list[int]) -> tuple[list[int], list[str]]:
    ends, raw = _strings(values, at)
    return ends, list(map(bytes.decode, raw))


def _codes(values: list[bytes], at: Iterable[int], table: dict[int, Any]) -> list[Any]:
    found: Any = map(getitem, values, at)
    return list(map(table.__getitem__, found))


def _ends_with_no_tags(values: list[bytes], tags_at: list[int]) -> bool:
    """The empty tag section (one zero byte) at ``tags_at``, and nothing after it."""
    found: Any = map(getitem, values, tags_at)
    return not any(found) and list(map(add, tags_at, repeat(1))) == list(map(len, values))


def _after(ends: list[int], skip: int) -> list[int]:
    return list(map(add, ends, repeat(skip)))


def _acls(values: list[bytes]) -> list[Record] | None:
    # frame 0-2, id 3-18, resource type 19, name length 20, then from the lengths.
    ids = list(map(_FIXED_ID, values))
    resource_types = _codes(values, repeat(19), _RESOURCE)
    name_ends, names = _texts(values, [20] * len(values))
    pattern_types = _codes(values, name_ends, _PATTERN)
    principal_ends, principals = _texts(values, _after(name_ends, 1))
    host_ends, hosts = _texts(values, principal_ends)
    operations = _codes(values, host_ends, _OPERATION)
    permissions = _codes(values, _after(host_ends, 1), _PERMISSION)
    if not _ends_with_no_tags(values, _after(host_ends, 2)) or set(map(len, ids)) - {16}:
        return None
    columns = (resource_types, names, pattern_types, principals, hosts, operations, permissions)
    return acls_from_columns(ids, *columns, converted=True)


def _remove_acls(values: list[bytes]) -> list[Record] | None:
    if set(map(len, values)) != {20} or any(map(getitem, values, repeat(19))):
        return None
    return remove_acls_from_ids(list(map(_FIXED_ID, values)))


def _scrams(values: list[bytes]) -> list[Record] | None:
    name_ends, names = _texts(values, [3] * len(values))
    mechanisms = _codes(values, name_ends, _MECHANISM)
    salt_ends, salts = _strings(values, _after(name_ends, 1))
    stored_ends, stored = _strings(values, salt_ends)
    server_ends, server = _strings(values, stored_ends)
    iterations = list(map(itemgetter(0), map(_INT32.unpack_from, values, server_ends)))
    if not _ends_with_no_tags(values, _after(server_ends, 4)):
        return None
    columns = (names, mechanisms, salts, stored, server, iterations)
    return list(map(UserScramCredentialRecord, *columns))


def _remove_scrams(values: list[bytes]) -> list[Record] | None:
    name_ends, names = _texts(values, [3] * len(values))
    mechanisms = _codes(values, name_ends, _MECHANISM)
    if not _ends_with_no_tags(values, _after(name_ends, 1)):
        return None
    return list(map(RemoveUserScramCredentialRecord, names, mechanisms))


_RUN_DECODERS: dict[int, Callable[[list[bytes]], list[Record] | None]] = {
    ACCESS_CONTROL_ENTRY: _acls,
    REMOVE_ACCESS_CONTROL_ENTRY: _remove_acls,
    USER_SCRAM_CREDENTIAL: _scrams,
    REMOVE_USER_SCRAM_CREDENTIAL: _remove_scrams,
}
_FAST_FRAMES: dict[bytes, int] = {bytes((1, key, 0)): key for key in _RUN_DECODERS}
"""The three frame bytes of version 0 of each type decoded here -> its api key."""
