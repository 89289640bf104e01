"""Encodes many records at once: the batch path of :func:`aclog.records.codec.encode`.

A batch mostly holds ACL records. fastavro writes a record's body field by field through its
generic schema walk (about four fifths of ``encode``'s cost, and as much per item of an array
as per call), so the bodies of ACL records at the versions below are assembled here instead,
a field at a time over the whole run with C-level ``map`` passes: the UUID's 16 bytes, enum
codes and string lengths as zigzag varints (Avro's ``int`` and length encoding), strings as
UTF-8. The bytes are those :func:`~aclog.records.codec.encode` writes; property tests compare
them with fastavro's for arbitrary records, and the golden-bytes tests pin both.

Only the layouts written here are taken: an ACL record (v0: fixed(16) id, int, string, int,
string, string, int, int) and an ACL removal (v0: fixed(16) id), at the current version, with
fields of exactly the declared Python types. Any other record, a field of another type, or a
value this table does not cover (a string of 8 KiB or more) is encoded by ``encode``, which
also raises its own error for a value it refuses.

Thread-safe (module-level tables are never mutated). Cost: about fifteen C-level passes per
field column; no Python call per ACL record.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import attrgetter, is_
from typing import Any, Literal

from aclog.records.build import consume
from aclog.records.codec import encode, frame_of
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.schemas import CURRENT_VERSIONS
from aclog.records.types import (
    RECORD_TYPES,
    AccessControlEntryRecord,
    Record,
    RecordType,
    RemoveAccessControlEntryRecord,
)
from aclog.varint import zigzag

MIN_RUN = 4
"""Fewer records of one class are encoded one by one."""
_ZIGZAG = {n: zigzag(n) for n in range(8192)}
"""Avro ``int``/length encodings of the small non-negative values codes and lengths take."""
_BIG: Literal["big"] = "big"
_to_bytes: Callable[[int, int, Literal["big"]], bytes] = int.to_bytes
_id_ints = attrgetter("id.int")
_get_id = attrgetter("id")


class _Refused(Exception):
    """A run this module does not encode; ``encode`` takes each of its records."""


def encode_many(records: Sequence[Record]) -> list[bytes]:
    """``[encode(r) for r in records]``: the same bytes, cheaper for runs of ACL records."""
    classes = list(map(type, records))
    out: list[bytes | None] = [None] * len(records)
    for cls in dict.fromkeys(classes):
        body_parts = _COLUMNS.get(cls)
        indices = list(compress(range(len(classes)), map(is_, classes, repeat(cls))))
        if body_parts is None or len(indices) < MIN_RUN:
            continue
        run = list(map(records.__getitem__, indices))
        record_type = RECORD_TYPES[cls]
        frame = frame_of(record_type, CURRENT_VERSIONS[record_type])
        try:
            values = list(map(b"".join, zip(repeat(frame), *body_parts(run))))
        except (_Refused, KeyError, TypeError, AttributeError):
            continue
        consume(map(out.__setitem__, indices, values))
    return [encode(records[i]) if value is None else value for i, value in enumerate(out)]


def _ids(run: list[Any]) -> list[bytes]:
    if not set(map(type, map(_get_id, run))) <= {uuid.UUID}:
        raise _Refused
    return list(map(_to_bytes, map(_id_ints, run), repeat(16), repeat(_BIG)))


def _codes(run: list[Any], name: str, enum: type) -> list[bytes]:
    column = list(map(attrgetter(name), run))
    if not set(map(type, column)) <= {enum, int}:
        raise _Refused
    return list(map(_ZIGZAG.__getitem__, column))


def _strings(run: list[Any], name: str) -> tuple[list[bytes], list[bytes]]:
    """The length prefixes and UTF-8 bytes of the string field ``name``."""
    column = list(map(attrgetter(name), run))
    if not set(map(type, column)) <= {str}:
        raise _Refused
    encoded = list(map(str.encode, column))
    return list(map(_ZIGZAG.__getitem__, map(len, encoded))), encoded


def _acl_parts(run: list[Any]) -> list[list[bytes]]:
    """The columns of bytes whose concatenation, row by row, is each ACL record's v0 body."""
    name_lengths, names = _strings(run, "resource_name")
    principal_lengths, principals = _strings(run, "principal")
    host_lengths, hosts = _strings(run, "host")
    return [
        _ids(run),
        _codes(run, "resource_type", ResourceType),
        name_lengths,
        names,
        _codes(run, "pattern_type", PatternType),
        principal_lengths,
        principals,
        host_lengths,
        hosts,
        _codes(run, "operation", AclOperation),
        _codes(run, "permission_type", AclPermissionType),
    ]


def _remove_parts(run: list[Any]) -> list[list[bytes]]:
    """The one column of an ACL removal's v0 body: the id."""
    return [_ids(run)]


# The layouts above are those of version 0; a newer current version goes through ``encode``.
_COLUMNS: dict[type, Callable[[list[Any]], list[list[bytes]]]] = {
    cls: parts
    for cls, parts in (
        (AccessControlEntryRecord, _acl_parts),
        (RemoveAccessControlEntryRecord, _remove_parts),
    )
    if CURRENT_VERSIONS[RecordType(RECORD_TYPES[cls])] == 0
}
