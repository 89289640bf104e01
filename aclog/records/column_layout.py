"""The columns of a decoded batch: the one layout the columnar decoder writes and its readers read.

:func:`columns_schema` is the Arrow schema of a whole batch: ``type_code``, ``version``, then
one column per field of today's record schemas (a field several types have, such as ``id`` or
``name``, is one column; the request context's fields are prefixed ``context_``); the SCRAM
secrets only when asked for. :class:`KindColumns` holds the records of one (type, version) of a
batch apart from the others, in those same columns.

Thread-safe (pure functions, cached). Cost: nothing per record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import pyarrow as pa

from aclog.records.render import SECRET_FIELDS
from aclog.records.schemas import CURRENT_VERSIONS, raw_schema
from aclog.records.types import RecordType
from aclog.records.vector import NotColumnar

TYPE_CODE, VERSION = "type_code", "version"
CONTEXT_PREFIX = "context_"

Offsets = int | Sequence[int] | None
"""Where the values sit in the log, for error messages only: the first value's offset (the
rest follow it), one offset per value, or ``None`` (unknown)."""


def column_name(record_type: RecordType, field: str) -> str:
    """The column a field of ``record_type`` lands in."""
    if record_type == RecordType.REQUEST_CONTEXT:
        return CONTEXT_PREFIX + field
    return field


def arrow_type(avro_type: Any) -> pa.DataType:
    """The column type of an Avro field type; :class:`NotColumnar` for one no column holds."""
    if isinstance(avro_type, dict) and avro_type.get("type") == "fixed":
        return pa.binary(int(avro_type["size"]))
    if avro_type == ["null", "string"]:
        return pa.string()
    simple = {"int": pa.int32(), "long": pa.int64(), "string": pa.string(), "bytes": pa.binary()}
    if not isinstance(avro_type, str) or avro_type not in simple:
        raise NotColumnar(f"no columnar read of Avro type {avro_type!r}")
    return simple[avro_type]


@cache
def columns_schema(secrets: bool = False) -> pa.Schema:
    """The Arrow schema of every decoded batch: ``type_code``, ``version``, then one column per
    field of today's schemas (the SCRAM secrets only with ``secrets``), all nullable."""
    fields = [pa.field(TYPE_CODE, pa.int32()), pa.field(VERSION, pa.int32())]
    seen = {TYPE_CODE, VERSION}
    for record_type in RecordType:
        for field in raw_schema(record_type, CURRENT_VERSIONS[record_type])["fields"]:
            name = column_name(record_type, field["name"])
            if name in seen or (field["name"] in SECRET_FIELDS and not secrets):
                continue
            seen.add(name)
            fields.append(pa.field(name, arrow_type(field["type"])))
    return pa.schema(fields)


@cache
def type_columns(record_type: RecordType, secrets: bool) -> tuple[str, ...]:
    """The columns holding today's fields of ``record_type``."""
    names = set(columns_schema(secrets).names)
    fields = raw_schema(record_type, CURRENT_VERSIONS[record_type])["fields"]
    return tuple(c for c in (column_name(record_type, f["name"]) for f in fields) if c in names)


@dataclass(frozen=True, slots=True)
class KindColumns:
    """The records of one (type, version) of a decoded batch, apart from the others: their rows
    in the batch (increasing ``int64`` indices) and their columns (today's fields that type
    has, a version's missing fields as their defaults, the secrets only when asked for).
    Immutable by convention (the arrays are Arrow's, the dict is never changed)."""

    record_type: int
    version: int
    rows: Any
    columns: dict[str, pa.Array]
