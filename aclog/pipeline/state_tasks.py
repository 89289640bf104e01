"""The ``state`` job done in the decoding tasks: no record row crosses into the JVM.

The DataFrame job (:func:`aclog.pipeline.state.state`, the reference, and what ``access``,
``history``, ``diff``... build on) hands every decoded record to the JVM, whose conversion of
the Arrow batches into rows costs more than the whole job over records already in Parquet. Here,
as :mod:`~aclog.pipeline.records_files` does for ``records``, the Python tasks keep the rows:

1. one Spark job over the pieces the ``aclog`` source plans returns each piece's small facts
   (:func:`~aclog.pipeline.state_facts.piece_facts`: removals, SCRAM records, provenance, the
   first batch past the point), which the driver combines
   (:func:`~aclog.pipeline.state_facts.combine`);
2. the removals (:class:`~aclog.pipeline.removed_ids.RemovedIds`) are broadcast, and a second
   job decodes the pieces again and keeps each ACL addition below the stop that no later removal
   of its id follows, writing it with pyarrow (:data:`ACL_STATE_SCHEMA`, the columns and order
   Spark writes for :func:`~aclog.pipeline.state.acl_state`) or sending it to the driver.

Users (few) are written by the driver. Above ``broadcast_limit`` removals :func:`task_state`
gives ``None``: the DataFrame job, which can shuffle them instead, is the one to run.

Thread-safe (each call writes its own folder). Cost: two decoding passes over the input in
parallel tasks (the second reads no batch past the stop), the broadcast of about 24 bytes per
removed id, pyarrow's Parquet encoding of the ACLs kept.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark import Broadcast
from pyspark.sql import SparkSession
from pyspark.sql.datasource import InputPartition

from aclog.pipeline.load import starting_snapshot
from aclog.pipeline.removed_ids import RemovedIds, id_words
from aclog.pipeline.schema import ACL_CODE, ACL_FIELDS, ARROW_SCHEMA, RECORD_SCHEMA
from aclog.pipeline.source import AclogReader, LogPiece, SnapshotPiece, log_chunks, snapshot_chunks
from aclog.pipeline.state import BROADCAST_REMOVALS, Survey
from aclog.pipeline.state_facts import Found, Point, combine, piece_facts
from aclog.pipeline.state_files import STATE_PARTS, WrittenState

_RENAMED = {
    "offset": "created_offset",
    "position": "created_position",
    "timestamp": "created_time",
    "author_principal": "created_by",
    "author_address": "created_from",
    "source": "created_source",
}
_INPUT = pa.schema(
    ARROW_SCHEMA.field(name) for name in ("acl_id", *ACL_FIELDS, *_RENAMED, "type_code")
)
ACL_STATE_SCHEMA = pa.schema(
    ARROW_SCHEMA.field(name).with_name(_RENAMED.get(name, name))
    for name in ("acl_id", *ACL_FIELDS, *_RENAMED)
)
"""The columns of ``OUT/acls``: what Spark writes for :func:`~aclog.pipeline.state.acl_state`."""


def _ignore(message: str) -> None:
    del message


@dataclass(frozen=True)
class Keep:
    """What a second-pass task needs: the stop (``None``: no cut) and the broadcast
    :class:`RemovedIds`."""

    stop: int | None
    removed: Broadcast[RemovedIds]


def kept_acls(reader: AclogReader, keep: Keep, piece: InputPartition) -> Iterator[pa.RecordBatch]:
    """The ACLs of one piece present in the state, as batches of :data:`ACL_STATE_SCHEMA`:
    additions below the stop that no later removal of their id follows. Runs in a task."""
    if isinstance(piece, SnapshotPiece):
        chunks = snapshot_chunks(piece.path, reader.batch_rows)
    elif isinstance(piece, LogPiece):
        if keep.stop is not None:  # batches belong to the piece of their base offset
            if piece.low >= keep.stop:
                return
            high = keep.stop if piece.high is None else min(keep.stop, piece.high)
            piece = replace(piece, high=high)
        chunks = log_chunks(piece, reader.batch_rows)
    else:  # pragma: no cover - only what AclogReader.partitions() plans reaches here
        raise TypeError(f"unexpected piece {piece!r}")
    removed = keep.removed.value
    for chunk in chunks:
        batch, ids = chunk.to_batch(_INPUT), chunk.raw("id")
        added = pc.equal(batch.column("type_code"), ACL_CODE)
        batch, ids = batch.filter(added), ids.filter(added)
        gone = removed.removed_after(id_words(ids), batch.column("offset").to_numpy())
        batch = batch.filter(pa.array(~gone)).drop_columns(["type_code"])
        yield pa.RecordBatch.from_arrays(batch.columns, schema=ACL_STATE_SCHEMA)


def write_acls(reader: AclogReader, keep: Keep, folder: str, numbered: tuple[int, Any]) -> int:
    """Write one piece's :func:`kept_acls` as ``folder/part-NNNNN.parquet`` (a piece with none
    still writes the schema); the rows written."""
    index, piece = numbered
    path = os.path.join(folder, f"part-{index:05d}.parquet")
    with pq.ParquetWriter(path, ACL_STATE_SCHEMA) as out:
        written = 0
        for batch in kept_acls(reader, keep, piece):
            out.write_batch(batch)
            written += batch.num_rows
    return written


def collect_acls(reader: AclogReader, keep: Keep, piece: InputPartition) -> bytes:
    """One piece's :func:`kept_acls` as an Arrow IPC stream, for the driver."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, ACL_STATE_SCHEMA) as stream:
        for batch in kept_acls(reader, keep, piece):
            stream.write_batch(batch)
    return bytes(sink.getvalue())


@dataclass(frozen=True)
class TaskState:
    """A state found by the first pass: the pieces to read again, the combined facts (its
    ``survey`` holds the provenance, ``users`` the credentials)."""

    spark: SparkSession
    reader: AclogReader
    pieces: list[InputPartition]
    found: Found

    @property
    def survey(self) -> Survey:
        """The provenance and the count of removals."""
        return self.found.survey

    def _run(self, task: Callable[..., Any], items: list[Any]) -> list[Any]:
        context = self.spark.sparkContext
        removed = context.broadcast(self.found.removed)
        try:
            keep = Keep(self.found.stop, removed)
            jobs = context.parallelize(items, len(items))
            return jobs.map(partial(task, self.reader, keep)).collect()
        finally:
            removed.destroy()

    def acls(self) -> pa.Table:
        """The ACLs, collected to the driver (any order)."""
        streams = self._run(collect_acls, self.pieces)
        tables = [pa.ipc.open_stream(stream).read_all() for stream in streams]
        return pa.concat_tables([ACL_STATE_SCHEMA.empty_table(), *tables])

    def write(self, out: Path) -> WrittenState:
        """Write ``OUT/acls`` (by the tasks) and ``OUT/users`` (by the driver) as Parquet,
        replacing them only once both are written; when anything fails, neither part is left
        (half a state must not pass for a whole one). ``out`` is made absolute here, on the
        driver: executors run in their own working directories."""
        given, out = out, out.resolve()
        staging = out / f".aclog-state-{uuid.uuid4().hex}"
        try:
            (staging / "acls").mkdir(parents=True)
            (staging / "users").mkdir()
            pieces = list(enumerate(self.pieces))
            counts = self._run(partial(_write_into, str(staging / "acls")), pieces)
            pq.write_table(self.found.users, staging / "users" / "part-00000.parquet")
            for name in STATE_PARTS:
                shutil.rmtree(out / name, ignore_errors=True)
                (staging / name).rename(out / name)
        except BaseException:
            for name in STATE_PARTS:
                shutil.rmtree(out / name, ignore_errors=True)
            raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        head = self.survey
        return WrittenState(
            str(given),
            head.offset,
            head.epoch,
            head.timestamp,
            sum(counts),
            self.found.users.num_rows,
        )


def _write_into(folder: str, reader: AclogReader, keep: Keep, numbered: tuple[int, Any]) -> int:
    return write_acls(reader, keep, folder, numbered)


def task_state(
    spark: SparkSession,
    directory: Path,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    *,
    use_snapshots: bool = True,
    on_warning: Callable[[str], None] = _ignore,
    broadcast_limit: int = BROADCAST_REMOVALS,
) -> TaskState | None:
    """The state of ``directory`` as of the point, starting from the snapshot ``aclog replay``
    would (:func:`~aclog.pipeline.load.starting_snapshot`), after the first pass (one Spark job
    now). ``None`` when the input holds more than ``broadcast_limit`` ACL removals below the
    stop: then the DataFrame job is the one to run."""
    snapshot = starting_snapshot(
        directory,
        at_offset=at_offset,
        at_time_ms=at_time_ms,
        use_snapshots=use_snapshots,
        on_warning=on_warning,
    )
    options = {
        "path": str(directory.resolve()),
        "snapshots": "none" if snapshot is None else str(snapshot.path.resolve()),
        "from_offset": "0" if snapshot is None else str(snapshot.last_offset + 1),
        "min_partitions": str(spark.sparkContext.defaultParallelism),
    }
    reader = AclogReader(options, RECORD_SCHEMA)
    pieces = list(reader.partitions())
    jobs = spark.sparkContext.parallelize(pieces, len(pieces))
    found = combine(jobs.map(partial(piece_facts, reader, Point(at_offset, at_time_ms))).collect())
    if found.survey.removals > broadcast_limit:
        return None
    return TaskState(spark, reader, pieces, found)
