"""``spark.read.format("aclog").load(DIR)``: the records of a data directory as a DataFrame.

A PySpark 4 Python data source. Planning (:meth:`AclogReader.partitions`,
:mod:`aclog.pipeline.pieces`) lists the segments and makes one partition per segment, splitting
a large segment at its sparse-index entries into pieces of about ``split_bytes``, and one
partition per snapshot when ``snapshots`` asks for them.
Each task decodes its piece with the columnar decoder (:func:`aclog.records.columnar.
decode_columns`: numpy passes over the batches' values, no record objects), names the columns
with :class:`~aclog.pipeline.columns.ColumnChunk` and yields Arrow record batches of
:data:`~aclog.pipeline.schema.ARROW_SCHEMA` (or plain tuples with ``arrow=false``, which Spark
converts itself, value by value). Given a narrower schema (``spark.read.schema(...)``, any subset
of the columns) the reader builds and sends only those columns.

Options (all strings, as Spark passes them):

- ``path`` (``load(DIR)``): the data directory;
- ``snapshots``: ``none`` (default), ``all``, or a comma-separated list of snapshot paths;
  relative paths (these and ``path``) are resolved where the plan is made, beside the driver;
- ``segments``: ``true`` (default) or ``false`` (snapshots only);
- ``from_offset``: skip log records below this offset (default 0);
- ``split_bytes``: the largest piece of a segment one task reads (default 16 MiB);
- ``min_partitions``: split segments further until there are about this many log pieces;
- ``batch_rows``: rows per Arrow batch (default 65536: fewer, larger batches cost Spark and
  the decoder less per row);
- ``arrow``: ``true`` (default) or ``false``.

A piece owns the batches whose base offset lies in its range, so a stale index entry can move a
split point but never duplicate or drop a batch. Corruption raises ``CorruptLogError`` (a torn
tail is tolerated only at the end of the last segment, as for every reader).

The planner and the reader run in Python workers, so ``aclog`` must be importable there.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from aclog.log import read_batches
from aclog.pipeline.columns import ColumnChunk, Run
from aclog.pipeline.pieces import (
    DEFAULT_SPLIT_BYTES,
    LogPiece,
    SnapshotPiece,
    absolute_snapshots,
    plan_pieces,
    snapshot_paths,
)
from aclog.pipeline.schema import (
    ARROW_SCHEMA,
    COLUMN_NAMES,
    RECORD_SCHEMA,
    SOURCE_LOG,
    SOURCE_SNAPSHOT,
)
from aclog.records.codec import DecodedKind, record_to_fields
from aclog.records.columnar import columns_from_fields, decode_columns
from aclog.records.schemas import CURRENT_VERSIONS
from aclog.records.types import RECORD_TYPES
from aclog.snapshot import SnapshotInfo, read_snapshot

FORMAT_NAME = "aclog"
DEFAULT_BATCH_ROWS = 65536

Row = tuple[Any, ...]


def log_chunks(piece: LogPiece, batch_rows: int = DEFAULT_BATCH_ROWS) -> Iterator[ColumnChunk]:
    """The records of one log piece in offset order, in chunks of about ``batch_rows`` (whole
    log batches). The values of a chunk's batches are decoded together by the columnar decoder
    (:func:`~aclog.records.columnar.decode_columns`): no record object is ever built."""
    low, high, start = piece.low, piece.high, piece.from_offset
    values: list[bytes] = []
    runs: list[Run] = []
    kept = 0
    for batch in read_batches(Path(piece.directory), max(low, start), high):
        base = batch.base_offset
        if base < low:
            continue  # owned by the previous piece (a split point inside this batch)
        if high is not None and base >= high:
            break
        count = len(batch.values)
        skip = min(max(0, start - base), count)
        if count == 0:
            continue
        values += batch.values
        runs.append(
            Run(
                count,
                base,
                1,
                0,
                batch.epoch,
                batch.timestamp_ms,
                base,
                batch.last_offset,
                SOURCE_LOG,
                skip,
            )
        )
        kept += count - skip
        if kept >= batch_rows:
            yield _log_chunk(values, runs)
            values, runs, kept = [], [], 0
    if kept:
        yield _log_chunk(values, runs)


def _log_chunk(values: list[bytes], runs: list[Run]) -> ColumnChunk:
    offsets: Any = np.concatenate([run.offset + np.arange(run.count) for run in runs])
    return ColumnChunk(decode_columns(values, offsets), runs)


def snapshot_chunks(path: str, batch_rows: int = DEFAULT_BATCH_ROWS) -> Iterator[ColumnChunk]:
    """The records of one snapshot at its last offset, epoch and time, ``position`` their
    index in the file, in chunks of ``batch_rows``."""
    reader = read_snapshot(path)
    info = reader.info
    fields: list[dict[str, Any]] = []
    kinds: list[DecodedKind] = []
    done = 0
    for record in reader.records():
        record_type = RECORD_TYPES[type(record)]
        fields.append(record_to_fields(record))
        kinds.append((record_type, CURRENT_VERSIONS[record_type]))
        if len(kinds) >= batch_rows:
            yield _snapshot_chunk(fields, kinds, info, done)
            done += len(kinds)
            fields, kinds = [], []
    if kinds:
        yield _snapshot_chunk(fields, kinds, info, done)


def _snapshot_chunk(
    fields: list[dict[str, Any]], kinds: list[DecodedKind], info: SnapshotInfo, done: int
) -> ColumnChunk:
    run = Run(
        len(kinds),
        info.last_offset,
        0,
        done,
        info.epoch,
        info.timestamp_ms,
        None,
        None,
        SOURCE_SNAPSHOT,
    )
    return ColumnChunk(columns_from_fields(kinds, fields), [run])


_TIMESTAMP_COLUMN = COLUMN_NAMES.index("timestamp")


def _rows(chunks: Iterator[ColumnChunk]) -> Iterator[Row]:
    """Rows in :data:`~aclog.pipeline.schema.COLUMNS` order, ``timestamp`` in milliseconds."""
    for chunk in chunks:
        columns = [column.to_pylist() for column in chunk.to_batch().columns]
        columns[_TIMESTAMP_COLUMN] = columns[COLUMN_NAMES.index("timestamp_ms")]
        yield from zip(*columns, strict=True)


def read_log_rows(piece: LogPiece) -> Iterator[Row]:
    """The rows of one log piece as tuples (see :func:`_rows`); for tests and small reads."""
    return _rows(log_chunks(piece))


def read_snapshot_rows(path: str) -> Iterator[Row]:
    """The rows of one snapshot as tuples (see :func:`_rows`)."""
    return _rows(snapshot_chunks(path))


def _flag(options: dict[str, str], name: str, default: bool) -> bool:
    value = options.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("true", "1", "yes")


def arrow_schema(schema: StructType) -> pa.Schema:
    """The Arrow schema of batches for ``schema``: any subset of the source's columns, in any
    order (a narrower schema builds only those columns). Raises ``ValueError`` for a column the
    source does not have or a type it does not produce."""
    fields = []
    for field in schema.fields:
        if field.name not in COLUMN_NAMES or field.dataType != RECORD_SCHEMA[field.name].dataType:
            raise ValueError(
                f"the aclog source has no column {field.name} {field.dataType.simpleString()}; "
                f"its columns are {RECORD_SCHEMA.simpleString()}"
            )
        fields.append(ARROW_SCHEMA.field(field.name).with_nullable(field.nullable))
    return pa.schema(fields)


class AclogReader(DataSourceReader):
    """Plans pieces and decodes them (see the module docstring)."""

    def __init__(self, options: dict[str, str], schema: StructType = RECORD_SCHEMA) -> None:
        # Planning runs beside the driver, in its working directory; the pieces that reach
        # the executors (which run in theirs) carry absolute paths.
        self.directory = Path(options.get("path", ".")).resolve()
        self.snapshots = absolute_snapshots(options.get("snapshots", "none"))
        self.segments = _flag(options, "segments", True)
        self.from_offset = int(options.get("from_offset", "0"))
        self.split_bytes = int(options.get("split_bytes", str(DEFAULT_SPLIT_BYTES)))
        self.min_partitions = int(options.get("min_partitions", "1"))
        self.batch_rows = int(options.get("batch_rows", str(DEFAULT_BATCH_ROWS)))
        self.arrow = _flag(options, "arrow", True)
        self.schema = arrow_schema(schema)

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
            chunks = snapshot_chunks(partition.path, self.batch_rows)
        elif isinstance(partition, LogPiece):
            chunks = log_chunks(partition, self.batch_rows)
        else:  # pragma: no cover - Spark only hands back what partitions() returned
            raise TypeError(f"unexpected partition {partition!r}")
        for chunk in chunks:
            batch = chunk.to_batch(self.schema)
            if self.arrow:
                yield batch
            else:
                yield from zip(*(column.to_pylist() for column in batch.columns), strict=True)


class AclogDataSource(DataSource):
    """The ``aclog`` format: ``spark.read.format("aclog").load(DIR)``, or with a narrower
    ``.schema(...)`` (a subset of the columns) to build only those."""

    @classmethod
    def name(cls) -> str:
        return FORMAT_NAME

    def schema(self) -> StructType:
        return RECORD_SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        return AclogReader(dict(self.options), schema)
