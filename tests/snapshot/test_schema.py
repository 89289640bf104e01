"""The container schema: a union of record schemas with each named type defined once."""

from __future__ import annotations

from typing import Any

import fastavro
import pytest

from aclog.records import AccessControlEntryRecord, RemoveAccessControlEntryRecord
from aclog.snapshot.schema import SNAPSHOT_SCHEMA, union_schema


def test_the_snapshot_schema_parses_as_a_union_of_named_records() -> None:
    parsed: Any = fastavro.parse_schema(SNAPSHOT_SCHEMA)
    assert [branch["name"] for branch in parsed] == [
        "aclog.records.AccessControlEntryRecord",
        "aclog.records.UserScramCredentialRecord",
    ]


def test_a_named_type_shared_by_two_members_is_defined_once() -> None:
    union = union_schema([AccessControlEntryRecord, RemoveAccessControlEntryRecord])
    assert union[0]["fields"][0]["type"]["name"] == "Uuid"
    assert union[1]["fields"][0]["type"] == "aclog.records.Uuid"
    fastavro.parse_schema(union)  # would raise on a second definition of Uuid


def test_conflicting_definitions_of_one_name_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from aclog.records.schemas import raw_schema as real
    from aclog.records.types import RecordType
    from aclog.snapshot import schema

    def altered(record_type: RecordType, version: int) -> dict[str, object]:
        raw = dict(real(record_type, version))
        if raw["name"] == "RemoveAccessControlEntryRecord":
            raw["fields"] = [{"name": "id", "type": {"type": "fixed", "name": "Uuid", "size": 8}}]
        return raw

    monkeypatch.setattr(schema, "raw_schema", altered)
    with pytest.raises(ValueError, match=r"defines aclog.records.Uuid twice, differently"):
        union_schema([AccessControlEntryRecord, RemoveAccessControlEntryRecord])
