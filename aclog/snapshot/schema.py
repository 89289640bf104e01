"""The Avro schemas of a snapshot file: unions of the record types an image is made of.

A snapshot holds what an image needs to be rebuilt, nothing else: one record per ACL and one
per SCRAM credential, in their current schema versions. In format 1 the container's schema is
the union of those record schemas (:data:`SNAPSHOT_SCHEMA`), so any Avro reader (Spark, DuckDB,
avro-tools) sees one row of named fields per record. Format 2 (:data:`COLUMN_SCHEMA`, what this
build writes) stores the ACLs as chunks of columns instead (:mod:`aclog.snapshot.acl_columns`),
which load several times faster; an Avro reader then sees one row of named columns per chunk of
ACLs, and one row per SCRAM credential as before.
Adding a record type to a snapshot means adding its class to :data:`SNAPSHOT_RECORD_TYPES`.

Immutable after import; thread-safe. Cost: schemas are built once, at import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aclog.records.schemas import CURRENT_VERSIONS, raw_schema
from aclog.records.types import (
    RECORD_TYPES,
    AccessControlEntryRecord,
    Record,
    RecordType,
    UserScramCredentialRecord,
)
from aclog.snapshot.acl_columns import ACL_COLUMNS_SCHEMA

SNAPSHOT_RECORD_TYPES: tuple[type[Record], ...] = (
    AccessControlEntryRecord,
    UserScramCredentialRecord,
)

_NAMED = ("record", "error", "enum", "fixed")


@dataclass(frozen=True, slots=True)
class Member:
    """One record type of the union: its class, type code, names and current schema version.

    ``name`` is the class name (the key of the header's JSON maps); ``full_name`` the Avro full
    name that the container uses to say which branch of the union a record is.
    """

    cls: type[Record]
    record_type: RecordType
    name: str
    full_name: str
    version: int


def _member(cls: type[Record]) -> Member:
    record_type = RECORD_TYPES[cls]
    version = CURRENT_VERSIONS[record_type]
    schema = raw_schema(record_type, version)
    return Member(cls, record_type, cls.__name__, _full_name(schema, ""), version)


def _full_name(schema: dict[str, Any], namespace: str) -> str:
    name = str(schema["name"])
    if "." in name:
        return name
    namespace = schema.get("namespace", namespace)
    return f"{namespace}.{name}" if namespace else name


def union_schema(record_types: Sequence[type[Record]]) -> list[dict[str, Any]]:
    """The union of the current schemas of ``record_types``, each named type defined once.

    Avro forbids defining a name twice in one schema, and record schemas share named types
    (the ``Uuid`` fixed), so every later definition becomes a reference to the first.
    """
    defined: dict[str, dict[str, Any]] = {}
    union = []
    for cls in record_types:
        record_type = RECORD_TYPES[cls]
        union.append(
            _define_once(raw_schema(record_type, CURRENT_VERSIONS[record_type]), defined, "")
        )
    return union


def _define_once(schema: Any, defined: dict[str, dict[str, Any]], namespace: str) -> Any:
    if isinstance(schema, list):
        return [_define_once(branch, defined, namespace) for branch in schema]
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if kind in ("array", "map"):
        key = "items" if kind == "array" else "values"
        return {**schema, key: _define_once(schema[key], defined, namespace)}
    if kind not in _NAMED:
        return schema
    full_name = _full_name(schema, namespace)
    if full_name in defined:
        if defined[full_name] != schema:
            raise ValueError(f"the snapshot union defines {full_name} twice, differently")
        return full_name
    defined[full_name] = schema
    if kind in ("enum", "fixed"):
        return schema
    inner = full_name.rpartition(".")[0]
    fields = [{**f, "type": _define_once(f["type"], defined, inner)} for f in schema["fields"]]
    return {**schema, "fields": fields}


MEMBERS: tuple[Member, ...] = tuple(_member(cls) for cls in SNAPSHOT_RECORD_TYPES)
BY_CLASS: dict[type, Member] = {m.cls: m for m in MEMBERS}
BY_NAME: dict[str, Member] = {m.name: m for m in MEMBERS}
BY_FULL_NAME: dict[str, Member] = {m.full_name: m for m in MEMBERS}
SNAPSHOT_SCHEMA: list[dict[str, Any]] = union_schema(SNAPSHOT_RECORD_TYPES)
"""The container schema of format 1: one row per record (a JSON-ready Avro union)."""
COLUMN_SCHEMA: list[dict[str, Any]] = [
    ACL_COLUMNS_SCHEMA,
    *union_schema([t for t in SNAPSHOT_RECORD_TYPES if t is not AccessControlEntryRecord]),
]
"""The container schema of format 2: ACLs in column chunks, the other records one per row."""


def current_schema_versions() -> dict[str, int]:
    """{class name: schema version} of every snapshot record type, as written in headers."""
    return {m.name: m.version for m in MEMBERS}
