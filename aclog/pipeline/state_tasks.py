"""The ``state`` job done in the decoding tasks: no record row crosses into the JVM.

The DataFrame job (:func:`aclog.pipeline.state.state`, the reference, and what ``access``,
``history``, ``diff``... build on) hands every decoded record to the JVM, whose conversion of
the Arrow batches into rows costs more than the whole job over records already in Parquet. Here,
as :mod:`~aclog.pipeline.records_files` does for ``records``, the Python tasks keep the rows:

1. one Spark job over the pieces the ``aclog`` source plans: each task decodes its piece once,
   returns its small facts (:func:`~aclog.pipeline.state_facts.piece_facts`: removals, SCRAM
   records, provenance, the first batch past the point) and keeps its ACL additions before the
   point, the candidates, in :data:`ACL_STATE_SCHEMA` plus the 16-byte ``id``: as an Arrow IPC
   file (LZ4) in a staging folder beside the output, or sent to the driver for ``--json``;
2. the driver combines the facts (:func:`~aclog.pipeline.state_facts.combine`): the stop, the
   removals (:class:`~aclog.pipeline.removed_ids.RemovedIds`), the users;
3. a second job, given the removals as a broadcast variable, reads each piece's candidates back
   and writes those below the stop that no later removal of their id follows as Parquet with
   pyarrow (the columns and order Spark writes for :func:`~aclog.pipeline.state.acl_state`);
   for ``--json`` the driver filters the collected candidates the same way (:func:`kept`).

Decoding once and reading the candidates back costs less CPU than decoding every piece twice,
and the second job reads Arrow, not segments.
Users (few) are written by the driver. Above ``broadcast_limit`` removals :func:`task_state`
gives ``None``: the DataFrame job, which can shuffle them instead, is the one to run.

Thread-safe (each call writes its own folder). Cost: one decoding pass over the input in
parallel tasks, the candidates written and read once, the broadcast of about 24 bytes per
removed id, pyarrow's Parquet encoding of the ACLs kept.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark import Broadcast
from pyspark.sql import SparkSession

from aclog.pipeline.load import starting_snapshot
from aclog.pipeline.removed_ids import RemovedIds, id_words
from aclog.pipeline.schema import ACL_CODE, ACL_FIELDS, ARROW_SCHEMA, RECORD_SCHEMA
from aclog.pipeline.source import AclogReader
from aclog.pipeline.state import BROADCAST_REMOVALS
from aclog.pipeline.state_facts import FACT_SCHEMA, Found, PieceFacts, Point, combine, piece_facts
from aclog.pipeline.state_files import STATE_PARTS, WrittenState
from aclog.pipeline.survey import Survey
from aclog.records.warning import OnWarning, ignore_warning
from aclog.snapshot import SnapshotInfo

_RENAMED = {
    "offset": "created_offset",
    "position": "created_position",
    "timestamp": "created_time",
    "author_principal": "created_by",
    "author_address": "created_from",
    "source": "created_source",
}
_KEPT = ("acl_id", *ACL_FIELDS, *_RENAMED)
_READ = pa.schema(ARROW_SCHEMA.field(name) for name in dict.fromkeys((*FACT_SCHEMA.names, *_KEPT)))
ACL_STATE_SCHEMA = pa.schema(
    ARROW_SCHEMA.field(name).with_name(_RENAMED.get(name, name)) for name in _KEPT
)
"""The columns of ``OUT/acls``: what Spark writes for :func:`~aclog.pipeline.state.acl_state`."""

_CANDIDATES = pa.schema([*ACL_STATE_SCHEMA, pa.field("id", pa.binary(16))])
_IPC = pa.ipc.IpcWriteOptions(compression="lz4")


def _candidates(batch: pa.RecordBatch, ids: pa.Array) -> pa.RecordBatch:
    """The ACL additions among a piece's rows, with their 16-byte ids."""
    added = pc.equal(batch.column("type_code"), ACL_CODE)
    columns = [batch.column(name).filter(added) for name in _KEPT]
    return pa.RecordBatch.from_arrays([*columns, ids.filter(added)], schema=_CANDIDATES)


def _survey_into(sink: Any, reader: AclogReader, point: Point, piece: Any) -> PieceFacts:
    with pa.ipc.new_stream(sink, _CANDIDATES, options=_IPC) as stream:

        def keep(batch: pa.RecordBatch, ids: pa.Array) -> None:
            stream.write_batch(_candidates(batch, ids))

        return piece_facts(reader, point, piece, _READ, keep)


def _candidates_path(folder: str, index: int) -> str:
    return os.path.join(folder, f"candidates-{index:05d}.arrow")


def survey_piece(
    reader: AclogReader, point: Point, folder: str | None, numbered: tuple[int, Any]
) -> tuple[PieceFacts, bytes | None]:
    """The first pass over one piece (runs in a task): its facts, and its candidates written
    to ``folder`` (or, without one, returned as an Arrow IPC stream)."""
    index, piece = numbered
    if folder is None:
        buffer = pa.BufferOutputStream()
        facts = _survey_into(buffer, reader, point, piece)
        return facts, buffer.getvalue().to_pybytes()
    with pa.OSFile(_candidates_path(folder, index), "wb") as sink:
        return _survey_into(sink, reader, point, piece), None


def kept(candidates: pa.Table, stop: int | None, removed: RemovedIds) -> pa.Table:
    """The candidates present in the state, as :data:`ACL_STATE_SCHEMA`: below ``stop`` (a
    later piece's candidates may lie past the point) and followed by no removal of their id."""
    if stop is not None:
        candidates = candidates.filter(pc.less(candidates.column("created_offset"), stop))
    ids = candidates.column("id").combine_chunks()
    offsets = candidates.column("created_offset").to_numpy()
    gone = removed.removed_after(id_words(ids), offsets)
    return candidates.filter(pa.array(~gone)).drop_columns(["id"])


@dataclass(frozen=True)
class Keep:
    """What a second-pass task needs: the stop (``None``: no cut) and the broadcast
    :class:`RemovedIds`."""

    stop: int | None
    removed: Broadcast[RemovedIds]


def write_acls(keep: Keep, folder: str, out: str, index: int) -> int:
    """The second pass over one piece (runs in a task): its candidates from ``folder`` kept
    (:func:`kept`) and written as ``out/part-NNNNN.parquet``; the rows written."""
    with pa.OSFile(_candidates_path(folder, index), "rb") as source:
        candidates = pa.ipc.open_stream(source).read_all()
    acls = kept(candidates, keep.stop, keep.removed.value)
    pq.write_table(acls, os.path.join(out, f"part-{index:05d}.parquet"))
    return int(acls.num_rows)


@dataclass(frozen=True)
class TaskState:
    """A state after the first pass: the combined facts (``found.survey`` holds the
    provenance, ``found.users`` the credentials) and where the candidates are: ``staging``
    (``staging/candidates``, one file per piece) or ``collected`` (one IPC stream per piece)."""

    spark: SparkSession
    found: Found
    pieces: int
    staging: Path | None
    collected: list[bytes] | None

    @property
    def survey(self) -> Survey:
        """The provenance and the count of removals."""
        return self.found.survey

    def acls(self) -> pa.Table:
        """The ACLs (any order), from the collected candidates, filtered on the driver."""
        assert self.collected is not None, "acls() needs a state surveyed without staging"
        tables = [pa.ipc.open_stream(stream).read_all() for stream in self.collected]
        candidates = pa.concat_tables([_CANDIDATES.empty_table(), *tables])
        return kept(candidates, self.found.stop, self.found.removed)

    def write(self, out: Path) -> WrittenState:
        """Write ``OUT/acls`` (by the tasks) and ``OUT/users`` (by the driver) as Parquet into
        the staging folder, then move both under ``out``; when anything fails, neither part is
        left (half a state must not pass for a whole one). ``out`` is made absolute here, on
        the driver: executors run in their own working directories."""
        assert self.staging is not None, "write() needs a state surveyed into a staging folder"
        given, out = out, out.resolve()
        try:
            (self.staging / "acls").mkdir()
            (self.staging / "users").mkdir()
            counts = self._second_pass()
            pq.write_table(self.found.users, self.staging / "users" / "part-00000.parquet")
            for name in STATE_PARTS:
                shutil.rmtree(out / name, ignore_errors=True)
                (self.staging / name).rename(out / name)
        except BaseException:
            for name in STATE_PARTS:
                shutil.rmtree(out / name, ignore_errors=True)
            raise
        head, users = self.survey, self.found.users.num_rows
        return WrittenState(str(given), head.offset, head.epoch, head.timestamp, counts, users)

    def _second_pass(self) -> int:
        assert self.staging is not None
        context = self.spark.sparkContext
        removed = context.broadcast(self.found.removed)
        try:
            keep = Keep(self.found.stop, removed)
            task = partial(
                write_acls, keep, str(self.staging / "candidates"), str(self.staging / "acls")
            )
            return sum(context.parallelize(range(self.pieces), self.pieces).map(task).collect())
        finally:
            removed.destroy()


def task_state(
    spark: SparkSession,
    directory: Path,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    *,
    staging: Path | None = None,
    use_snapshots: bool = True,
    on_warning: OnWarning = ignore_warning,
    broadcast_limit: int = BROADCAST_REMOVALS,
) -> TaskState | None:
    """The state of ``directory`` as of the point, starting from the snapshot ``aclog replay``
    would (:func:`~aclog.pipeline.load.starting_snapshot`), after the first pass (one Spark job
    now). The candidates go to ``staging`` (a new, empty folder the caller removes afterwards,
    on storage the executors share; its state can then be written) or, without one, to the
    driver (its ACLs can then be collected). ``None`` when the input holds more than
    ``broadcast_limit`` ACL removals below the stop: the DataFrame job is the one to run."""
    snapshot = starting_snapshot(
        directory,
        at_offset=at_offset,
        at_time_ms=at_time_ms,
        use_snapshots=use_snapshots,
        on_warning=on_warning,
    )
    reader = _reader_after(spark, directory, snapshot)
    pieces = list(enumerate(reader.partitions()))
    folder = None
    if staging is not None:
        staging = staging.resolve()
        (staging / "candidates").mkdir(parents=True)
        folder = str(staging / "candidates")
    task = partial(survey_piece, reader, Point(at_offset, at_time_ms), folder)
    surveyed = spark.sparkContext.parallelize(pieces, len(pieces)).map(task).collect()
    found = combine([facts for facts, _ in surveyed])
    if found.survey.removals > broadcast_limit:
        return None
    collected = None if staging is not None else [stream or b"" for _, stream in surveyed]
    return TaskState(spark, found, len(pieces), staging, collected)


def _reader_after(
    spark: SparkSession, directory: Path, snapshot: SnapshotInfo | None
) -> AclogReader:
    """The reader of ``snapshot``'s rows (none: the whole log) and the records after it."""
    options = {
        "path": str(directory.resolve()),
        "snapshots": "none" if snapshot is None else str(snapshot.path.resolve()),
        "from_offset": "0" if snapshot is None else str(snapshot.last_offset + 1),
        "min_partitions": str(spark.sparkContext.defaultParallelism),
    }
    return AclogReader(options, RECORD_SCHEMA)
