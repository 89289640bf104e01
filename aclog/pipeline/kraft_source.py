"""``spark.read.format("aclog-kraft").load(DIR)``: Kafka's own KRaft metadata log as the rows of
the ``aclog`` source, so every job reads a ``__cluster_metadata-0`` directory as it reads aclog's.

Planning makes one partition per log segment holding offsets at or above ``from_offset`` and one
for the ``checkpoint`` option's ``.checkpoint`` file, if any. Each task reads its segment with
:func:`aclog.kraft.read_kraft` bounded to that segment (so every check of the in-process reader
applies: CRCs, offsets, a torn tail only at the end of the last segment, no hole before the next
segment), whose batches the column-wise KRaft decoder (:mod:`aclog.kraft.columns`) decoded.
Rows follow :data:`~aclog.pipeline.schema.RECORD_SCHEMA`: ACL, SCRAM, no-op and leader-change
records as aclog's own (at their current version; KRaft records no author, so the author columns
are null), and one row of type ``UNKNOWN`` (``type_code`` 0, no fields) for every other record
of a batch, so that each batch's last offset is a row and a job's provenance and cut are
replay's. Checkpoint rows are ``source = 'snapshot'`` rows at the checkpoint's last covered
offset (``end_offset - 1``), as :func:`aclog.kraft.replay.kraft_replay_batches` places them.

Options (strings): ``path`` (the KRaft directory), ``checkpoint`` (``none``, ``all`` of the
directory's checkpoints, or comma-separated paths: one piece each), ``from_offset`` (skip records
below it; default 0), ``batch_rows`` (rows per Arrow batch). Relative paths are resolved where
the plan is made, beside the driver.

Which checkpoint and offsets a job reads is :mod:`aclog.pipeline.load`'s choice (as
``aclog replay --format kraft`` makes it).

Not thread-safe per reader (Spark gives each task its own). Cost: the decoder's passes per batch,
then a Python call per record to lay the records out in columns (KRaft logs hold far fewer
records than an aclog history); a checkpoint is read whole by the driver to choose it and again
by its task.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from aclog.kraft import KraftBatch, list_checkpoints, read_kraft
from aclog.kraft.checkpoint import parse_checkpoint_name, read_checkpoint_info
from aclog.log.segment import list_segments
from aclog.pipeline.columns import ColumnChunk, Run
from aclog.pipeline.errors import PipelineError
from aclog.pipeline.pieces import LogPiece, SnapshotPiece
from aclog.pipeline.schema import RECORD_SCHEMA, SOURCE_LOG, SOURCE_SNAPSHOT
from aclog.pipeline.source import DEFAULT_BATCH_ROWS, arrow_schema
from aclog.records import Record
from aclog.records.codec import record_to_fields
from aclog.records.columnar import columns_from_fields
from aclog.records.schemas import CURRENT_VERSIONS
from aclog.records.types import RECORD_TYPES

FORMAT_NAME = "aclog-kraft"
UNREAD_KIND = (0, 0)
"""The (type code, version) of a row standing for a KRaft record aclog does not read: its
``type`` reads ``UNKNOWN``."""

Kind = tuple[int, int]


@dataclass
class KraftLogPiece(LogPiece):
    """The batches of the KRaft segment starting at ``low`` (``high``: the next segment's base
    offset, None for the last); records below ``from_offset`` are skipped."""


@dataclass
class KraftCheckpointPiece(SnapshotPiece):
    """Every aclog record of one ``.checkpoint`` file."""


class _Rows:
    """Records gathered into column chunks of about ``batch_rows`` rows."""

    def __init__(self, batch_rows: int) -> None:
        self.batch_rows = batch_rows
        self.kinds: list[Kind] = []
        self.fields: list[dict[str, Any]] = []
        self.runs: list[Run] = []

    def add(self, records: Sequence[Record | None], run: Run) -> None:
        for record in records:
            if record is None:
                self.kinds.append(UNREAD_KIND)
                self.fields.append({})
            else:
                code = RECORD_TYPES[type(record)]
                self.kinds.append((code, CURRENT_VERSIONS[code]))
                self.fields.append(record_to_fields(record))
        self.runs.append(run)

    def full(self) -> bool:
        return len(self.kinds) >= self.batch_rows

    def take(self) -> ColumnChunk:
        chunk = ColumnChunk(columns_from_fields(self.kinds, self.fields), self.runs)
        self.kinds, self.fields, self.runs = [], [], []
        return chunk


def kraft_log_chunks(
    piece: KraftLogPiece, batch_rows: int = DEFAULT_BATCH_ROWS
) -> Iterator[ColumnChunk]:
    """The rows of one KRaft segment in offset order (one per offset of every batch, from
    ``from_offset`` on), in chunks of about ``batch_rows`` (whole batches)."""
    rows = _Rows(batch_rows)
    start = max(piece.low, piece.from_offset)
    for batch in read_kraft(piece.directory, start, piece.high):
        first = max(batch.base_offset, piece.from_offset)
        if first > batch.last_offset:
            continue
        rows.add(_batch_records(batch, first), _batch_run(batch, first))
        if rows.full():
            yield rows.take()
    if rows.kinds:
        yield rows.take()


def _batch_records(batch: KraftBatch, first: int) -> list[Record | None]:
    """Each offset's record from ``first`` to the batch's last offset (None: not read)."""
    found: list[Record | None] = [None] * (batch.last_offset - first + 1)
    for record in batch.records:
        if record.offset >= first:
            found[record.offset - first] = record.record
    return found


def _batch_run(batch: KraftBatch, first: int) -> Run:
    count = batch.last_offset - first + 1
    return Run(
        count,
        first,
        1,
        first - batch.base_offset,
        batch.epoch,
        batch.timestamp_ms,
        batch.base_offset,
        batch.last_offset,
        SOURCE_LOG,
    )


def kraft_checkpoint_chunks(
    path: str, batch_rows: int = DEFAULT_BATCH_ROWS
) -> Iterator[ColumnChunk]:
    """The aclog records of one checkpoint at its last covered offset, epoch and time,
    ``position`` their index in the file, in chunks of ``batch_rows``."""
    info, records = read_checkpoint_info(path)
    rows = _Rows(batch_rows)
    for done in range(0, len(records), batch_rows):
        part = records[done : done + batch_rows]
        run = Run(
            len(part),
            info.last_offset,
            0,
            done,
            info.epoch,
            info.timestamp_ms,
            None,
            None,
            SOURCE_SNAPSHOT,
        )
        rows.add(part, run)
        yield rows.take()


def plan_kraft_pieces(directory: Path, from_offset: int = 0) -> list[KraftLogPiece]:
    """One piece per segment of ``directory`` that holds offsets at or above ``from_offset``."""
    segments = list_segments(directory)
    pieces = []
    for i, (base, _) in enumerate(segments):
        high = segments[i + 1][0] if i + 1 < len(segments) else None
        if high is None or high > from_offset:
            pieces.append(KraftLogPiece(str(directory), base, high, from_offset))
    return pieces


def checkpoint_paths(directory: Path, choice: str) -> list[str]:
    """The ``checkpoint`` option as absolute paths: none, every checkpoint of ``directory``
    (``all``), or the comma-separated paths given (relative to this process's directory)."""
    choice = choice.strip()
    if choice in ("", "none"):
        return []
    if choice == "all":
        return [str(found.path.resolve()) for found in list_checkpoints(directory)]
    paths = [Path(part.strip()).resolve() for part in choice.split(",") if part.strip()]
    for path in paths:  # on the driver, before any task runs
        if parse_checkpoint_name(path.name) is None or not path.is_file():
            raise PipelineError(
                f"no KRaft checkpoint at {path}: give none, all, or the paths of .checkpoint "
                "files named {end offset, 20 digits}-{epoch, 10 digits}.checkpoint"
            )
    return [str(path) for path in paths]


class KraftReader(DataSourceReader):
    """Plans the pieces of a KRaft directory and reads them (see the module docstring)."""

    def __init__(self, options: dict[str, str], schema: StructType = RECORD_SCHEMA) -> None:
        # Planning runs beside the driver; executors (in their own working directories) get
        # absolute paths.
        self.directory = Path(options.get("path", ".")).resolve()
        self.checkpoints = checkpoint_paths(self.directory, options.get("checkpoint", "none"))
        self.from_offset = int(options.get("from_offset", "0"))
        self.batch_rows = int(options.get("batch_rows", str(DEFAULT_BATCH_ROWS)))
        self.schema = arrow_schema(schema)

    def partitions(self) -> Sequence[InputPartition]:
        if not self.directory.is_dir():
            raise FileNotFoundError(f"no KRaft metadata directory at {self.directory}")
        parts: list[InputPartition] = [KraftCheckpointPiece(path) for path in self.checkpoints]
        parts.extend(plan_kraft_pieces(self.directory, self.from_offset))
        # Spark needs at least one partition; an empty piece past the end reads nothing.
        return parts or [KraftLogPiece(str(self.directory), 0, 0, 0)]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        chunks: Iterator[ColumnChunk]
        if isinstance(partition, KraftCheckpointPiece):
            chunks = kraft_checkpoint_chunks(partition.path, self.batch_rows)
        elif isinstance(partition, KraftLogPiece):
            chunks = kraft_log_chunks(partition, self.batch_rows)
        else:  # pragma: no cover - Spark only hands back what partitions() returned
            raise TypeError(f"unexpected partition {partition!r}")
        for chunk in chunks:
            yield chunk.to_batch(self.schema)


class KraftDataSource(DataSource):
    """The ``aclog-kraft`` format: ``spark.read.format("aclog-kraft").load(KRAFT_DIR)``, with
    a narrower ``.schema(...)`` to build only those columns."""

    @classmethod
    def name(cls) -> str:
        return FORMAT_NAME

    def schema(self) -> StructType:
        return RECORD_SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        return KraftReader(dict(self.options), schema)


def read_kraft_records(
    spark: SparkSession,
    directory: Path,
    *,
    checkpoint: Path | None = None,
    from_offset: int = 0,
    columns: Sequence[str] | None = None,
) -> DataFrame:
    """The rows of a KRaft directory's segments from ``from_offset`` on, after ``checkpoint``'s
    rows when given (``columns``, default all, narrows what is built)."""
    if not directory.is_dir():
        raise PipelineError(f"no KRaft metadata directory at {directory}")
    reader = spark.read.format(FORMAT_NAME)
    if columns is not None:
        reader = reader.schema(StructType([RECORD_SCHEMA[name] for name in columns]))
    shot = "none" if checkpoint is None else str(checkpoint.resolve())
    return (
        reader.option("checkpoint", shot)
        .option("from_offset", str(from_offset))
        .load(str(directory.resolve()))
    )
