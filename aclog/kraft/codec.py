"""Decoding KRaft record values: the metadata-record frame, the four ACL/SCRAM bodies, and the
control records that matter (leader change, snapshot header and footer).

A metadata record value is (spec section 12)::

    uvarint frame_version (= 1) | uvarint api_key | uvarint version | flexible-version body

The bodies of AccessControlEntryRecord (18), RemoveAccessControlEntryRecord (19),
UserScramCredentialRecord (11) and RemoveUserScramCredentialRecord (22) are decoded by
kafka-python's schema-driven codec from the schemas in :mod:`aclog.kraft.schemas`; the trailing
tagged-field section is walked strictly (:func:`aclog.varint.skip_tagged_fields`), so a truncated
tag is an error rather than a short read (Kafka ignores unknown tags, and so do we). NoOpRecord
(20) has only the tag section. Any other api key is skipped by its frame: the result has
``record=None`` and the caller counts it.

Errors (:class:`KraftFormatError`) name the file, offset, api key and version: a bad frame, a
version of one of the decoded types whose layout is unknown, a body that does not parse, bytes
left over, or a null where Kafka's schema does not allow one.

Control-record values carry no frame: the key is ``int16 version | int16 type`` and the value the
bare message (for example SnapshotFooterRecord ``0000 00``).

Thread-safe (no shared mutable state). Cost: skipping a record reads three bytes; decoding one
of the four is one kafka-python struct decode plus a dataclass. This is the
reference: the batches of a log or snapshot are decoded by :mod:`aclog.kraft.columns`, which
falls back to it for anything unusual.
"""

from __future__ import annotations

import io
import struct
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aclog.kraft.errors import KraftFormatError
from aclog.kraft.schemas import (
    ACCESS_CONTROL_ENTRY,
    KNOWN_VERSIONS,
    NO_OP,
    REMOVE_ACCESS_CONTROL_ENTRY,
    REMOVE_USER_SCRAM_CREDENTIAL,
    STRUCTS,
    USER_SCRAM_CREDENTIAL,
    control_name,
    record_name,
)
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    NoOpRecord,
    PatternType,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
)
from aclog.varint import read_uvarint, skip_tagged_fields

FRAME_VERSION = 1
MAX_FRAME_FIELD = 32767  # Kafka reads frame version, api key and version as unsigned shorts

LEADER_CHANGE = 2
SNAPSHOT_HEADER = 3
SNAPSHOT_FOOTER = 4

_CONTROL_KEY = struct.Struct(">hh")
_LEADER_CHANGE_PREFIX = struct.Struct(">hi")  # Version int16, LeaderId int32
_SNAPSHOT_HEADER_PREFIX = struct.Struct(">hq")  # Version int16, LastContainedLogTimestamp int64
_ZERO_UUID = uuid.UUID(int=0)


@dataclass(frozen=True, slots=True)
class MetadataValue:
    """One decoded metadata record value; ``record`` is ``None`` for a skipped api key."""

    api_key: int
    version: int
    record: Record | None


def decode_metadata_value(
    value: bytes | None, *, path: Path | str | None = None, offset: int | None = None
) -> MetadataValue:
    """Decode one framed metadata record value; ``path`` and ``offset`` go into errors."""
    if value is None:
        raise KraftFormatError(path, offset, "bad frame: the record has a null value")
    api_key, version, start = read_frame(value, path=path, offset=offset)
    decoder = _DECODERS.get(api_key)
    if decoder is None:
        return MetadataValue(api_key, version, None)
    if version not in KNOWN_VERSIONS[api_key]:
        if api_key == NO_OP:
            # A NoOpRecord changes no state at any version; its newer fields do not matter.
            return MetadataValue(api_key, version, NoOpRecord())
        known = ", ".join(str(v) for v in sorted(KNOWN_VERSIONS[api_key]))
        raise KraftFormatError(
            path,
            offset,
            f"{record_name(api_key)} (api key {api_key}) version {version} is newer than this "
            f"build understands (it reads version {known}); its layout is unknown, so the "
            "ACL and SCRAM state cannot be read safely. Upgrade aclog to read this log",
            api_key=api_key,
            version=version,
        )
    return MetadataValue(api_key, version, decoder(value, start, path, offset))


def read_frame(
    value: bytes, *, path: Path | str | None = None, offset: int | None = None
) -> tuple[int, int, int]:
    """(api key, version, where the body starts) of a framed value; raise on a bad frame."""
    if len(value) >= 3 and value[0] == FRAME_VERSION and value[1] < 0x80 and value[2] < 0x80:
        return value[1], value[2], 3  # the frame of every record Kafka writes today
    try:
        frame_version, pos = read_uvarint(value, 0)
        api_key, pos = read_uvarint(value, pos)
        version, pos = read_uvarint(value, pos)
    except IndexError:
        raise KraftFormatError(
            path, offset, f"bad frame: {len(value)} bytes do not hold a whole frame"
        ) from None
    except ValueError:
        raise KraftFormatError(path, offset, "bad frame: a varint is longer than 5 bytes") from None
    if frame_version != FRAME_VERSION:
        raise KraftFormatError(
            path,
            offset,
            f"bad frame: frame version {frame_version}, expected {FRAME_VERSION} (version 0 was "
            "a pre-release KRaft format; anything else is not a KRaft metadata record)",
            api_key=api_key,
            version=version,
        )
    if api_key > MAX_FRAME_FIELD or version > MAX_FRAME_FIELD:
        raise KraftFormatError(
            path,
            offset,
            f"bad frame: api key {api_key} version {version} is out of range (at most "
            f"{MAX_FRAME_FIELD})",
            api_key=api_key,
            version=version,
        )
    return api_key, version, pos


def _body_error(
    api_key: int, path: Path | str | None, offset: int | None, reason: str
) -> KraftFormatError:
    return KraftFormatError(
        path,
        offset,
        f"the body of {record_name(api_key)} (api key {api_key}) version 0 does not parse: "
        f"{reason}",
        api_key=api_key,
        version=0,
    )


def _decode_fields(
    api_key: int, value: bytes, start: int, path: Path | str | None, offset: int | None
) -> dict[str, Any]:
    """The untagged fields of a version-0 body, decoded by kafka-python, then the tag section."""
    stream = io.BytesIO(value)
    stream.seek(start)
    try:
        fields: dict[str, Any] = STRUCTS[api_key].decode(
            stream, version=0, compact=True, tagged=False
        )
        end = skip_tagged_fields(value, stream.tell())
    except (struct.error, ValueError, UnicodeDecodeError, IndexError, TypeError) as err:
        raise _body_error(api_key, path, offset, str(err) or type(err).__name__) from None
    if end != len(value):
        raise _body_error(api_key, path, offset, f"{len(value) - end} bytes left over")
    for name, field_value in fields.items():
        if field_value is None and name != "id":  # uuid zero decodes to None; Kafka allows it
            raise _body_error(api_key, path, offset, f"non-nullable field {name} is null")
    return fields


def _uuid(value: uuid.UUID | None) -> uuid.UUID:
    return _ZERO_UUID if value is None else value


def _acl(value: bytes, start: int, path: Path | str | None, offset: int | None) -> Record:
    f = _decode_fields(ACCESS_CONTROL_ENTRY, value, start, path, offset)
    return AccessControlEntryRecord(
        _uuid(f["id"]),
        ResourceType.from_code(f["resource_type"]),
        f["resource_name"],
        PatternType.from_code(f["pattern_type"]),
        f["principal"],
        f["host"],
        AclOperation.from_code(f["operation"]),
        AclPermissionType.from_code(f["permission_type"]),
    )


def _remove_acl(value: bytes, start: int, path: Path | str | None, offset: int | None) -> Record:
    f = _decode_fields(REMOVE_ACCESS_CONTROL_ENTRY, value, start, path, offset)
    return RemoveAccessControlEntryRecord(_uuid(f["id"]))


def _scram(value: bytes, start: int, path: Path | str | None, offset: int | None) -> Record:
    f = _decode_fields(USER_SCRAM_CREDENTIAL, value, start, path, offset)
    return UserScramCredentialRecord(
        f["name"],
        ScramMechanism.from_code(f["mechanism"]),
        bytes(f["salt"]),
        bytes(f["stored_key"]),
        bytes(f["server_key"]),
        f["iterations"],
    )


def _remove_scram(value: bytes, start: int, path: Path | str | None, offset: int | None) -> Record:
    f = _decode_fields(REMOVE_USER_SCRAM_CREDENTIAL, value, start, path, offset)
    return RemoveUserScramCredentialRecord(f["name"], ScramMechanism.from_code(f["mechanism"]))


def _no_op(value: bytes, start: int, path: Path | str | None, offset: int | None) -> Record:
    try:
        end = skip_tagged_fields(value, start)
    except (IndexError, ValueError) as err:
        raise _body_error(NO_OP, path, offset, str(err)) from None
    if end != len(value):
        raise _body_error(NO_OP, path, offset, f"{len(value) - end} bytes left over")
    return NoOpRecord()


_DECODERS: dict[int, Callable[[bytes, int, Path | str | None, int | None], Record]] = {
    ACCESS_CONTROL_ENTRY: _acl,
    REMOVE_ACCESS_CONTROL_ENTRY: _remove_acl,
    USER_SCRAM_CREDENTIAL: _scram,
    REMOVE_USER_SCRAM_CREDENTIAL: _remove_scram,
    NO_OP: _no_op,
}


def control_record_type(
    key: bytes | None, *, path: Path | str | None = None, offset: int | None = None
) -> int:
    """The ``ControlRecordType`` in a control record's 4-byte key."""
    if key is None or len(key) != _CONTROL_KEY.size:
        size = "a null key" if key is None else f"a {len(key)}-byte key"
        raise KraftFormatError(path, offset, f"bad control record: {size}, expected 4 bytes")
    return int(_CONTROL_KEY.unpack(key)[1])


def leader_change_leader(
    value: bytes | None, *, path: Path | str | None = None, offset: int | None = None
) -> int:
    """The LeaderId of a LeaderChangeMessage value (the field after its int16 Version)."""
    return int(_control_prefix(_LEADER_CHANGE_PREFIX, LEADER_CHANGE, value, path, offset)[1])


def snapshot_header_timestamp(
    value: bytes | None, *, path: Path | str | None = None, offset: int | None = None
) -> int:
    """The LastContainedLogTimestamp of a SnapshotHeaderRecord value."""
    return int(_control_prefix(_SNAPSHOT_HEADER_PREFIX, SNAPSHOT_HEADER, value, path, offset)[1])


def _control_prefix(
    layout: struct.Struct,
    control_type: int,
    value: bytes | None,
    path: Path | str | None,
    offset: int | None,
) -> tuple[Any, ...]:
    if value is None or len(value) < layout.size:
        size = "null" if value is None else f"{len(value)} bytes"
        raise KraftFormatError(
            path,
            offset,
            f"bad {control_name(control_type)}: the value is {size}, expected at least "
            f"{layout.size} bytes",
        )
    return layout.unpack_from(value)
