"""The spec's worked examples (kafka-acl-spec.md sections 12 and 13), written from field values
by aclog.kraft.writer, checked against the spec's hex, and read back by the reader."""

from __future__ import annotations

import struct
import uuid
from pathlib import Path

import pytest

from aclog.kraft import KraftFormatError, decode_metadata_value, read_kraft
from aclog.kraft.codec import read_frame
from aclog.kraft.encoding import encode_record, frame
from aclog.kraft.schemas import STRUCTS
from aclog.kraft.writer import data_batch
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    NoOpRecord,
    PatternType,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
)

ACL_ID = uuid.UUID(bytes=bytes(range(16)))
ACL = AccessControlEntryRecord(
    ACL_ID,
    ResourceType.TOPIC,
    "foo",
    PatternType.LITERAL,
    "User:alice",
    "*",
    AclOperation.READ,
    AclPermissionType.ALLOW,
)
# Spec section 12, worked example rec-000-ace-basic, byte for byte.
ACL_HEX = (
    "01 12 00"
    " 000102030405060708090a0b0c0d0e0f"
    " 02"
    " 04 666f6f"
    " 03"
    " 0b 557365723a616c696365"
    " 02 2a"
    " 03"
    " 03"
    " 00"
)
REMOVE_HEX = "01 13 00 000102030405060708090a0b0c0d0e0f 00"
NO_OP_HEX = "01 14 00 00"
REMOVE_SCRAM_HEX = "01 16 00 06 616c696365 01 00"


def hx(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def test_access_control_entry_record_is_the_spec_41_bytes() -> None:
    value = encode_record(ACL)
    assert value == hx(ACL_HEX)
    assert len(value) == 41
    decoded = decode_metadata_value(value)
    assert (decoded.api_key, decoded.version, decoded.record) == (18, 0, ACL)


@pytest.mark.parametrize(
    ("record", "spec_hex", "api_key"),
    [
        (RemoveAccessControlEntryRecord(ACL_ID), REMOVE_HEX, 19),
        (NoOpRecord(), NO_OP_HEX, 20),
        (
            RemoveUserScramCredentialRecord("alice", ScramMechanism.SCRAM_SHA_256),
            REMOVE_SCRAM_HEX,
            22,
        ),
    ],
)
def test_small_records_match_the_spec(record: object, spec_hex: str, api_key: int) -> None:
    value = encode_record(record)  # type: ignore[arg-type]
    assert value == hx(spec_hex)
    decoded = decode_metadata_value(value)
    assert (decoded.api_key, decoded.version, decoded.record) == (api_key, 0, record)


def test_user_scram_credential_record_puts_iterations_before_the_tag_byte() -> None:
    record = UserScramCredentialRecord(
        "alice", ScramMechanism.SCRAM_SHA_512, b"salt", b"K" * 64, b"S" * 64, 4096
    )
    value = encode_record(record)
    expected = (
        hx("01 0b 00")
        + b"\x06alice"
        + b"\x02"
        + b"\x05salt"
        + b"\x41"
        + b"K" * 64
        + b"\x41"
        + b"S" * 64
        + struct.pack(">i", 4096)
        + b"\x00"
    )
    assert value == expected
    assert decode_metadata_value(value).record == record


def test_kafka_python_codec_encodes_the_same_bytes() -> None:
    """kafka-python's schema codec, given our schema, writes what the spec says."""
    body = STRUCTS[18].encode(
        {
            "id": ACL_ID,
            "resource_type": 2,
            "resource_name": "foo",
            "pattern_type": 3,
            "principal": "User:alice",
            "host": "*",
            "operation": 3,
            "permission_type": 3,
        },
        version=0,
        compact=True,
        tagged=True,
    )
    assert frame(18) + body == hx(ACL_HEX)


def test_single_ace_batch_is_the_spec_109_bytes(tmp_path: Path) -> None:
    value = encode_record(ACL)
    batch = data_batch([value], base_offset=0, epoch=3, timestamp_ms=1_700_000_000_000)
    assert len(batch) == 109
    assert batch[8:12] == hx("00000061")
    assert batch[61:] == hx("5e 00 00 00 01 52") + value + hx("00")
    (tmp_path / f"{0:020d}.log").write_bytes(batch)
    (read,) = list(read_kraft(tmp_path))
    assert (read.base_offset, read.last_offset, read.epoch) == (0, 0, 3)
    assert read.timestamp_ms == 1_700_000_000_000
    assert [r.record for r in read.records] == [ACL]
    assert read.records[0].offset == 0


def test_newer_version_of_record_18_fails_naming_file_offset_key_and_version(
    tmp_path: Path,
) -> None:
    newer = frame(18, version=1) + encode_record(ACL)[3:]
    path = tmp_path / f"{0:020d}.log"
    path.write_bytes(data_batch([encode_record(ACL), newer], 0, 1, 5))
    with pytest.raises(KraftFormatError) as info:
        list(read_kraft(tmp_path))
    message = str(info.value)
    assert str(path) in message
    assert "offset 1" in message
    assert "api key 18" in message
    assert "version 1" in message
    assert "AccessControlEntryRecord" in message
    assert (info.value.api_key, info.value.version, info.value.offset) == (18, 1, 1)


@pytest.mark.parametrize("api_key", [11, 19, 22])
def test_newer_versions_of_the_other_three_fail(api_key: int) -> None:
    with pytest.raises(KraftFormatError, match=rf"api key {api_key}\) version 2 is newer"):
        decode_metadata_value(frame(api_key, 2) + b"\x00", offset=9)


def test_read_frame_handles_multi_byte_varints() -> None:
    assert read_frame(hx("01 ac02 8001") + b"rest") == (300, 128, 5)
