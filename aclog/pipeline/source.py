"""``spark.read.format("aclog").load(DIR)``: the records of a data directory as a DataFrame.

A PySpark 4 Python data source. Planning (:meth:`AclogReader.partitions`) lists the segments and
makes one partition per segment, splitting a large segment at its sparse-index entries into
pieces of about ``split_bytes``, and one partition per snapshot when ``snapshots`` asks for them.
Each task decodes its piece with the one decoder (:func:`aclog.records.bulk.decode_fields`: each
batch's Avro field values, no record objects) and yields Arrow record batches of
:data:`~aclog.pipeline.schema.ARROW_SCHEMA` (or plain tuples with ``arrow=false``, which Spark
converts itself, value by value: about 15% slower end to end, measured over 5M records).

Options (all strings, as Spark passes them):

- ``path`` (``load(DIR)``): the data directory;
- ``snapshots``: ``none`` (default), ``all``, or a comma-separated list of snapshot paths;
- ``segments``: ``true`` (default) or ``false`` (snapshots only);
- ``from_offset``: skip log records below this offset (default 0);
- ``split_bytes``: the largest piece of a segment one task reads (default 16 MiB);
- ``min_partitions``: split segments further until there are about this many log pieces;
- ``batch_rows``: rows per Arrow batch (default 8192);
- ``arrow``: ``true`` (default) or ``false``.

A piece owns the batches whose base offset lies in its range, so a stale index entry can move a
split point but never duplicate or drop a batch. Corruption raises ``CorruptLogError`` (a torn
tail is tolerated only at the end of the last segment, as for every reader).

The planner and the reader run in Python workers, so ``aclog`` must be importable there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from aclog.log import LogBatch, read_batches
from aclog.log.index import OffsetIndex
from aclog.log.segment import list_segments
from aclog.pipeline.schema import (
    ARROW_SCHEMA,
    COLUMN_NAMES,
    RECORD_SCHEMA,
    SOURCE_LOG,
    SOURCE_SNAPSHOT,
)
from aclog.records import (
    AclOperation,
    AclPermissionType,
    PatternType,
    RecordType,
    ResourceType,
    ScramMechanism,
    kafka_uuid_bytes_text,
)
from aclog.records.bulk import decode_fields
from aclog.records.codec import DecodedKind, record_to_fields
from aclog.records.schemas import CURRENT_VERSIONS
from aclog.records.types import RECORD_TYPES, record_type_name
from aclog.snapshot import list_snapshots, read_snapshot

FORMAT_NAME = "aclog"
DEFAULT_SPLIT_BYTES = 16 << 20
DEFAULT_BATCH_ROWS = 8192

Row = tuple[Any, ...]

# Enum code -> the name every JSON output uses: one dict probe instead of ``.name``. One table per
# enum: IntEnum members of different enums with the same code are equal dict keys.
_RESOURCE_TYPES: dict[int, str] = {m.value: m.name for m in ResourceType}
_PATTERN_TYPES: dict[int, str] = {m.value: m.name for m in PatternType}
_OPERATIONS: dict[int, str] = {m.value: m.name for m in AclOperation}
_PERMISSIONS: dict[int, str] = {m.value: m.name for m in AclPermissionType}
_MECHANISMS: dict[int, str] = {m.value: m.mechanism_name for m in ScramMechanism}
_TYPE_NAMES: dict[int, str] = {code: record_type_name(code) for code in RECORD_TYPES.values()}
_TYPES: dict[int, tuple[str, int]] = {
    code: (record_type_name(code), int(code)) for code in RECORD_TYPES.values()
}
_NO_FIELDS: Row = (None,) * 12
_NO_AUTHOR: Row = (None,) * 4


@dataclass
class LogPiece(InputPartition):
    """The log batches whose base offset is in ``[low, high)`` (``high`` None: to the end);
    records below ``from_offset`` are skipped."""

    directory: str
    low: int
    high: int | None
    from_offset: int

    def __post_init__(self) -> None:
        InputPartition.__init__(self, (self.directory, self.low, self.high))


@dataclass
class SnapshotPiece(InputPartition):
    """Every record of one snapshot file."""

    path: str

    def __post_init__(self) -> None:
        InputPartition.__init__(self, self.path)


def _named(table: dict[int, str]) -> Callable[[int], str]:
    """Code -> name, and a code this build does not know -> ``UNKNOWN`` (code 0), as the record
    dataclasses decode it."""
    get, unknown = table.get, table[0]
    return lambda code: get(code, unknown)


_resource_type, _pattern_type = _named(_RESOURCE_TYPES), _named(_PATTERN_TYPES)
_operation, _permission = _named(_OPERATIONS), _named(_PERMISSIONS)
_mechanism = _named(_MECHANISMS)


def _acl_fields(d: dict[str, Any]) -> Row:
    return (
        kafka_uuid_bytes_text(d["id"]),
        _resource_type(d["resource_type"]),
        d["resource_name"],
        _pattern_type(d["pattern_type"]),
        d["principal"],
        d["host"],
        _operation(d["operation"]),
        _permission(d["permission_type"]),
        None,
        None,
        None,
        None,
    )


def _remove_acl_fields(d: dict[str, Any]) -> Row:
    return (kafka_uuid_bytes_text(d["id"]), *_NO_FIELDS[1:])


def _scram_fields(d: dict[str, Any]) -> Row:
    # Salt, StoredKey and ServerKey are deliberately not read: they never leave the decoder.
    return (*_NO_FIELDS[:8], d["name"], _mechanism(d["mechanism"]), d["iterations"], None)


def _remove_scram_fields(d: dict[str, Any]) -> Row:
    return (*_NO_FIELDS[:8], d["name"], _mechanism(d["mechanism"]), None, None)


def _leader_fields(d: dict[str, Any]) -> Row:
    return (*_NO_FIELDS[:11], d["leader_id"])


_FIELDS: dict[int, Callable[[dict[str, Any]], Row]] = {
    RecordType.ACCESS_CONTROL_ENTRY: _acl_fields,
    RecordType.REMOVE_ACCESS_CONTROL_ENTRY: _remove_acl_fields,
    RecordType.USER_SCRAM_CREDENTIAL: _scram_fields,
    RecordType.REMOVE_USER_SCRAM_CREDENTIAL: _remove_scram_fields,
    RecordType.LEADER_CHANGE: _leader_fields,
}
"""Record type code -> the 12 record columns (acl_id, 7 ACL fields, user, mechanism,
iterations, leader_id) from the record's Avro fields; other types have none."""


def _record_fields(code: int, fields: dict[str, Any]) -> Row:
    build = _FIELDS.get(code)
    return _NO_FIELDS if build is None else build(fields)


def _author(code: int, fields: dict[str, Any]) -> Row:
    """The author columns of a batch whose first record is (``code``, ``fields``)."""
    if code != RecordType.REQUEST_CONTEXT:
        return _NO_AUTHOR
    return (fields["principal"], fields["client_address"], fields["client_id"], fields["api"])


def read_log_rows(piece: LogPiece) -> Iterator[Row]:
    """The rows of one log piece in offset order, in :data:`~aclog.pipeline.schema.COLUMNS`
    order with ``timestamp`` still in milliseconds; what a batch shares is computed once.
    Records are decoded to their Avro fields (:func:`~aclog.records.bulk.decode_fields`): the
    columns are copied out of those, so no record object is ever built."""
    low, high, start = piece.low, piece.high, piece.from_offset
    for batch in read_batches(Path(piece.directory), max(low, start), high):
        base = batch.base_offset
        if base < low:
            continue  # owned by the previous piece (a split point inside this batch)
        if high is not None and base >= high:
            return
        fields, kinds = decode_fields(batch.values, base)
        if not fields:
            continue
        yield from _batch_rows(batch, fields, kinds, max(0, start - base))


def _batch_rows(
    batch: LogBatch, fields: list[dict[str, Any]], kinds: list[DecodedKind], skip: int
) -> Iterator[Row]:
    base, types, columns_of = batch.base_offset, _TYPES, _FIELDS.get
    shared = (batch.epoch, batch.timestamp_ms, batch.timestamp_ms, base, batch.last_offset)
    author = _author(kinds[0][0], fields[0])
    pairs = zip(kinds[skip:], fields[skip:], strict=True)
    for position, ((code, version), values) in enumerate(pairs, skip):
        build = columns_of(code)
        yield (
            base + position,
            *shared,
            SOURCE_LOG,
            position,
            *types[code],
            version,
            *author,
            *(_NO_FIELDS if build is None else build(values)),
        )


def read_snapshot_rows(path: str) -> Iterator[Row]:
    """The rows of one snapshot: its records at its last offset, epoch and time."""
    reader = read_snapshot(path)
    info = reader.info
    for position, record in enumerate(reader.records()):
        code = int(RECORD_TYPES[type(record)])
        yield (
            info.last_offset,
            info.epoch,
            info.timestamp_ms,
            info.timestamp_ms,
            None,
            None,
            SOURCE_SNAPSHOT,
            position,
            _TYPE_NAMES[code],
            code,
            CURRENT_VERSIONS[RECORD_TYPES[type(record)]],
            *_NO_AUTHOR,
            *_record_fields(code, record_to_fields(record)),
        )


_TIMESTAMP_COLUMN = COLUMN_NAMES.index("timestamp")


def rows_to_batch(rows: Sequence[Row]) -> pa.RecordBatch:
    """Rows (``timestamp`` in milliseconds) as one Arrow batch of the declared schema."""
    arrays = []
    for column, field in zip(zip(*rows, strict=True), ARROW_SCHEMA, strict=True):
        if field.name == "timestamp":
            millis = pa.array(column, type=pa.int64())
            arrays.append(pc.multiply(millis, 1000).cast(field.type))
        else:
            arrays.append(pa.array(column, type=field.type))
    return pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)


def _as_tuple(row: Row) -> Row:
    ms = row[_TIMESTAMP_COLUMN]
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return (*row[:_TIMESTAMP_COLUMN], moment, *row[_TIMESTAMP_COLUMN + 1 :])


def _flag(options: dict[str, str], name: str, default: bool) -> bool:
    value = options.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("true", "1", "yes")


def plan_pieces(
    directory: Path,
    *,
    from_offset: int = 0,
    split_bytes: int = DEFAULT_SPLIT_BYTES,
    min_partitions: int = 1,
) -> list[LogPiece]:
    """The log pieces of ``directory``: one per segment, large segments split at index entries
    so that no piece is much over ``split_bytes`` and there are about ``min_partitions``."""
    segments = list_segments(directory)
    sizes = [path.stat().st_size for _, path in segments]
    target = max(1, min(split_bytes, sum(sizes) // max(min_partitions, 1) or 1))
    pieces: list[LogPiece] = []
    for i, (base, path) in enumerate(segments):
        high = segments[i + 1][0] if i + 1 < len(segments) else None
        if high is not None and high <= from_offset:
            continue
        bounds = [base, *_split_offsets(path, base, sizes[i], target)]
        ends: list[int | None] = [*bounds[1:], high]
        for low, end in zip(bounds, ends, strict=True):
            if end is not None and end <= from_offset:
                continue
            pieces.append(LogPiece(str(directory), low, end, from_offset))
    return pieces


def _split_offsets(path: Path, base: int, size: int, target: int) -> list[int]:
    """Offsets of index entries about ``target`` bytes apart (batch starts, per the index)."""
    if size <= target:
        return []
    index = OffsetIndex.load(path, base)
    splits: list[int] = []
    next_cut = target
    for offset, position in zip(index.offsets, index.positions, strict=True):
        if position >= next_cut and size - position >= target // 4 and offset > base:
            splits.append(offset)
            next_cut = position + target
    return splits


def snapshot_paths(directory: Path, choice: str) -> list[str]:
    """The snapshot files the ``snapshots`` option names."""
    choice = choice.strip()
    if choice in ("", "none"):
        return []
    if choice == "all":
        return [str(s.path) for s in list_snapshots(directory)]
    return [part.strip() for part in choice.split(",") if part.strip()]


class AclogReader(DataSourceReader):
    """Plans pieces and decodes them (see the module docstring)."""

    def __init__(self, options: dict[str, str]) -> None:
        self.directory = Path(options.get("path", "."))
        self.snapshots = options.get("snapshots", "none")
        self.segments = _flag(options, "segments", True)
        self.from_offset = int(options.get("from_offset", "0"))
        self.split_bytes = int(options.get("split_bytes", str(DEFAULT_SPLIT_BYTES)))
        self.min_partitions = int(options.get("min_partitions", "1"))
        self.batch_rows = int(options.get("batch_rows", str(DEFAULT_BATCH_ROWS)))
        self.arrow = _flag(options, "arrow", True)

    def partitions(self) -> Sequence[InputPartition]:
        if not self.directory.is_dir():
            raise FileNotFoundError(f"no aclog data directory at {self.directory}")
        parts: list[InputPartition] = [
            SnapshotPiece(path) for path in snapshot_paths(self.directory, self.snapshots)
        ]
        if self.segments:
            parts.extend(
                plan_pieces(
                    self.directory,
                    from_offset=self.from_offset,
                    split_bytes=self.split_bytes,
                    min_partitions=self.min_partitions,
                )
            )
        # Spark needs at least one partition; an empty piece past the end reads nothing.
        return parts or [LogPiece(str(self.directory), 0, 0, 0)]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        if isinstance(partition, SnapshotPiece):
            rows = read_snapshot_rows(partition.path)
        elif isinstance(partition, LogPiece):
            rows = read_log_rows(partition)
        else:  # pragma: no cover - Spark only hands back what partitions() returned
            raise TypeError(f"unexpected partition {partition!r}")
        if not self.arrow:
            yield from map(_as_tuple, rows)
            return
        chunk: list[Row] = []
        for row in rows:
            chunk.append(row)
            if len(chunk) >= self.batch_rows:
                yield rows_to_batch(chunk)
                chunk = []
        if chunk:
            yield rows_to_batch(chunk)


class AclogDataSource(DataSource):
    """The ``aclog`` format: ``spark.read.format("aclog").load(DIR)``."""

    @classmethod
    def name(cls) -> str:
        return FORMAT_NAME

    def schema(self) -> StructType:
        return RECORD_SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        del schema
        return AclogReader(dict(self.options))
