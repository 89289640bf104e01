"""Putting the kinds of a decoded batch in row order, and taking a batch apart into kinds.

:func:`assemble` makes the one Arrow batch of :func:`~aclog.records.column_layout.
columns_schema` from each (type, version)'s columns: a column is a kind's array as it is when
one kind fills the batch, the kinds' arrays in row order with nulls between them when each
kind's rows are one run (a request context, then ACLs), and one gather otherwise.
:func:`split` is the reverse, for a batch made whole first (the reference path's).

Thread-safe (no shared state). Cost: a few Arrow calls per column; a gather only for kinds
whose rows interleave.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from aclog.records.column_layout import (
    TYPE_CODE,
    VERSION,
    KindColumns,
    columns_schema,
    type_columns,
)
from aclog.records.types import RecordType
from aclog.records.vector import arrow_numbers, numpy_numbers


def assemble(count: int, kinds: list[KindColumns], secrets: bool) -> pa.RecordBatch:
    """Each column in row order: the arrays of every kind that has it, nulls elsewhere."""
    type_codes = np.empty(count, dtype=np.int32)
    versions = np.empty(count, dtype=np.int32)
    pieces: dict[str, list[tuple[Any, pa.Array]]] = {}
    for kind in kinds:
        type_codes[kind.rows], versions[kind.rows] = kind.record_type, kind.version
        for name, array in kind.columns.items():
            pieces.setdefault(name, []).append((kind.rows, array))
    columns = {TYPE_CODE: arrow_numbers(type_codes), VERSION: arrow_numbers(versions)}
    schema = columns_schema(secrets)
    for field in schema:
        if field.name in columns:
            continue
        parts = pieces.get(field.name, [])
        if not parts:  # no kind in the batch has this field
            columns[field.name] = pa.nulls(count, field.type)
            continue
        if len(parts) == 1 and len(parts[0][0]) == count:  # one kind fills every row
            columns[field.name] = typed(parts[0][1], field.type)
            continue
        runs = _in_runs(count, parts, field.type)
        columns[field.name] = runs if runs is not None else _gathered(count, parts, field.type)
    return pa.RecordBatch.from_arrays([columns[f.name] for f in schema], schema=schema)


def _gathered(count: int, parts: list[tuple[Any, pa.Array]], kind: pa.DataType) -> pa.Array:
    """The column of ``parts`` whose rows are scattered: one take over them all."""
    index = np.full(count, sum(len(rows) for rows, _ in parts), dtype=np.int64)
    done = 0
    for rows, _ in parts:
        index[rows] = np.arange(done, done + len(rows))
        done += len(rows)
    arrays = [typed(array, kind) for _, array in parts]
    joined = pa.concat_arrays([*arrays, pa.nulls(1, kind)])
    return joined.take(arrow_numbers(index))


def _in_runs(count: int, parts: list[tuple[Any, pa.Array]], kind: pa.DataType) -> pa.Array | None:
    """The column of ``parts`` when each part's rows are one run (as in the usual mixed batch:
    a request context, then ACLs): the parts in row order with nulls between them, no
    gather. ``None`` when a part's rows are scattered."""
    runs = []
    for rows, array in parts:
        start, stop = int(rows[0]), int(rows[-1]) + 1
        if stop - start != len(rows):  # rows are increasing: only a run spans exactly them
            return None
        runs.append((start, stop, array))
    pieces, at = [], 0
    for start, stop, array in sorted(runs, key=lambda run: run[0]):
        if start > at:
            pieces.append(pa.nulls(start - at, kind))
        pieces.append(typed(array, kind))
        at = stop
    if at < count:
        pieces.append(pa.nulls(count - at, kind))
    return pa.concat_arrays(pieces)


def typed(array: pa.Array, kind: pa.DataType) -> pa.Array:
    """``array`` as ``kind``; a cast only when it is another type (a cast loads Arrow's compute
    functions on first use: tens of milliseconds of a process's start)."""
    return array if array.type == kind else array.cast(kind)


def split(batch: pa.RecordBatch, secrets: bool) -> list[KindColumns]:
    """The kinds of a batch in row order (the reference path's; rare, so by ``take``)."""
    codes = numpy_numbers(batch.column(TYPE_CODE)).astype(np.int64)
    keys = (codes << 8) | numpy_numbers(batch.column(VERSION)).astype(np.int64)
    kinds = []
    for key in distinct(keys):
        rows = np.flatnonzero(keys == key)
        names = type_columns(RecordType(key >> 8), secrets)
        columns = {name: batch.column(name).take(arrow_numbers(rows)) for name in names}
        kinds.append(KindColumns(key >> 8, key & 0xFF, rows, columns))
    return kinds


def distinct(keys: Any) -> list[int]:
    """The distinct values of ``keys``, in order of first appearance: one pass per value (a
    batch holds a few kinds; sorting for ``np.unique`` costs more)."""
    found: list[int] = []
    rest = keys
    while len(rest):
        found.append(int(rest[0]))
        rest = rest[rest != rest[0]]
    return found
