"""The column builder: vectorised conversions give what the record classes and codec give."""

from __future__ import annotations

import uuid
from typing import Any

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from aclog.pipeline.columns import NO_AUTHOR, ColumnChunk, Run, kafka_uuid_texts
from aclog.pipeline.schema import ARROW_SCHEMA
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    RecordType,
    ResourceType,
    kafka_uuid_bytes_text,
    kafka_uuid_text,
)
from aclog.records.codec import record_to_fields


@given(st.lists(st.one_of(st.none(), st.binary(min_size=16, max_size=16)), max_size=50))
def test_uuid_texts_equal_kafka_text_one_by_one(ids: list[bytes | None]) -> None:
    array = pa.array(ids, pa.binary(16))
    expected = [None if raw is None else kafka_uuid_bytes_text(raw) for raw in ids]
    assert kafka_uuid_texts(array).to_pylist() == expected
    if len(ids) > 2:  # a slice starts inside the buffer
        assert kafka_uuid_texts(array.slice(1)).to_pylist() == expected[1:]


def _chunk(fields: list[dict[str, Any]], code: RecordType) -> ColumnChunk:
    chunk = ColumnChunk()
    run = Run(len(fields), 10, 1, 0, 3, 1_000, 10, 9 + len(fields), "log", NO_AUTHOR)
    chunk.add(fields, [(code, 0)] * len(fields), run)
    return chunk


def test_unknown_enum_codes_read_unknown_and_secrets_have_no_column() -> None:
    acl = AccessControlEntryRecord(
        uuid.UUID(int=7),
        ResourceType.TOPIC,
        "t",
        PatternType.LITERAL,
        "User:a",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )
    known = record_to_fields(acl)
    strange = {**known, "resource_type": 99, "operation": -4, "salt": b"x"}
    batch = _chunk([known, strange], RecordType.ACCESS_CONTROL_ENTRY).to_batch()
    assert batch.schema.equals(ARROW_SCHEMA)
    rows = batch.to_pylist()
    assert [r["resource_type"] for r in rows] == ["TOPIC", "UNKNOWN"]
    assert [r["operation"] for r in rows] == ["READ", "UNKNOWN"]
    assert [r["acl_id"] for r in rows] == [kafka_uuid_text(acl.id)] * 2
    assert [(r["offset"], r["position"], r["batch_last_offset"]) for r in rows] == [
        (10, 0, 11),
        (11, 1, 11),
    ]
    assert "salt" not in batch.schema.names


def test_a_narrower_schema_builds_only_its_columns_in_its_order() -> None:
    fields = [{"name": "alice", "mechanism": 1, "iterations": 4096}]
    chunk = _chunk(fields, RecordType.REMOVE_USER_SCRAM_CREDENTIAL)
    narrow = pa.schema([ARROW_SCHEMA.field("user"), ARROW_SCHEMA.field("offset")])
    batch = chunk.to_batch(narrow)
    assert batch.schema.equals(narrow)
    assert batch.to_pylist() == [{"user": "alice", "offset": 10}]
