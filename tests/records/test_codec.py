"""The record codec: round trips, golden bytes, version resolution and decode errors."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    RecordDecodeError,
    RecordType,
    RequestContextRecord,
    ResourceType,
    decode,
    decode_framed,
    encode,
)
from aclog.records.schemas import CURRENT_VERSIONS, known_versions, raw_schema
from tests.records.samples import SAMPLES

GOLDEN = Path(__file__).parent / "golden"
ALL_VERSIONS = [(t, v) for t in RecordType for v in known_versions(t)]


def test_every_type_and_version_has_a_sample() -> None:
    assert sorted(SAMPLES) == sorted(ALL_VERSIONS)


@pytest.mark.parametrize(("record_type", "version"), ALL_VERSIONS)
def test_golden_bytes(record_type: RecordType, version: int) -> None:
    """Encoding never changes for a released (type, version): compare with checked-in bytes.

    A missing golden file fails; set ACLOG_WRITE_GOLDEN=1 to create missing files (existing
    ones are never overwritten, so a change of encoding cannot slip through).
    """
    path = GOLDEN / f"{record_type.name}.v{version}.hex"
    encoded = encode(SAMPLES[(record_type, version)], version)
    if not path.exists():
        if os.environ.get("ACLOG_WRITE_GOLDEN") == "1":
            path.write_text(encoded.hex() + "\n")
        pytest.fail(f"no golden bytes for {record_type.name} v{version} at {path}")
    assert encoded.hex() == path.read_text().strip()
    decoded = decode_framed(bytes.fromhex(path.read_text().strip()))
    assert (decoded.record_type, decoded.version) == (record_type, version)


@pytest.mark.parametrize(("record_type", "version"), ALL_VERSIONS)
def test_round_trip_every_type_and_version(record_type: RecordType, version: int) -> None:
    record = SAMPLES[(record_type, version)]
    decoded = decode_framed(encode(record, version), offset=5)
    assert decoded.record == record
    assert decoded.version == version


def test_frame_matches_kraft_layout_for_acl_records() -> None:
    encoded = encode(SAMPLES[(RecordType.ACCESS_CONTROL_ENTRY, 0)])
    assert encoded[:3] == bytes((1, 18, 0))


def test_older_version_resolves_to_current_schema() -> None:
    old = bytes.fromhex((GOLDEN / "REQUEST_CONTEXT.v0.hex").read_text().strip())
    decoded = decode_framed(old)
    assert decoded.version == 0
    assert decoded.record == RequestContextRecord(
        "User:admin", "10.0.0.5", "adminclient-1", 1_795_000_000_000, None
    )
    assert CURRENT_VERSIONS[RecordType.REQUEST_CONTEXT] == 1


def test_unknown_type_names_type_version_and_offset() -> None:
    with pytest.raises(RecordDecodeError, match=r"offset 42: unknown record type 99 version 3"):
        decode(bytes((1, 99, 3)), offset=42)


def test_unknown_version_names_type_version_and_offset() -> None:
    with pytest.raises(
        RecordDecodeError, match=r"offset 9: unknown version 4 of AccessControlEntryRecord"
    ):
        decode(bytes((1, 18, 4)) + b"\x00" * 20, offset=9)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (b"", "too short"),
        (bytes((2, 18, 0)), "unknown frame version 2"),
        (bytes((1, 18, 0, 1, 2)), "cannot decode the Avro body"),
        (encode(SAMPLES[(RecordType.NO_OP, 0)]) + b"\x00", "1 bytes left over"),
    ],
)
def test_malformed_values_are_rejected_with_offset(value: bytes, message: str) -> None:
    with pytest.raises(RecordDecodeError, match=message) as info:
        decode(value, offset=3)
    assert "offset 3" in str(info.value)


def test_a_frame_varint_longer_than_kafka_reads_is_rejected() -> None:
    # The frame's varints are read as every other varint of aclog (aclog.varint: 5 bytes at
    # most); a reader of its own once took this padded 1 as a frame version and decoded a NO_OP.
    padded_one = b"\x81\x80\x80\x80\x80\x00"
    with pytest.raises(RecordDecodeError, match=r"offset 5: .*frame.*over 5 bytes"):
        decode(padded_one + bytes((20, 0)), offset=5)


def test_unknown_enum_codes_decode_to_unknown() -> None:
    body = bytearray(encode(SAMPLES[(RecordType.ACCESS_CONTROL_ENTRY, 0)]))
    # resource_type is the zigzag varint right after the 3 frame bytes and the 16 id bytes.
    body[3 + 16] = 60 * 2
    assert decode(bytes(body)).resource_type is ResourceType.UNKNOWN  # type: ignore[union-attr]


def test_every_schema_field_is_documented() -> None:
    for record_type, version in ALL_VERSIONS:
        schema = raw_schema(record_type, version)
        assert schema.get("doc"), (record_type, version)
        for field in schema["fields"]:
            assert field.get("doc"), (record_type, version, field["name"])


_text = st.text(max_size=40)


@given(
    st.builds(
        AccessControlEntryRecord,
        st.builds(uuid.UUID, bytes=st.binary(min_size=16, max_size=16)),
        st.sampled_from(ResourceType),
        _text,
        st.sampled_from(PatternType),
        _text,
        _text,
        st.sampled_from(AclOperation),
        st.sampled_from(AclPermissionType),
    )
)
def test_acl_round_trip_property(record: AccessControlEntryRecord) -> None:
    assert decode(encode(record)) == record
