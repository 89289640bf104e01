"""Builds records from their Avro field values: one record at a time, or many at once.

The one-record builders back :func:`aclog.records.codec.decode_framed` and snapshot reading;
the many-record builders back the batch decoder (:mod:`aclog.records.column_records`), KRaft's
and snapshot format 2's ACL columns, and give the same records as the one-record builders.
Enum codes are mapped with dict lookups (an unknown code becomes the enum's ``UNKNOWN``), and
frozen dataclasses are filled through their slot descriptors, skipping the generated
``__init__`` (its ``object.__setattr__`` per field is about half of a record's construction).

Thread-safe (module-level tables are never mutated). Cost: one builder call per record; the
many-record ACL builders make no Python-level call per record (each field is set by a ``map``
over the whole run), about a fifth cheaper per record.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import fields
from itertools import repeat
from typing import Any, Literal

from aclog.records.enums import (
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.records.types import (
    AccessControlEntryRecord,
    LeaderChangeRecord,
    NoOpRecord,
    Record,
    RecordType,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    RequestContextRecord,
    UserScramCredentialRecord,
)

Fields = dict[str, Any]
"""A record's Avro field values at its type's current version."""

_RT = {m.value: m for m in ResourceType}
_PT = {m.value: m for m in PatternType}
_OP = {m.value: m for m in AclOperation}
_PERM = {m.value: m for m in AclPermissionType}
_MECH = {m.value: m for m in ScramMechanism}
_UNKNOWN = (
    ResourceType.UNKNOWN,
    PatternType.UNKNOWN,
    AclOperation.UNKNOWN,
    AclPermissionType.UNKNOWN,
)

_new_object = object.__new__
_SAFE_UNKNOWN = uuid.SafeUUID.unknown
_from_bytes: Callable[[bytes, Literal["big"]], int] = int.from_bytes
_BIG: Literal["big"] = "big"
consume: Callable[[Iterable[object]], None] = deque[object](maxlen=0).extend
"""Runs an iterator to its end in C, keeping nothing (drives the ``map`` of slot setters)."""


def _slot_setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    """The ``__set__`` of ``cls``'s slot ``name``: it stores a value in C, bypassing the
    frozen ``__setattr__`` (which refuses) and ``object.__setattr__`` (a name lookup per call)."""
    setter: Callable[[Any, Any], None] = cls.__dict__[name].__set__
    return setter


_set_uuid_int = _slot_setter(uuid.UUID, "int")
_set_uuid_safe = _slot_setter(uuid.UUID, "is_safe")


def _uuid(raw: bytes) -> uuid.UUID:
    """``uuid.UUID(bytes=raw)`` without its argument checks (most of the cost); the Avro
    fixed(16) type already guarantees 16 bytes."""
    value = _new_object(uuid.UUID)
    _set_uuid_int(value, _from_bytes(raw, "big"))
    _set_uuid_safe(value, _SAFE_UNKNOWN)
    return value


def _uuids(raws: list[bytes]) -> list[uuid.UUID]:
    """``[_uuid(raw) for raw in raws]``, a slot at a time."""
    values = list(map(_new_object, repeat(uuid.UUID, len(raws))))
    consume(map(_set_uuid_int, values, map(_from_bytes, raws, repeat(_BIG))))
    consume(map(_set_uuid_safe, values, repeat(_SAFE_UNKNOWN)))
    return values


_ACL_FIELDS = tuple(field.name for field in fields(AccessControlEntryRecord))
_ACL_SETTERS = tuple(_slot_setter(AccessControlEntryRecord, name) for name in _ACL_FIELDS)
_set_remove_id = _slot_setter(RemoveAccessControlEntryRecord, "id")


def _acl_from(
    d: Fields,
    _setters: tuple[Callable[[Any, Any], None], ...] = _ACL_SETTERS,
    _rt: Callable[[int, Any], Any] = _RT.get,
    _pt: Callable[[int, Any], Any] = _PT.get,
    _op: Callable[[int, Any], Any] = _OP.get,
    _perm: Callable[[int, Any], Any] = _PERM.get,
    _unknown: tuple[Any, ...] = _UNKNOWN,
) -> AccessControlEntryRecord:
    # The hottest one-record builder: slot setters, enum lookups and the UUID construction
    # are bound as defaults (local loads). Same result as the constructor.
    record: AccessControlEntryRecord = _new_object(AccessControlEntryRecord)
    set_id, set_rt, set_name, set_pt, set_principal, set_host, set_op, set_perm = _setters
    set_id(record, _uuid(d["id"]))
    set_rt(record, _rt(d["resource_type"], _unknown[0]))
    set_name(record, d["resource_name"])
    set_pt(record, _pt(d["pattern_type"], _unknown[1]))
    set_principal(record, d["principal"])
    set_host(record, d["host"])
    set_op(record, _op(d["operation"], _unknown[2]))
    set_perm(record, _perm(d["permission_type"], _unknown[3]))
    return record


# The enum lookup and its default for unknown codes, or None, of every ACL field but the id.
_ACL_CODES = (
    (_RT, _UNKNOWN[0]),
    None,
    (_PT, _UNKNOWN[1]),
    None,
    None,
    (_OP, _UNKNOWN[2]),
    (_PERM, _UNKNOWN[3]),
)


ACL_CODE_TABLES: tuple[tuple[dict[int, Any], Any], ...] = tuple(
    codes for codes in _ACL_CODES if codes is not None
)
"""(code -> enum member, the member for a code without one) of the resource type, pattern
type, operation and permission of an ACL, as every builder here maps them: for a decoder that
maps codes in a pass of its own (and then passes ``converted=True``)."""


def acls_from_columns(
    ids: list[bytes],
    *columns: list[Any],
    converted: bool = False,
) -> list[Record]:
    """The ACL records whose field values are ``ids`` (16 bytes each) and ``columns`` (resource
    type code, name, pattern type code, principal, host, operation code, permission code, one
    list each): ``_acl_from`` of each row, a field at a time over the whole run.

    ``converted``: the code columns hold enum members already (``UNKNOWN`` for a code without
    one), not codes."""
    records: list[Record] = list(map(_new_object, repeat(AccessControlEntryRecord, len(ids))))
    consume(map(_ACL_SETTERS[0], records, _uuids(ids)))
    for setter, values, codes in zip(_ACL_SETTERS[1:], columns, _ACL_CODES, strict=True):
        column: Any = values
        if codes is not None and not converted:
            column = map(codes[0].get, values, repeat(codes[1]))
        consume(map(setter, records, column))
    return records


def _remove_acl_from(d: Fields) -> RemoveAccessControlEntryRecord:
    record: RemoveAccessControlEntryRecord = _new_object(RemoveAccessControlEntryRecord)
    _set_remove_id(record, _uuid(d["id"]))
    return record


def remove_acls_from_ids(ids: list[bytes]) -> list[Record]:
    """The ACL removals of the ids ``ids`` (16 bytes each), a slot at a time."""
    records: list[Record] = list(map(_new_object, repeat(RemoveAccessControlEntryRecord, len(ids))))
    consume(map(_set_remove_id, records, _uuids(ids)))
    return records


def _scram_from(d: Fields) -> UserScramCredentialRecord:
    return UserScramCredentialRecord(
        d["name"],
        _MECH.get(d["mechanism"], ScramMechanism.UNKNOWN),
        d["salt"],
        d["stored_key"],
        d["server_key"],
        d["iterations"],
    )


FROM_AVRO: dict[int, Callable[[Fields], Record]] = {
    RecordType.ACCESS_CONTROL_ENTRY: _acl_from,
    RecordType.REMOVE_ACCESS_CONTROL_ENTRY: _remove_acl_from,
    RecordType.USER_SCRAM_CREDENTIAL: _scram_from,
    RecordType.REMOVE_USER_SCRAM_CREDENTIAL: lambda d: RemoveUserScramCredentialRecord(
        d["name"], _MECH.get(d["mechanism"], ScramMechanism.UNKNOWN)
    ),
    RecordType.NO_OP: lambda d: NoOpRecord(),
    RecordType.LEADER_CHANGE: lambda d: LeaderChangeRecord(d["leader_id"], d["epoch"]),
    RecordType.REQUEST_CONTEXT: lambda d: RequestContextRecord(
        d["principal"], d["client_address"], d["client_id"], d["timestamp_ms"], d["api"]
    ),
}
"""Record type -> the builder of one record from its current-version fields."""

FROM_FIELDS: dict[int, Callable[..., Record]] = {
    RecordType.REQUEST_CONTEXT: RequestContextRecord,
    RecordType.LEADER_CHANGE: LeaderChangeRecord,
}
"""Record type -> its class, for the types whose class takes the current-version fields as
they are, in schema order (a test holds the two orders equal): a decoder with the fields in
columns builds these records without a dict each, which was most of the cost of decoding the
request context that leads every batch of a log written one request at a time."""
