"""Encodes records to framed bytes and back: the one codec of the log, snapshots and tools.

A record value is a frame followed by an Avro body::

    uvarint frame_version (= 1) | uvarint record_type | uvarint version | Avro body

The body is written with fastavro's schemaless writer using the schema of (type, version).
Decoding reads the body with the writer's schema and resolves it to the current schema, so a
record written at an older version decodes to today's dataclass (added fields take their
defaults). An unknown type or version, a bad frame or left-over bytes raise
:class:`RecordDecodeError` naming the offset.

Thread-safe (no shared mutable state). Cost per record: one fastavro call plus one dataclass
construction (:mod:`aclog.records.build`).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from fastavro import schemaless_reader, schemaless_writer

from aclog.records.build import FROM_AVRO
from aclog.records.schemas import CURRENT_VERSIONS, known_versions, parsed_schema
from aclog.records.types import RECORD_TYPES, Record, RecordType, record_type_name
from aclog.varint import read_uvarint, uvarint

FRAME_VERSION = 1


class RecordDecodeError(ValueError):
    """A record value that this build cannot decode; the message names the offset."""


DecodedKind = tuple[RecordType, int]
"""The (type code, version) a record was written with."""


@dataclass(frozen=True, slots=True)
class DecodedRecord:
    """A decoded record with the type code and version it was written with."""

    record_type: RecordType
    version: int
    record: Record

    @property
    def kind(self) -> DecodedKind:
        """``(record_type, version)``."""
        return (self.record_type, self.version)


def encode(record: Record, version: int | None = None) -> bytes:
    """Frame and encode ``record`` at ``version`` (default: the current version of its type).

    The frame is three unsigned varints (the frame version, the record type code and the
    version), then the Avro body:

    >>> from aclog.records import NoOpRecord
    >>> encode(NoOpRecord())
    b'\\x01\\x14\\x00'
    >>> decode(encode(NoOpRecord()))
    NoOpRecord()
    """
    if version is None:
        frame, schema, to_avro = _WRITERS[type(record)]
    else:
        record_type = RECORD_TYPES[type(record)]
        if version not in known_versions(record_type):
            raise ValueError(f"{type(record).__name__} has no version {version}")
        frame = frame_of(record_type, version)
        schema, to_avro = parsed_schema(record_type, version), _TO_AVRO[record_type]
    out = io.BytesIO()
    out.write(frame)
    schemaless_writer(out, schema, to_avro(record))
    return out.getvalue()


def decode(value: bytes, offset: int | None = None) -> Record:
    """Decode one framed record value; ``offset`` only improves error messages.

    Bytes that are not a record raise :class:`RecordDecodeError`, naming what is wrong:

    >>> try:
    ...     decode(b"\\x00\\x01", offset=7)
    ... except RecordDecodeError as error:
    ...     print(error)
    record at offset 7: record value is too short for its frame (2 bytes)
    """
    return decode_framed(value, offset).record


def decode_framed(value: bytes, offset: int | None = None) -> DecodedRecord:
    """Decode one framed record value, keeping the type code and version it was written with."""
    plan, fields = _decode_body(value, offset)
    return DecodedRecord(plan.record_type, plan.version, plan.build(fields))


def decode_avro_fields(
    value: bytes, offset: int | None = None
) -> tuple[DecodedKind, dict[str, Any]]:
    """The (type, version) of one framed record value and its Avro field values resolved to the
    current version, enum fields as the codes written: what :func:`decode_framed` builds its
    record from, with the same checks and errors (the reference of
    :mod:`aclog.records.columnar`)."""
    plan, fields = _decode_body(value, offset)
    return plan.kind, fields


def _decode_body(value: bytes, offset: int | None) -> tuple[Plan, dict[str, Any]]:
    plan = _PLANS.get(value[:3])
    if plan is not None:  # the frame of every record type below 128: three single bytes
        start = 3
    elif (plan := _LONG_PLANS.get(value[:4])) is not None:  # 128 and up: a request context
        start = 4
    else:
        record_type, version, start = _read_frame(value, offset)
        plan = _plan(record_type, version)
    stream = io.BytesIO(value)
    stream.seek(start)
    try:
        fields: Any = schemaless_reader(stream, plan.writer, plan.reader)
    except (EOFError, ValueError, TypeError, KeyError, IndexError, UnicodeDecodeError) as err:
        raise RecordDecodeError(
            f"{_where(offset)}: cannot decode the Avro body of "
            f"{record_type_name(plan.record_type)} version {plan.version}: {err}"
        ) from None
    if stream.tell() != len(value):
        raise RecordDecodeError(
            f"{_where(offset)}: {len(value) - stream.tell()} bytes left over after the body of "
            f"{record_type_name(plan.record_type)} version {plan.version}; the record is corrupt"
        )
    return plan, fields


@dataclass(frozen=True, slots=True)
class Plan:
    """How to decode one (type, version): its schemas and the dataclass builder."""

    record_type: RecordType
    version: int
    writer: Any
    reader: Any
    build: Callable[[dict[str, Any]], Record]
    kind: DecodedKind


def _plan(record_type: RecordType, version: int) -> Plan:
    current = CURRENT_VERSIONS[record_type]
    return Plan(
        record_type,
        version,
        parsed_schema(record_type, version),
        None if version == current else parsed_schema(record_type, current),
        FROM_AVRO[record_type],
        (record_type, version),
    )


def _read_frame(value: bytes, offset: int | None) -> tuple[RecordType, int, int]:
    try:
        frame_version, pos = read_uvarint(value, 0)
        type_code, pos = read_uvarint(value, pos)
        version, pos = read_uvarint(value, pos)
    except IndexError:
        raise RecordDecodeError(
            f"{_where(offset)}: record value is too short for its frame ({len(value)} bytes)"
        ) from None
    except ValueError:
        raise RecordDecodeError(
            f"{_where(offset)}: a varint of the frame runs over 5 bytes"
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


@cache
def frame_of(record_type: int, version: int) -> bytes:
    """The frame bytes that start every value of ``record_type`` at ``version``."""
    return uvarint(FRAME_VERSION) + uvarint(record_type) + uvarint(version)


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


# Decoding plans keyed by the three frame bytes of every (type, version) whose type code fits in
# one byte, so the common case costs one dict lookup instead of three varint reads.
_PLANS: dict[bytes, Plan] = {
    bytes((FRAME_VERSION, record_type, version)): _plan(record_type, version)
    for record_type in RecordType
    if record_type < 0x80
    for version in known_versions(record_type)
}

# The same for the four frame bytes of the types from 128 to 255 (leader changes and the
# request context that leads every batch a controller writes), at versions below 128.
_LONG_PLANS: dict[bytes, Plan] = {
    frame_of(record_type, version): _plan(record_type, version)
    for record_type in RecordType
    if 0x80 <= record_type < 0x100
    for version in known_versions(record_type)
    if version < 0x80
}

# What ``encode`` needs per record class at its current version, looked up once per call.
_WRITERS: dict[type, tuple[bytes, Any, Callable[[Any], dict[str, Any]]]] = {
    cls: (
        frame_of(code, CURRENT_VERSIONS[code]),
        parsed_schema(code, CURRENT_VERSIONS[code]),
        _TO_AVRO[code],
    )
    for cls, code in RECORD_TYPES.items()
}


def record_to_fields(record: Record) -> dict[str, Any]:
    """The Avro field values of ``record`` at its current version (for container files)."""
    return _TO_AVRO[RECORD_TYPES[type(record)]](record)


def record_from_fields(record_type: RecordType, fields: dict[str, Any]) -> Record:
    """The record of ``record_type`` whose current-version Avro fields are ``fields``."""
    return FROM_AVRO[record_type](fields)


def record_builder(record_type: RecordType) -> Callable[[dict[str, Any]], Record]:
    """What :func:`record_from_fields` calls for ``record_type``, for loops over many records."""
    return FROM_AVRO[record_type]
