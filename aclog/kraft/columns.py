"""Decodes a KRaft batch's metadata record values a field at a time: the batch path of
:func:`aclog.kraft.codec.decode_metadata_value`.

The values are grouped by their three frame bytes. For the four record types aclog reads
(AccessControlEntryRecord, RemoveAccessControlEntryRecord, UserScramCredentialRecord,
RemoveUserScramCredentialRecord, version 0, one-byte frame fields) each group is taken apart
with C-level ``map`` passes over all its values at once: the field positions follow from
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
from collections.abc import Callable, Iterable, Sequence
from itertools import compress, repeat
from operator import add, eq, getitem, is_, itemgetter
from pathlib import Path
from typing import Any

from aclog.kraft.codec import decode_metadata_value
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
from aclog.records.build import acls_from_columns, consume, remove_acls_from_ids

_COMPACT = {b: b - 1 for b in range(1, 0x80)}
"""A one-byte compact length (``uvarint length + 1``) -> the length; null (0) and longer
lengths are missing."""
_FAILED = (KeyError, IndexError, UnicodeDecodeError, struct.error, TypeError)
"""What a pass raises on values it does not read (TypeError: a value that is not ``bytes``)."""
_FIXED_ID: Callable[[bytes], bytes] = itemgetter(slice(3, 19))
_FRAME: Callable[[bytes], bytes] = itemgetter(slice(0, 3))
_INT32 = struct.Struct(">i")


def _int8_table(convert: Callable[[int], Any]) -> dict[int, Any]:
    """A byte -> ``convert`` of it read as Kafka's signed ``int8``."""
    return {b: convert(b - 256 if b >= 0x80 else b) for b in range(0x100)}


_RESOURCE = _int8_table(ResourceType.from_code)
_PATTERN = _int8_table(PatternType.from_code)
_OPERATION = _int8_table(AclOperation.from_code)
_PERMISSION = _int8_table(AclPermissionType.from_code)
_MECHANISM = _int8_table(ScramMechanism.from_code)


Decoded = tuple[list[int], list[Record | None]]
"""The api key and the record (``None``: a skipped api key) of each value, in order."""


def decode_metadata_values(
    values: Sequence[bytes | None], *, path: Path | str | None = None, first_offset: int = 0
) -> Decoded:
    """The api key and record of each value as :func:`decode_metadata_value` gives them at
    offset ``first_offset + index``, with the same first error, decoded a group at a time."""
    try:
        frames: list[bytes] = list(map(_FRAME, values))  # type: ignore[arg-type]
        kinds = set(frames)
    except TypeError:  # a null value (the codec names it) or one that is not ``bytes``
        return _one_by_one(values, path, first_offset)
    if len(kinds) == 1 and frames[0] in _FAST_FRAMES:  # a batch of one type: the common case
        api_key = _FAST_FRAMES[frames[0]]
        records = _run(api_key, values)  # type: ignore[arg-type]
        if records is None:
            return _one_by_one(values, path, first_offset)
        return [api_key] * len(values), list[Record | None](records)
    return _grouped(values, frames, path, first_offset)


def _grouped(
    values: Sequence[bytes | None], frames: list[bytes], path: Path | str | None, first_offset: int
) -> Decoded:
    """A batch mixing types: each fast group in one go, then the rest one by one in order."""
    keys: list[int | None] = list(map(_FAST_FRAMES.get, frames))
    api_keys: list[int] = [0] * len(values)
    out: list[Record | None] = [None] * len(values)
    for api_key in {k for k in set(keys) if k is not None}:
        rows = list(compress(range(len(values)), map(eq, keys, repeat(api_key))))
        records = _run(api_key, list(map(values.__getitem__, rows)))  # type: ignore[arg-type]
        if records is None:
            return _one_by_one(values, path, first_offset)
        consume(map(out.__setitem__, rows, records))
        consume(map(api_keys.__setitem__, rows, repeat(api_key)))
    for i in compress(range(len(values)), map(is_, keys, repeat(None))):
        decoded = decode_metadata_value(values[i], path=path, offset=first_offset + i)
        api_keys[i], out[i] = decoded.api_key, decoded.record
    return api_keys, out


def _run(api_key: int, values: list[bytes]) -> list[Record] | None:
    """The records of ``values``, all framed as ``api_key`` v0, or ``None`` when a pass fails."""
    try:
        return _RUN_DECODERS[api_key](values)
    except _FAILED:
        return None


def _one_by_one(
    values: Sequence[bytes | None], path: Path | str | None, first_offset: int
) -> Decoded:
    decoded = [
        decode_metadata_value(v, path=path, offset=first_offset + i) for i, v in enumerate(values)
    ]
    return [d.api_key for d in decoded], [d.record for d in decoded]


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
    if not _ends_with_no_tags(values, _after(host_ends, 2)):  # byte 19 was read: ids are whole
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
