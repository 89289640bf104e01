"""Frame and body errors, skipped types, and the edges of the four record layouts."""

from __future__ import annotations

import uuid

import pytest

from aclog.kraft import KraftFormatError, decode_metadata_value
from aclog.kraft.encoding import compact_string, encode_record, frame
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    NoOpRecord,
    PatternType,
    RemoveAccessControlEntryRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
)
from aclog.varint import uvarint
from tests.kraft.fakes import other_record

ACL = AccessControlEntryRecord(
    uuid.UUID(int=5),
    ResourceType.GROUP,
    "g",
    PatternType.PREFIXED,
    "User:bob",
    "10.0.0.1",
    AclOperation.DESCRIBE,
    AclPermissionType.DENY,
)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (b"", "do not hold a whole frame"),
        (b"\x01\x12", "do not hold a whole frame"),
        (b"\x01\xff", "do not hold a whole frame"),
        (b"\x00\x12\x00\x00", "frame version 0"),
        (b"\x02\x12\x00\x00", "frame version 2"),
        (b"\x01" + uvarint(40000) + b"\x00\x00", "out of range"),
        (b"\x01\xff\xff\xff\xff\xff\x00", "longer than 5 bytes"),
    ],
)
def test_bad_frames_fail_clearly(value: bytes, reason: str) -> None:
    with pytest.raises(KraftFormatError, match=reason) as info:
        decode_metadata_value(value, path="seg.log", offset=42)
    assert str(info.value).startswith("seg.log: KRaft record at offset 42: bad frame")


def test_null_value_is_a_bad_frame() -> None:
    with pytest.raises(KraftFormatError, match="null value"):
        decode_metadata_value(None, offset=1)


@pytest.mark.parametrize("api_key", [0, 1, 2, 3, 12, 17, 21, 99, 300, 32767])
def test_other_record_types_are_skipped_by_their_frame(api_key: int) -> None:
    decoded = decode_metadata_value(other_record(api_key, b"anything at all", version=7))
    assert (decoded.api_key, decoded.version, decoded.record) == (api_key, 7, None)


def test_no_op_at_a_newer_version_is_still_a_no_op() -> None:
    assert decode_metadata_value(frame(20, 3) + b"new fields\x00").record == NoOpRecord()


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (encode_record(ACL)[:-1], "does not parse"),
        (encode_record(ACL)[:20], "does not parse"),
        (encode_record(ACL) + b"\x00", "1 bytes left over"),
        (frame(19) + bytes(10), "does not parse"),
        (frame(20), "does not parse"),
        (frame(20) + b"\x00\x00", "1 bytes left over"),
        # one tagged field of 5 bytes, cut short: an error, not a short read
        (frame(19) + bytes(16) + b"\x01\x03\x05ab", "does not parse"),
        (frame(22) + b"\x00\x01\x00", "non-nullable field name is null"),
        (frame(22) + b"\x03\xff\xfe\x01\x00", "does not parse"),  # invalid UTF-8
    ],
)
def test_bad_bodies_fail_naming_the_type(value: bytes, reason: str) -> None:
    with pytest.raises(KraftFormatError, match=reason) as info:
        decode_metadata_value(value, path="x.log", offset=7)
    assert "version 0" in str(info.value)
    assert info.value.api_key == value[1]


def test_unknown_tagged_fields_are_ignored() -> None:
    tags = b"\x02" + b"\x07\x03abc" + b"\x09\x00"
    value = frame(19) + uuid.UUID(int=9).bytes + tags
    assert decode_metadata_value(value).record == RemoveAccessControlEntryRecord(uuid.UUID(int=9))


def test_zero_uuid_and_unknown_codes() -> None:
    body = (
        bytes(16)
        + b"\x63"
        + compact_string("t")
        + b"\xff"
        + compact_string("User:a")
        + compact_string("*")
        + b"\x7f"
        + b"\x00"
        + b"\x00"
    )
    record = decode_metadata_value(frame(18) + body).record
    assert isinstance(record, AccessControlEntryRecord)
    assert record.id == uuid.UUID(int=0)
    assert record.resource_type is ResourceType.UNKNOWN
    assert record.pattern_type is PatternType.UNKNOWN
    assert record.operation is AclOperation.UNKNOWN
    assert record.permission_type is AclPermissionType.UNKNOWN


def test_scram_with_unknown_mechanism_and_empty_bytes() -> None:
    record = UserScramCredentialRecord("", ScramMechanism.UNKNOWN, b"", b"", b"", -1)
    value = encode_record(record)
    assert decode_metadata_value(value).record == record
