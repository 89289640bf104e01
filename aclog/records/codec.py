"""Encodes records to framed bytes and back: the one codec of the log, snapshots and tools.

A record value is a frame followed by an Avro body::

    uvarint frame_version (= 1) | uvarint record_type | uvarint version | Avro body

The body is written with fastavro's schemaless writer using the schema of (type, version).
Decoding reads the body with the writer's schema and resolves it to the current schema, so a
record written at an older version decodes to today's dataclass (added fields take their
defaults). An unknown type or version, a bad frame or left-over bytes raise
:class:`RecordDecodeError` naming the offset.

Thread-safe (no shared mutable state). Cost per record: one fastavro call plus one dataclass
construction; enum codes are mapped with dict lookups, not ``IntEnum.__call__``.
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastavro import schemaless_reader, schemaless_writer

from aclog.records.enums import (
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.records.schemas import CURRENT_VERSIONS, known_versions, parsed_schema
from aclog.records.types import (
    RECORD_TYPES,
    AccessControlEntryRecord,
    LeaderChangeRecord,
    NoOpRecord,
    Record,
    RecordType,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    RequestContextRecord,
    UserScramCredentialRecord,
    record_type_name,
)

FRAME_VERSION = 1


class RecordDecodeError(ValueError):
    """A record value that this build cannot decode; the message names the offset."""


@dataclass(frozen=True, slots=True)
class DecodedRecord:
    """A decoded record with the type code and version it was written with."""

    record_type: RecordType
    version: int
    record: Record


def encode(record: Record, version: int | None = None) -> bytes:
    """Frame and encode ``record`` at ``version`` (default: the current version of its type)."""
    record_type = RECORD_TYPES[type(record)]
    if version is None:
        version = CURRENT_VERSIONS[record_type]
    elif version not in known_versions(record_type):
        raise ValueError(f"{type(record).__name__} has no version {version}")
    out = io.BytesIO()
    out.write(_uvarint(FRAME_VERSION) + _uvarint(record_type) + _uvarint(version))
    schemaless_writer(out, parsed_schema(record_type, version), _TO_AVRO[record_type](record))
    return out.getvalue()


def decode(value: bytes, offset: int | None = None) -> Record:
    """Decode one framed record value; ``offset`` only improves error messages."""
    return decode_framed(value, offset).record


def decode_framed(value: bytes, offset: int | None = None) -> DecodedRecord:
    """Decode one framed record value, keeping the type code and version it was written with."""
    record_type, version, start = _read_frame(value, offset)
    stream = io.BytesIO(value)
    stream.seek(start)
    current = CURRENT_VERSIONS[record_type]
    writer = parsed_schema(record_type, version)
    reader = None if version == current else parsed_schema(record_type, current)
    try:
        fields = schemaless_reader(stream, writer, reader)
    except (EOFError, ValueError, TypeError, KeyError, IndexError, UnicodeDecodeError) as err:
        raise RecordDecodeError(
            f"{_where(offset)}: cannot decode the Avro body of "
            f"{record_type_name(record_type)} version {version}: {err}"
        ) from None
    if stream.tell() != len(value):
        raise RecordDecodeError(
            f"{_where(offset)}: {len(value) - stream.tell()} bytes left over after the body of "
            f"{record_type_name(record_type)} version {version}; the record is corrupt"
        )
    return DecodedRecord(record_type, version, _FROM_AVRO[record_type](fields))  # type: ignore[arg-type]


def _read_frame(value: bytes, offset: int | None) -> tuple[RecordType, int, int]:
    try:
        frame_version, pos = _read_uvarint(value, 0)
        type_code, pos = _read_uvarint(value, pos)
        version, pos = _read_uvarint(value, pos)
    except IndexError:
        raise RecordDecodeError(
            f"{_where(offset)}: record value is too short for its frame ({len(value)} bytes)"
        ) from None
    if frame_version != FRAME_VERSION:
        raise RecordDecodeError(
            f"{_where(offset)}: unknown frame version {frame_version} (expected {FRAME_VERSION})"
        )
    try:
        record_type = RecordType(type_code)
    except ValueError:
        raise RecordDecodeError(
            f"{_where(offset)}: unknown record type {type_code} version {version}; "
            "this log was written by a newer aclog, so upgrade aclog to read it"
        ) from None
    if version not in known_versions(record_type):
        raise RecordDecodeError(
            f"{_where(offset)}: unknown version {version} of {record_type_name(type_code)} "
            f"(type {type_code}); this build reads versions 0 to {CURRENT_VERSIONS[record_type]}, "
            "so upgrade aclog to read this log"
        )
    return record_type, version, pos


def _where(offset: int | None) -> str:
    return "record" if offset is None else f"record at offset {offset}"


def _read_uvarint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _uvarint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_RT = {m.value: m for m in ResourceType}
_PT = {m.value: m for m in PatternType}
_OP = {m.value: m for m in AclOperation}
_PERM = {m.value: m for m in AclPermissionType}
_MECH = {m.value: m for m in ScramMechanism}


def _acl_from(d: dict[str, Any]) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        uuid.UUID(bytes=d["id"]),
        _RT.get(d["resource_type"], ResourceType.UNKNOWN),
        d["resource_name"],
        _PT.get(d["pattern_type"], PatternType.UNKNOWN),
        d["principal"],
        d["host"],
        _OP.get(d["operation"], AclOperation.UNKNOWN),
        _PERM.get(d["permission_type"], AclPermissionType.UNKNOWN),
    )


def _acl_to(r: Any) -> dict[str, Any]:
    return {
        "id": r.id.bytes,
        "resource_type": int(r.resource_type),
        "resource_name": r.resource_name,
        "pattern_type": int(r.pattern_type),
        "principal": r.principal,
        "host": r.host,
        "operation": int(r.operation),
        "permission_type": int(r.permission_type),
    }


def _scram_from(d: dict[str, Any]) -> UserScramCredentialRecord:
    return UserScramCredentialRecord(
        d["name"],
        _MECH.get(d["mechanism"], ScramMechanism.UNKNOWN),
        d["salt"],
        d["stored_key"],
        d["server_key"],
        d["iterations"],
    )


def _scram_to(r: Any) -> dict[str, Any]:
    return {
        "name": r.name,
        "mechanism": int(r.mechanism),
        "salt": r.salt,
        "stored_key": r.stored_key,
        "server_key": r.server_key,
        "iterations": r.iterations,
    }


def _context_to(r: Any) -> dict[str, Any]:
    return {
        "principal": r.principal,
        "client_address": r.client_address,
        "client_id": r.client_id,
        "timestamp_ms": r.timestamp_ms,
        "api": r.api,
    }


_TO_AVRO: dict[int, Callable[[Any], dict[str, Any]]] = {
    RecordType.ACCESS_CONTROL_ENTRY: _acl_to,
    RecordType.REMOVE_ACCESS_CONTROL_ENTRY: lambda r: {"id": r.id.bytes},
    RecordType.USER_SCRAM_CREDENTIAL: _scram_to,
    RecordType.REMOVE_USER_SCRAM_CREDENTIAL: lambda r: {
        "name": r.name,
        "mechanism": int(r.mechanism),
    },
    RecordType.NO_OP: lambda r: {},
    RecordType.LEADER_CHANGE: lambda r: {"leader_id": r.leader_id, "epoch": r.epoch},
    RecordType.REQUEST_CONTEXT: _context_to,
}

_FROM_AVRO: dict[int, Callable[[dict[str, Any]], Record]] = {
    RecordType.ACCESS_CONTROL_ENTRY: _acl_from,
    RecordType.REMOVE_ACCESS_CONTROL_ENTRY: lambda d: RemoveAccessControlEntryRecord(
        uuid.UUID(bytes=d["id"])
    ),
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
