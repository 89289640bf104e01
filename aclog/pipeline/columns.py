"""Decoded record columns -> Arrow record batches of the source's columns, column by column.

A :class:`ColumnChunk` is what the columnar decoder gave for some records (one batch of
:func:`aclog.records.columnar.columns_schema`: type codes and field values, enum codes as
written, no SCRAM secrets) plus the :class:`Run`\\ s saying where they sit (log batch or
snapshot: offsets, epoch, time). :meth:`ColumnChunk.to_batch` turns it into one
:class:`pyarrow.RecordBatch` of any subset of :data:`~aclog.pipeline.schema.COLUMNS`, all
vectorised: enum codes become names with ``take`` on a small table of names (a code this build
does not know reads ``UNKNOWN``, as the record classes decode it), ACL ids become Kafka's base64
text with one ``b64encode`` over all of them, a run's shared values and its author (the
request context that starts a log batch) are repeated with ``take``. Columns no one asked for
are never built.

Not thread-safe (a chunk belongs to one task); the tables are immutable. Cost: O(records) per
batch, in numpy and pyarrow.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from aclog.pipeline.schema import ACL_FIELDS, ARROW_SCHEMA, SOURCE_LOG
from aclog.records import (
    AclOperation,
    AclPermissionType,
    PatternType,
    RecordType,
    ResourceType,
    ScramMechanism,
)
from aclog.records.columnar import CONTEXT_PREFIX, TYPE_CODE, VERSION
from aclog.records.types import RECORD_TYPES, record_type_name


def _names(table: dict[int, str]) -> pa.Array:
    """Names indexed by code; gaps read ``UNKNOWN`` (code 0's name)."""
    unknown = table.get(0, "UNKNOWN")
    return pa.array([table.get(code, unknown) for code in range(max(table) + 1)], pa.string())


_ENUM_NAMES: dict[str, pa.Array] = {
    "resource_type": _names({m.value: m.name for m in ResourceType}),
    "pattern_type": _names({m.value: m.name for m in PatternType}),
    "operation": _names({m.value: m.name for m in AclOperation}),
    "permission_type": _names({m.value: m.name for m in AclPermissionType}),
    "mechanism": _names({m.value: m.mechanism_name for m in ScramMechanism}),
}
_TYPE_NAMES = _names({int(code): record_type_name(code) for code in RECORD_TYPES.values()})

FIELD_OF_COLUMN = {
    "acl_id": "id",
    **{name: name for name in ACL_FIELDS},
    "user": "name",
    "mechanism": "mechanism",
    "iterations": "iterations",
    "leader_id": "leader_id",
}
"""Record column -> the decoder's column it is read from (the request context's fields are
prefixed there, so an ACL's ``principal`` is never the author's)."""

AUTHOR_COLUMNS = {
    "author_principal": CONTEXT_PREFIX + "principal",
    "author_address": CONTEXT_PREFIX + "client_address",
    "author_client_id": CONTEXT_PREFIX + "client_id",
    "author_api": CONTEXT_PREFIX + "api",
}
"""Author column -> the request context's column it is read from."""


def _named(codes: pa.Array, names: pa.Array) -> pa.Array:
    """Each code's name; a code outside the table reads ``names[0]`` (UNKNOWN), null stays."""
    known = pc.and_(pc.greater_equal(codes, 0), pc.less(codes, len(names)))
    return pc.take(names, pc.if_else(known, codes, 0))


def kafka_uuid_texts(ids: pa.Array) -> pa.Array:
    """Kafka's base64 text of each 16-byte id (null stays null), with one ``b64encode``: each
    id padded to 18 bytes encodes to 24 characters whose first 22 are the id's text."""
    count = len(ids)
    raw = np.frombuffer(ids.buffers()[1], dtype=np.uint8)
    raw = raw[ids.offset * 16 : (ids.offset + count) * 16].reshape(count, 16)
    padded = np.zeros((count, 18), dtype=np.uint8)
    padded[:, :16] = raw
    encoded = np.frombuffer(base64.urlsafe_b64encode(padded.tobytes()), dtype=np.uint8)
    text = np.ascontiguousarray(encoded.reshape(count, 24)[:, :22])
    offsets = np.arange(0, 22 * (count + 1), 22, dtype=np.int32)
    texts = pa.Array.from_buffers(
        pa.string(), count, [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(text.tobytes())]
    )
    if ids.null_count == 0:
        return texts
    return pc.if_else(ids.is_valid(), texts, pa.scalar(None, pa.string()))


@dataclass(frozen=True, slots=True)
class Run:
    """Consecutive records that share where they come from: ``count`` records, the first at
    ``offset`` and ``position``, each next one a position further and ``step`` (1 in a log
    batch, 0 in a snapshot) offsets further. The first ``skip`` are dropped from the output
    (records below the reader's start offset) after the batch's author is read from the first.
    A log run's author is its first record when that is a request context."""

    count: int
    offset: int
    step: int
    position: int
    epoch: int
    timestamp_ms: int
    batch_base_offset: int | None
    batch_last_offset: int | None
    source: str
    skip: int = 0


_RUN_COLUMNS = {
    "epoch": ("epoch", pa.int32()),
    "timestamp_ms": ("timestamp_ms", pa.int64()),
    "batch_base_offset": ("batch_base_offset", pa.int64()),
    "batch_last_offset": ("batch_last_offset", pa.int64()),
    "source": ("source", pa.string()),
}
"""Columns every record of a run shares: column -> (run attribute, Arrow type)."""


@dataclass(frozen=True)
class ColumnChunk:
    """Decoded records (a batch of the decoder's columns) and the runs they form, in order."""

    records: pa.RecordBatch
    runs: list[Run]

    def __len__(self) -> int:
        return int(self.records.num_rows) - sum(run.skip for run in self.runs)

    def to_batch(self, schema: pa.Schema = ARROW_SCHEMA) -> pa.RecordBatch:
        """The records as one batch of ``schema`` (a subset of the source's columns)."""
        builders = _builders(self.records, _RunColumns(self.runs))
        batch = pa.RecordBatch.from_arrays([builders[f.name]() for f in schema], schema=schema)
        keep = self._kept()
        return batch if keep is None else batch.filter(keep)

    def raw(self, column: str) -> pa.Array:
        """The decoder's ``column`` as it was decoded (``id``: the 16-byte ids), one value per
        row of :meth:`to_batch`: for a reader that compares values rather than shows them."""
        values = self.records.column(column)
        keep = self._kept()
        return values if keep is None else values.filter(keep)

    def _kept(self) -> pa.Array | None:
        """Which decoded records are rows (``None``: all); the skipped ones are not."""
        if not any(run.skip for run in self.runs):
            return None
        keep = np.ones(self.records.num_rows, dtype=bool)
        for run, start in zip(self.runs, _starts(self.runs).tolist(), strict=True):
            keep[start : start + run.skip] = False
        return pa.array(keep)


def _starts(runs: list[Run]) -> Any:
    counts = np.fromiter((run.count for run in runs), dtype=np.int64, count=len(runs))
    return np.cumsum(counts) - counts


def _builders(records: pa.RecordBatch, runs: _RunColumns) -> dict[str, Callable[[], pa.Array]]:
    codes = records.column(TYPE_CODE)
    columns: dict[str, Callable[[], pa.Array]] = {
        "offset": runs.offsets,
        "position": runs.positions,
        "timestamp": lambda: pc.multiply(runs.shared("timestamp_ms"), 1000).cast(
            ARROW_SCHEMA.field("timestamp").type
        ),
        "type": lambda: pc.take(_TYPE_NAMES, codes),
        "type_code": lambda: codes,
        "version": lambda: records.column(VERSION),
    }
    for name in _RUN_COLUMNS:
        columns[name] = partial(runs.shared, name)
    for name, source in AUTHOR_COLUMNS.items():
        columns[name] = partial(runs.author, records.column(source), codes)
    for name, source in FIELD_OF_COLUMN.items():
        columns[name] = partial(_record_column, name, records.column(source))
    return columns


def _record_column(name: str, values: pa.Array) -> pa.Array:
    if name == "acl_id":
        return kafka_uuid_texts(values)
    names = _ENUM_NAMES.get(name)
    return values if names is None else _named(values, names)


class _RunColumns:
    """The columns that come from runs: one value per run, repeated with ``take``."""

    def __init__(self, runs: list[Run]) -> None:
        self._runs = runs
        counts = np.fromiter((run.count for run in runs), dtype=np.int64, count=len(runs))
        self._index = pa.array(np.repeat(np.arange(len(runs), dtype=np.int64), counts))
        self._starts = np.cumsum(counts) - counts
        self._within = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(
            self._starts, counts
        )
        self._counts = counts

    def _per_run(self, values: list[int]) -> Any:
        return np.repeat(np.array(values, dtype=np.int64), self._counts)

    def offsets(self) -> pa.Array:
        first = self._per_run([run.offset for run in self._runs])
        step = self._per_run([run.step for run in self._runs])
        return pa.array(first + step * self._within)

    def positions(self) -> pa.Array:
        return pa.array(self._per_run([run.position for run in self._runs]) + self._within)

    def shared(self, name: str) -> pa.Array:
        attribute, kind = _RUN_COLUMNS[name]
        values = pa.array([getattr(run, attribute) for run in self._runs], kind)
        return pc.take(values, self._index)

    def author(self, values: pa.Array, codes: pa.Array) -> pa.Array:
        """``values`` (a request context column) at the first record of each log run whose
        first record is a request context; null elsewhere."""
        if not self._runs:
            return pa.array([], pa.string())
        first = pa.array(self._starts)
        authored = pc.and_(
            pc.equal(pc.take(codes, first), int(RecordType.REQUEST_CONTEXT)),
            pa.array([run.source == SOURCE_LOG for run in self._runs]),
        )
        per_run = pc.if_else(authored, pc.take(values, first), pa.scalar(None, pa.string()))
        return pc.take(per_run, self._index)
