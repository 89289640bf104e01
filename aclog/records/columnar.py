"""The columnar batch decoder: many framed record values -> one Arrow record batch.

It is the decoder for many records at once. The values are joined into one buffer and read
with numpy passes over all of them (:mod:`aclog.records.vector`): the frames first (frame
version, type code, version: three varints), then, for each (type, version) present, that
version's Avro fields in schema order, each field a pass over the records of that kind. Fields
land in the columns of :func:`columns_schema`: one per field of today's schemas (a field of
several types, such as ``id`` or ``name``, is one column), the request context's fields
prefixed ``context_`` (its ``principal`` is who asked, not an ACL's principal). Enum fields
stay the codes written. A record written at an older version gets today's defaults for the
fields its version lacks, as Avro resolution (and so :mod:`aclog.records.codec`) gives them.
The SCRAM salt and keys become columns only when asked for (``secrets=True``); otherwise they
are skipped, never copied.

The codec stays the reference: when the passes cannot take a batch (a damaged record, an unknown
type or version, a varint longer than its type, text that is not UTF-8), the batch is decoded
value by value with :func:`~aclog.records.codec.decode_avro_fields`, which either decodes it
(the columns are then built from its field values) or raises its own
:class:`~aclog.records.codec.RecordDecodeError` naming the first bad record's offset.

Thread-safe (module tables are never mutated). Cost: a few numpy passes per field over the
batch, no Python call per record on the common path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa

from aclog.records.checked import checked_fields, offset_of
from aclog.records.codec import FRAME_VERSION, RecordDecodeError
from aclog.records.column_assembly import assemble, distinct, split
from aclog.records.column_layout import (
    CONTEXT_PREFIX,
    TYPE_CODE,
    VERSION,
    KindColumns,
    Offsets,
    arrow_type,
    column_name,
    columns_schema,
)
from aclog.records.schemas import CURRENT_VERSIONS, known_versions, raw_schema
from aclog.records.types import RecordType
from aclog.records.vector import Cursor, NotColumnar, arrow_numbers, join_values

__all__ = [
    "CONTEXT_PREFIX",
    "TYPE_CODE",
    "VERSION",
    "KindColumns",
    "Offsets",
    "column_name",
    "columns_from_fields",
    "columns_schema",
    "decode_columns",
    "decode_kinds",
]

Read = Callable[[Cursor], Any]
"""One field's pass: reads it at every cursor position and returns its column (or ``None``
for a field that is skipped)."""


def _reader(avro_type: Any, keep: bool) -> Read:
    kind = arrow_type(avro_type)
    if isinstance(avro_type, list):
        return Cursor.optional_string
    if isinstance(avro_type, dict):
        size = int(avro_type["size"])
        return lambda cursor: cursor.fixed(size)
    if avro_type == "int":
        return lambda cursor: arrow_numbers(cursor.avro_int())
    if avro_type == "long":
        return lambda cursor: arrow_numbers(cursor.avro_long())
    if not keep:
        return lambda cursor: cursor.skip_bytes()
    return lambda cursor: cursor.avro_bytes(kind)


KindPlan = tuple[tuple[tuple[str | None, Read], ...], tuple[tuple[str, Any], ...]]
"""The passes of one (type, version) — (column or ``None`` to drop, read) per writer field —
and the (column, default) of today's fields that version lacks."""


@cache
def _kind_plan(record_type: RecordType, version: int, secrets: bool) -> KindPlan:
    names = set(columns_schema(secrets).names)
    reads = []
    for field in raw_schema(record_type, version)["fields"]:
        column = column_name(record_type, field["name"])
        keep = column in names
        reads.append((column if keep else None, _reader(field["type"], keep)))
    written = {field["name"] for field in raw_schema(record_type, version)["fields"]}
    current = raw_schema(record_type, CURRENT_VERSIONS[record_type])["fields"]
    defaults = tuple(
        (column_name(record_type, f["name"]), f.get("default"))
        for f in current
        if f["name"] not in written and column_name(record_type, f["name"]) in names
    )
    return tuple(reads), defaults


def _plans(secrets: bool) -> dict[int, KindPlan]:
    """Plans keyed by ``type_code << 8 | version``."""
    plans: dict[int, KindPlan] = {}
    for record_type in RecordType:
        for version in known_versions(record_type):
            try:
                plans[int(record_type) << 8 | version] = _kind_plan(record_type, version, secrets)
            except NotColumnar:
                continue  # a (type, version) the passes cannot read goes to the reference
    return plans


_PLANS = {secrets: _plans(secrets) for secrets in (False, True)}


def decode_columns(
    values: Sequence[bytes], offsets: Offsets = None, *, secrets: bool = False
) -> pa.RecordBatch:
    """The records of ``values`` (framed record values) as one batch of
    :func:`columns_schema`, in order. Raises :class:`~aclog.records.codec.RecordDecodeError`
    exactly as :func:`~aclog.records.codec.decode_framed` does on the first bad value."""
    values = list(values)
    if not values:
        return _empty(secrets)
    try:
        return assemble(len(values), _vectorised(values, secrets), secrets)
    except NotColumnar:
        return _reference(values, offsets, secrets)


def decode_kinds(
    values: Sequence[bytes], offsets: Offsets = None, *, secrets: bool = False
) -> list[KindColumns]:
    """:func:`decode_columns` before the kinds are put in row order: the records of each
    (type, version) of ``values`` apart, in order of first appearance, with the same errors.
    For a reader that treats each kind on its own (records built a type at a time): no
    column is gathered into row order only to be taken apart again."""
    values = list(values)
    if not values:
        return []
    try:
        return _vectorised(values, secrets)
    except NotColumnar:
        return split(_reference(values, offsets, secrets), secrets)


def _empty(secrets: bool) -> pa.RecordBatch:
    schema = columns_schema(secrets)
    return pa.RecordBatch.from_arrays([pa.array([], f.type) for f in schema], schema=schema)


def _vectorised(values: list[bytes], secrets: bool) -> list[KindColumns]:
    buffer, starts, ends = join_values(values)
    cursor = Cursor(buffer, starts, ends)
    frame_version = cursor.uvarint(5)
    type_codes, versions = cursor.uvarint(5), cursor.uvarint(5)
    if bool((frame_version != FRAME_VERSION).any()) or bool((versions > 0xFF).any()):
        raise NotColumnar("a frame this pass does not know")
    keys = (type_codes.astype(np.int64) << 8) | versions.astype(np.int64)
    plans = _PLANS[secrets]
    first = int(keys[0])
    if bool((keys == first).all()):  # the common batch: one kind throughout
        return [_read_kind(plans, first, cursor, np.arange(len(values)))]
    kinds = []
    for key in distinct(keys):
        rows = np.flatnonzero(keys == key)
        kinds.append(_read_kind(plans, key, cursor.take(rows), rows))
    return kinds


def _read_kind(plans: dict[int, KindPlan], key: int, cursor: Cursor, rows: Any) -> KindColumns:
    plan = plans.get(key)
    if plan is None:
        raise NotColumnar(f"no columnar plan for type {key >> 8} version {key & 0xFF}")
    reads, defaults = plan
    columns: dict[str, pa.Array] = {}
    for column, read in reads:
        array = read(cursor)
        if column is not None:
            columns[column] = array
    if bool((cursor.pos != cursor.ends).any()):
        raise NotColumnar("bytes left over after a record's body")
    for column, default in defaults:
        if default is not None:  # a null default is what an absent column holds anyway
            columns[column] = pa.array([default] * len(rows))
    return KindColumns(key >> 8, key & 0xFF, rows, columns)


def _reference(values: list[bytes], offsets: Offsets, secrets: bool) -> pa.RecordBatch:
    """The batch through the codec, value by value: its columns, or the codec's error."""
    decoded = [checked_fields(value, offset_of(offsets, i)) for i, value in enumerate(values)]
    return columns_from_fields([kind for kind, _ in decoded], [f for _, f in decoded], secrets)


def columns_from_fields(
    kinds: Sequence[tuple[int, int]], fields: Sequence[dict[str, Any]], secrets: bool = False
) -> pa.RecordBatch:
    """The batch of :func:`columns_schema` holding records given as their (type, version) and
    current-version Avro field values (what :func:`~aclog.records.codec.record_to_fields` and
    :func:`~aclog.records.codec.decode_avro_fields` give)."""
    schema = columns_schema(secrets)
    lists: dict[str, list[Any]] = {name: [None] * len(kinds) for name in schema.names}
    lists[TYPE_CODE] = [int(kind[0]) for kind in kinds]
    lists[VERSION] = [kind[1] for kind in kinds]
    for row, ((code, _), values) in enumerate(zip(kinds, fields, strict=True)):
        for name, value in values.items():
            column = column_name(RecordType(code), name)
            if column in lists and column not in (TYPE_CODE, VERSION):
                lists[column][row] = value
    try:
        arrays = [pa.array(lists[f.name], f.type) for f in schema]
    except (pa.ArrowInvalid, OverflowError) as err:
        raise RecordDecodeError(f"a record field does not fit its column: {err}") from None
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
