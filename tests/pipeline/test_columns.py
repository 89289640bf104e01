"""The column builder: vectorised conversions give what the record classes and codec give."""

from __future__ import annotations

import uuid
from typing import Any

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from aclog.pipeline.columns import ColumnChunk, Run, kafka_uuid_texts
from aclog.pipeline.schema import ARROW_SCHEMA
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    RecordType,
    RequestContextRecord,
    ResourceType,
    kafka_uuid_bytes_text,
    kafka_uuid_text,
)
from aclog.records.codec import record_to_fields
from aclog.records.columnar import columns_from_fields
from aclog.records.types import RECORD_TYPES


@given(st.lists(st.one_of(st.none(), st.binary(min_size=16, max_size=16)), max_size=50))
def test_uuid_texts_equal_kafka_text_one_by_one(ids: list[bytes | None]) -> None:
    array = pa.array(ids, pa.binary(16))
    expected = [None if raw is None else kafka_uuid_bytes_text(raw) for raw in ids]
    assert kafka_uuid_texts(array).to_pylist() == expected
    if len(ids) > 2:  # a slice starts inside the buffer
        assert kafka_uuid_texts(array.slice(1)).to_pylist() == expected[1:]


def _chunk(fields: list[dict[str, Any]], code: RecordType, skip: int = 0) -> ColumnChunk:
    records = columns_from_fields([(code, 0)] * len(fields), fields)
    run = Run(len(fields), 10, 1, 0, 3, 1_000, 10, 9 + len(fields), "log", skip)
    return ColumnChunk(records, [run])


_ACL = AccessControlEntryRecord(
    uuid.UUID(int=7),
    ResourceType.TOPIC,
    "t",
    PatternType.LITERAL,
    "User:a",
    "*",
    AclOperation.READ,
    AclPermissionType.ALLOW,
)


def test_unknown_enum_codes_read_unknown_and_secrets_have_no_column() -> None:
    known = record_to_fields(_ACL)
    strange = {**known, "resource_type": 99, "operation": -4, "salt": b"x"}
    batch = _chunk([known, strange], RecordType.ACCESS_CONTROL_ENTRY).to_batch()
    assert batch.schema.equals(ARROW_SCHEMA)
    rows = batch.to_pylist()
    assert [r["resource_type"] for r in rows] == ["TOPIC", "UNKNOWN"]
    assert [r["operation"] for r in rows] == ["READ", "UNKNOWN"]
    assert [r["acl_id"] for r in rows] == [kafka_uuid_text(_ACL.id)] * 2
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


def _context_batch(skip: int, source: str) -> list[dict[str, Any]]:
    context = RequestContextRecord("User:boss", "10.0.0.1", "cli", 5, "CreateAcls")
    records = [context, _ACL, _ACL, _ACL]
    kinds = [(RECORD_TYPES[type(r)], 1 if r is context else 0) for r in records]
    decoded = columns_from_fields(kinds, [record_to_fields(r) for r in records])
    runs = [
        Run(4, 20, 1, 0, 3, 1_000, 20, 23, source, skip),
        Run(2, 24, 1, 0, 3, 1_000, 24, 25, source),
    ]
    more = columns_from_fields(
        [(RecordType.ACCESS_CONTROL_ENTRY, 0)] * 2, [record_to_fields(_ACL)] * 2
    )
    both = pa.Table.from_batches([decoded, more]).combine_chunks().to_batches()[0]
    return ColumnChunk(both, runs).to_batch().to_pylist()


def test_a_batch_author_is_its_request_context_even_when_that_row_is_skipped() -> None:
    rows = _context_batch(2, "log")
    assert [(r["offset"], r["position"]) for r in rows] == [(22, 2), (23, 3), (24, 0), (25, 1)]
    assert [r["author_principal"] for r in rows] == ["User:boss", "User:boss", None, None]
    assert rows[0]["author_api"] == "CreateAcls" and rows[0]["principal"] == "User:a"
    assert rows[0]["author_address"] == "10.0.0.1" and rows[0]["author_client_id"] == "cli"


def test_snapshot_rows_have_no_author() -> None:
    assert {r["author_principal"] for r in _context_batch(0, "snapshot")} == {None}
