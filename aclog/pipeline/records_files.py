"""The ``records`` job: every record of a data directory as Parquet, written by the tasks that
decode it.

Each Spark task takes one piece the ``aclog`` source plans (a segment piece or a snapshot),
decodes it with the source's reader and writes its Arrow batches straight into one Parquet file
with pyarrow. No row crosses into the JVM: through ``DataFrame.write`` the JVM's row conversion
and Parquet writer took most of the job's CPU (JFR samples), several times the decoding, and its
first run at a size paid the JIT's compilation of that code too. The files hold
:data:`~aclog.pipeline.schema.ARROW_SCHEMA` (``timestamp`` as microseconds, UTC), which Spark,
pyarrow and DuckDB read as the ``aclog`` source's schema.

Files go to a hidden folder beside ``out`` and replace ``out`` only once every task succeeded:
a failed run leaves the previous output as it was and no partial one. ``out`` must be on
storage the executors and the driver share (as for any Spark write to a path); it is made
absolute on the driver.

Thread-safe (each call writes its own folder). Cost: the decoding, plus pyarrow's Parquet
encoding, in parallel over the pieces.
"""

from __future__ import annotations

import os
import shutil
import uuid
from functools import partial
from pathlib import Path

import pyarrow.parquet as pq
from pyspark.sql import SparkSession
from pyspark.sql.datasource import InputPartition

from aclog.kraft import check_newest_tail
from aclog.pipeline.errors import PipelineError
from aclog.pipeline.kraft_source import KraftReader
from aclog.pipeline.pieces import absolute_snapshots
from aclog.pipeline.schema import RECORD_SCHEMA
from aclog.pipeline.source import AclogReader
from aclog.records.warning import OnWarning, ignore_warning


def write_piece(
    reader: AclogReader | KraftReader, folder: str, numbered: tuple[int, InputPartition]
) -> int:
    """Decode one piece and write it as ``folder/part-NNNNN.parquet``; its row count. Runs in
    a task; a piece without records still gets a file, so the output always has the schema."""
    index, piece = numbered
    with pq.ParquetWriter(os.path.join(folder, f"part-{index:05d}.parquet"), reader.schema) as out:
        written = 0
        for batch in reader.read(piece):
            out.write_batch(batch)
            written += batch.num_rows
    return written


def write_records(
    spark: SparkSession,
    directory: Path,
    out: Path,
    *,
    snapshots: str = "none",
    kraft: bool = False,
    on_warning: OnWarning = ignore_warning,
) -> int:
    """Write every log record of ``directory`` (after the rows of the ``snapshots`` asked for:
    ``none``, ``all`` or paths, as the source takes them) as Parquet files in ``out``, replacing
    what is there; the number of rows written. ``kraft``: ``directory`` is a KRaft metadata log
    and ``snapshots`` names its ``.checkpoint`` files (the ``aclog-kraft`` source's rows); a
    damaged last batch is told to ``on_warning`` (:func:`aclog.kraft.check_newest_tail`).
    Raises :class:`PipelineError` for a missing directory; a task's decoding error fails the
    job and leaves ``out`` untouched."""
    if not directory.is_dir():
        kind = "KRaft metadata" if kraft else "data"
        raise PipelineError(f"no {kind} directory at {directory}")
    reader = _records_reader(spark, directory, snapshots, kraft, on_warning)
    return _write_replacing(spark, reader, out.resolve())


def _records_reader(
    spark: SparkSession, directory: Path, snapshots: str, kraft: bool, on_warning: OnWarning
) -> AclogReader | KraftReader:
    """The data source reader of every record of ``directory`` (see :func:`write_records`)."""
    path = str(directory.resolve())
    if kraft:
        check_newest_tail(directory, on_warning)
        return KraftReader({"path": path, "checkpoint": snapshots}, RECORD_SCHEMA)
    return AclogReader(
        {
            "path": path,
            "snapshots": absolute_snapshots(snapshots),
            "min_partitions": str(spark.sparkContext.defaultParallelism),
        },
        RECORD_SCHEMA,
    )


def _write_replacing(spark: SparkSession, reader: AclogReader | KraftReader, out: Path) -> int:
    """Write the reader's pieces, one task each, into a staging folder beside ``out`` that then
    replaces it: a failed job leaves ``out`` as it was. The number of rows written."""
    pieces = list(enumerate(reader.partitions()))
    staging = out.parent / f".{out.name}.aclog-{uuid.uuid4().hex}"
    staging.mkdir(parents=True)
    try:
        tasks = spark.sparkContext.parallelize(pieces, len(pieces))
        counts = tasks.map(partial(write_piece, reader, str(staging))).collect()
        if out.is_dir():
            shutil.rmtree(out)
        elif out.exists():
            out.unlink()
        staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return sum(counts)
