"""Decoded records -> Arrow record batches of the source's columns, built column by column.

:class:`ColumnChunk` collects what the decoder gives (each record's Avro field dict and its
(type, version)) plus what a batch or snapshot shares, and turns it into one
:class:`pyarrow.RecordBatch` of any subset of :data:`~aclog.pipeline.schema.COLUMNS`. Python
touches each record only to append its dict and kind to two lists; the rest is vectorised:
the field dicts become one Arrow struct array in a single pyarrow call, enum codes become names
with ``take`` on a small table of names (a code this build does not know reads ``UNKNOWN``, as
the record classes decode it), ACL ids become Kafka's base64 text with one ``b64encode`` over all
of them, and a batch's shared values are repeated lists. The columns no one asked for are never
built. (Row tuples and a per-column ``pa.array`` over them cost about 5 us a record; this
about 1.5 us, measured over a 1M-record log.)

Not thread-safe (a chunk is filled by one task); the tables are immutable. Cost: O(records)
per batch, mostly in pyarrow.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from aclog.pipeline.schema import ACL_FIELDS, ARROW_SCHEMA
from aclog.records import (
    AclOperation,
    AclPermissionType,
    PatternType,
    RecordType,
    ResourceType,
    ScramMechanism,
)
from aclog.records.codec import DecodedKind
from aclog.records.types import RECORD_TYPES, record_type_name

WITH_COLUMNS = frozenset(
    int(code)
    for code in (
        RecordType.ACCESS_CONTROL_ENTRY,
        RecordType.REMOVE_ACCESS_CONTROL_ENTRY,
        RecordType.USER_SCRAM_CREDENTIAL,
        RecordType.REMOVE_USER_SCRAM_CREDENTIAL,
        RecordType.LEADER_CHANGE,
    )
)
"""Record types whose fields fill record columns. The others' dicts are left out of the struct:
a RequestContextRecord's ``principal`` is the author, not an ACL's principal."""

_FIELDS = pa.struct(
    [
        ("id", pa.binary(16)),
        ("resource_type", pa.int32()),
        ("resource_name", pa.string()),
        ("pattern_type", pa.int32()),
        ("principal", pa.string()),
        ("host", pa.string()),
        ("operation", pa.int32()),
        ("permission_type", pa.int32()),
        ("name", pa.string()),
        ("mechanism", pa.int32()),
        ("iterations", pa.int32()),
        ("leader_id", pa.int32()),
    ]
)
"""The Avro fields the record columns come from (Salt, StoredKey and ServerKey are not among
them: pyarrow ignores dict keys the struct does not name, so secrets never reach Arrow)."""


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


def enum_name_lists() -> dict[str, list[str]]:
    """Enum column -> its names indexed by code (gaps read ``UNKNOWN``), for other builders of
    the same columns."""
    return {name: names.to_pylist() for name, names in _ENUM_NAMES.items()}


def type_name_list() -> list[str]:
    """Record type names indexed by type code."""
    return list(_TYPE_NAMES.to_pylist())


FIELD_OF_COLUMN = {
    "acl_id": "id",
    **{name: name for name in ACL_FIELDS},
    "user": "name",
    "mechanism": "mechanism",
    "iterations": "iterations",
    "leader_id": "leader_id",
}
"""Record column -> the Avro field it is read from, in the records of :data:`WITH_COLUMNS` that
have that field (every builder of the record columns reads them from here)."""

AUTHOR_FIELDS = ("principal", "client_address", "client_id", "api")
"""The RequestContextRecord fields of the ``author_*`` columns, in column order."""

NO_AUTHOR: tuple[None, ...] = (None,) * len(AUTHOR_FIELDS)


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


def author_of(kind: DecodedKind, fields: dict[str, Any]) -> tuple[Any, ...]:
    """The author columns of a batch whose first record is (``kind``, ``fields``)."""
    if kind[0] != RecordType.REQUEST_CONTEXT:
        return NO_AUTHOR
    return tuple(fields.get(name) for name in AUTHOR_FIELDS)


@dataclass(frozen=True, slots=True)
class Run:
    """Consecutive records that share where they come from: ``count`` records, the first at
    ``offset`` and ``position``, each next one a position further and ``step`` (1 in a log
    batch, 0 in a snapshot) offsets further."""

    count: int
    offset: int
    step: int
    position: int
    epoch: int
    timestamp_ms: int
    batch_base_offset: int | None
    batch_last_offset: int | None
    source: str
    author: tuple[Any, ...]


_RUN_COLUMNS = {
    "epoch": ("epoch", pa.int32()),
    "timestamp_ms": ("timestamp_ms", pa.int64()),
    "batch_base_offset": ("batch_base_offset", pa.int64()),
    "batch_last_offset": ("batch_last_offset", pa.int64()),
    "source": ("source", pa.string()),
}
"""Columns every record of a run shares: column -> (run attribute, Arrow type)."""

_AUTHOR_COLUMNS = ("author_principal", "author_address", "author_client_id", "author_api")


class ColumnChunk:
    """Records gathered for one Arrow batch (see the module docstring)."""

    def __init__(self) -> None:
        self.fields: list[dict[str, Any]] = []
        self.kinds: list[DecodedKind] = []
        self.runs: list[Run] = []

    def __len__(self) -> int:
        return len(self.kinds)

    def add(self, fields: Sequence[dict[str, Any]], kinds: Sequence[DecodedKind], run: Run) -> None:
        """Append the records of ``run``: their Avro field dicts and (type, version)."""
        self.fields += fields
        self.kinds += kinds
        self.runs.append(run)

    def to_batch(self, schema: pa.Schema = ARROW_SCHEMA) -> pa.RecordBatch:
        """The gathered records as one batch of ``schema`` (a subset of the source's)."""
        builders = self._builders()
        return pa.RecordBatch.from_arrays([builders[f.name]() for f in schema], schema=schema)

    def _builders(self) -> dict[str, Callable[[], pa.Array]]:
        record = _RecordColumns(self.fields, self.kinds)
        runs = _RunColumns(self.runs)
        columns: dict[str, Callable[[], pa.Array]] = {
            "offset": runs.offsets,
            "position": runs.positions,
            "timestamp": lambda: pc.multiply(runs.shared("timestamp_ms"), 1000).cast(
                ARROW_SCHEMA.field("timestamp").type
            ),
            "type": lambda: pc.take(_TYPE_NAMES, record.codes()),
            "type_code": record.codes,
            "version": lambda: pa.array([kind[1] for kind in self.kinds], pa.int32()),
        }
        for name in _RUN_COLUMNS:
            columns[name] = partial(runs.shared, name)
        for index, name in enumerate(_AUTHOR_COLUMNS):
            columns[name] = partial(runs.author, index)
        for name in FIELD_OF_COLUMN:
            columns[name] = partial(record.column, name)
        return columns


class _RunColumns:
    """The columns that come from runs: one value per run, repeated with ``take``."""

    def __init__(self, runs: list[Run]) -> None:
        self._runs = runs
        counts = np.fromiter((run.count for run in runs), dtype=np.int64, count=len(runs))
        self._index = pa.array(np.repeat(np.arange(len(runs), dtype=np.int64), counts))
        starts = np.cumsum(counts) - counts
        self._within = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(starts, counts)
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

    def author(self, index: int) -> pa.Array:
        values = pa.array([run.author[index] for run in self._runs], pa.string())
        return pc.take(values, self._index)


_EMPTY: dict[str, Any] = {}


class _RecordColumns:
    """The record columns of a chunk, built on first use from one struct array."""

    def __init__(self, fields: list[dict[str, Any]], kinds: list[DecodedKind]) -> None:
        self._fields, self._kinds = fields, kinds
        self._codes: pa.Array | None = None
        self._struct: pa.StructArray | None = None

    def codes(self) -> pa.Array:
        if self._codes is None:
            self._codes = pa.array([kind[0] for kind in self._kinds], pa.int32())
        return self._codes

    def column(self, name: str) -> pa.Array:
        if self._struct is None:
            keep = WITH_COLUMNS
            # An empty dict, not None: its fields are null and the struct has no nulls to
            # fold into every column.
            dicts = [
                d if kind[0] in keep else _EMPTY
                for d, kind in zip(self._fields, self._kinds, strict=True)
            ]
            self._struct = pa.array(dicts, type=_FIELDS)
        values = self._struct.field(FIELD_OF_COLUMN[name])
        if name == "acl_id":
            return kafka_uuid_texts(values)
        names = _ENUM_NAMES.get(name)
        return values if names is None else _named(values, names)
