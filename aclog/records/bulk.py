"""Decodes many framed record values at once: the batch path of :mod:`aclog.records.codec`.

A batch mostly holds records of one (type, version). The Avro bodies of each (type, version)
of a batch are decoded by ONE fastavro call, as the items of an Avro array, instead of one call
per record (fastavro's per-call setup costs about a fifth of a record's decode); the records are
then put back in offset order. The result, and every error, is the
same as :func:`aclog.records.codec.decode_framed` on each value: the schemas, version
resolution and record builders are the codec's own; this module only frames the bodies.

An array loses the records' boundaries, so each item is the body followed by an 8-byte
sentinel, read back as a trailing field: a body that does not end where its value ends (left-over
bytes, a wrong schema) shifts the read, and the sentinel, the item count or the end position no
longer match. Then, and on any fastavro error, the batch is decoded again record by record, in
order, which raises the codec's exact error naming the first bad offset. A shifted read that
still finds all of them needs bytes that equal the sentinel at the shifted position: 2^-64 for
data not made to match.

Thread-safe (no shared mutable state; schemas are parsed once, under ``functools.cache``).
Cost: one fastavro call per (type, version) plus one builder call per record.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import compress, repeat
from operator import itemgetter, not_, setitem
from typing import Any

from fastavro import parse_schema, schemaless_reader

from aclog.records.build import (
    ACL_CODE_CONVERTERS,
    acls_from_columns,
    records_from,
    remove_acls_from_ids,
)
from aclog.records.build import consume as _consume
from aclog.records.codec import (
    DecodedKind,
    DecodedRecord,
    Plan,
    decode_framed,
    frame_plan,
)
from aclog.records.columns import CodeTable, acl_columns, code_table, remove_acl_ids
from aclog.records.schemas import CURRENT_VERSIONS, raw_schema
from aclog.records.types import Record, RecordType
from aclog.varint import zigzag

SENTINEL = b"\xa5\x3c\x96\x0f\xe1\x5a\x78\xc3"
_SENTINEL_FIELD = "aclog_bulk_sentinel"
_sentinel_of: Callable[[dict[str, Any]], bytes] = itemgetter(_SENTINEL_FIELD)
MIN_GROUP = 4
"""Fewer records of one (type, version) are decoded one by one: the array's setup (a few
microseconds) would cost more than it saves."""
_FAILED = (EOFError, ValueError, TypeError, KeyError, IndexError, UnicodeDecodeError)


def decode_values(
    values: Sequence[bytes], first_offset: int | None = None
) -> tuple[list[Record], list[DecodedKind]]:
    """The records of ``values`` and the (type, version) each was written with, in order.

    ``first_offset`` is the offset of ``values[0]`` (the rest follow it); it only improves
    error messages. Raises :class:`~aclog.records.codec.RecordDecodeError` exactly as
    :func:`~aclog.records.codec.decode_framed` does on the first bad value.
    """
    return _decode(values, first_offset, _RECORDS)


@dataclass(frozen=True)
class _Output:
    """What a decode gives for a run decoded by fastavro, for a run's field columns, and for
    a record decoded on its own."""

    of_items: Callable[[Plan, list[dict[str, Any]]], list[Any]]
    of_columns: Callable[[Plan, tuple[list[Any], ...]], list[Any]]
    of_one: Callable[[DecodedRecord], Any]
    codes: tuple[CodeTable, ...]


def _decode(
    values: Sequence[bytes], first_offset: int | None, output: _Output
) -> tuple[list[Any], list[DecodedKind]]:
    groups = _group_by_frame(values)
    if len(groups) <= 1:  # the common batch: one record type throughout
        first_frame = next(iter(groups), b"")
        plan = frame_plan(first_frame)
        if plan is not None and len(values) >= MIN_GROUP:
            converted = _convert_run(plan, values, output)
            if converted is not None:
                return converted, [plan.kind] * len(values)
        return _one_by_one(values, first_offset, output.of_one)
    out: list[Any] = [None] * len(values)
    kinds: list[Any] = [None] * len(values)
    singles: list[int] = []
    for frame, (indices, run) in groups.items():
        plan = frame_plan(frame)
        if plan is None or len(indices) < MIN_GROUP:
            singles += indices
            continue
        converted = _convert_run(plan, run, output)
        if converted is None:  # decoded again one by one: raises the first error, in order
            return _one_by_one(values, first_offset, output.of_one)
        # operator.setitem is a C function; a list's bound __setitem__ is a slot wrapper
        # that packs each call's arguments into a tuple (about twice as slow).
        _consume(map(setitem, repeat(out), indices, converted))
        _consume(map(setitem, repeat(kinds), indices, repeat(plan.kind)))
    for index in sorted(singles):  # every grouped value decoded: the first error is here
        one = decode_framed(values[index], _offset(first_offset, index))
        out[index], kinds[index] = output.of_one(one), one.kind
    return out, kinds


def _convert_run(plan: Plan, run: Sequence[bytes], output: _Output) -> list[Any] | None:
    """The output of ``run`` (values all of ``plan``'s frame): from its field columns when
    :mod:`aclog.records.columns` takes them apart, else from one fastavro call; ``None`` when
    fastavro's array does not decode them either."""
    if plan.reader is None:  # written at the current version: no resolution needed
        take_apart = _COLUMNS.get(plan.kind)
        columns = None if take_apart is None else take_apart(list(run), output.codes)
        if columns is not None:
            return output.of_columns(plan, columns)
    items = _decode_run(plan, run)
    return None if items is None else output.of_items(plan, items)


def _build_records(plan: Plan, items: list[dict[str, Any]]) -> list[Any]:
    return records_from(plan.record_type, items)


def _records_of_columns(plan: Plan, columns: tuple[list[Any], ...]) -> list[Any]:
    if plan.record_type == RecordType.ACCESS_CONTROL_ENTRY:
        return acls_from_columns(*columns, converted=True)
    return remove_acls_from_ids(columns[0])


def _remove_columns(run: list[bytes], codes: tuple[CodeTable, ...]) -> tuple[list[Any], ...] | None:
    del codes  # a removal has no code field
    ids = remove_acl_ids(run)
    return None if ids is None else (ids,)


# The (type, version)s whose runs :mod:`aclog.records.columns` takes apart, when current.
_COLUMNS: dict[
    DecodedKind, Callable[[list[bytes], tuple[CodeTable, ...]], tuple[list[Any], ...] | None]
] = {
    (RecordType.ACCESS_CONTROL_ENTRY, 0): acl_columns,
    (RecordType.REMOVE_ACCESS_CONTROL_ENTRY, 0): _remove_columns,
}
_ACL_ENUMS = tuple(map(code_table, ACL_CODE_CONVERTERS))
"""The column tables that give the records' enum members straight from the code bytes."""


def _record_of(one: DecodedRecord) -> Record:
    return one.record


_RECORDS = _Output(_build_records, _records_of_columns, _record_of, _ACL_ENUMS)


def _group_by_frame(values: Sequence[bytes]) -> dict[bytes, tuple[list[int], list[bytes]]]:
    """The indices and the values of ``values``, by their first three bytes (the whole frame
    of every record type below 128), in order of first appearance and in order within each.

    Cost: per distinct frame, a few C-level passes over the values not grouped yet (no frame
    is cut out of every value: one ``startswith`` pass finds a frame's values)."""
    groups: dict[bytes, tuple[list[int], list[bytes]]] = {}
    indices: list[int] = list(range(len(values)))
    rest: list[bytes] = list(values)
    while rest:
        frame = rest[0][:3]
        # A value shorter than a frame is its own "frame": only equal values share it.
        test = bytes.startswith if len(frame) == 3 else bytes.__eq__
        found = list(map(test, rest, repeat(frame)))
        run = list(compress(rest, found))
        if len(run) == len(rest):
            groups[frame] = (indices, rest)
            break
        groups[frame] = (list(compress(indices, found)), run)
        left = list(map(not_, found))
        indices, rest = list(compress(indices, left)), list(compress(rest, left))
    return groups


def _one_by_one(
    values: Sequence[bytes],
    first_offset: int | None,
    convert_one: Callable[[DecodedRecord], Any],
) -> tuple[list[Any], list[DecodedKind]]:
    decoded = [decode_framed(value, _offset(first_offset, i)) for i, value in enumerate(values)]
    return [convert_one(one) for one in decoded], [one.kind for one in decoded]


def _offset(first_offset: int | None, index: int) -> int | None:
    return None if first_offset is None else first_offset + index


def _decode_run(plan: Plan, run: Sequence[bytes]) -> list[dict[str, Any]] | None:
    """The Avro field dicts (each with its sentinel) of ``run``, whose values all start with
    ``plan``'s three frame bytes, or ``None`` when the array does not decode into exactly one
    sentinel-checked item each."""
    body = SENTINEL.join([value[3:] for value in run])
    buffer = b"".join((zigzag(len(run)), body, SENTINEL, b"\x00"))
    stream = io.BytesIO(buffer)
    writer, reader = array_schemas(plan.record_type, plan.version)
    try:
        message: Any = schemaless_reader(stream, writer, reader)
        items = message["run"]
    except _FAILED:
        return None
    if (
        not isinstance(items, list)
        or len(items) != len(run)
        or stream.tell() != len(buffer)
        or list(map(_sentinel_of, items)).count(SENTINEL) != len(run)
    ):
        return None
    return items


@cache
def array_schemas(record_type: RecordType, version: int) -> tuple[Any, Any]:
    """Parsed schemas (writer, reader or ``None``) of an array whose items are the record
    followed by the sentinel, for a run of ``record_type`` at ``version``."""
    current = CURRENT_VERSIONS[record_type]
    writer = parse_schema(_sentinel_array(raw_schema(record_type, version)))
    if version == current:
        return writer, None
    return writer, parse_schema(_sentinel_array(raw_schema(record_type, current)))


def _sentinel_array(record_schema: dict[str, Any]) -> dict[str, Any]:
    """A record whose only field is the array; fastavro re-parses a top-level array schema
    on every call (about 8 us), but not a parsed record."""
    sentinel = {
        "name": _SENTINEL_FIELD,
        "type": {"type": "fixed", "name": "AclogBulkSentinel", "size": len(SENTINEL)},
    }
    items = {**record_schema, "fields": [*record_schema["fields"], sentinel]}
    array = {"type": "array", "items": items}
    return {"type": "record", "name": "AclogBulkRun", "fields": [{"name": "run", "type": array}]}
