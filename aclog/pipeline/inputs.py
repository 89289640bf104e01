"""What a pipeline command reads and hands back: its :class:`Source` (a data directory, or the
Parquet ``aclog pipeline records`` wrote, and the point asked for), the :class:`Job` that reads it
(the Spark session it runs in, where it writes), the records and state built from it, and the
rows it collects or writes as Parquet.

Thread-safe (no shared state). Cost: reading snapshot headers on the driver (the records are read
lazily by the job); collecting rows to the driver.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import TimestampType

from aclog.pipeline.failures import JobFailure, Starting, command_session, unnoticed
from aclog.pipeline.load import read_parquet_records, read_records, records_as_of
from aclog.pipeline.load import records_for_history as history_source
from aclog.pipeline.state import State, state, state_input_columns
from aclog.records.warning import OnWarning, ignore_warning


@dataclass(frozen=True)
class Source:
    """What one command reads: ``records`` (Parquet written by ``aclog pipeline records``), else
    ``data_dir`` (a KRaft metadata log when ``kraft``), as of ``at_offset``/``at_time_ms``
    (``None``: the end), starting from the newest usable snapshot when ``snapshots``; warnings
    (a torn last batch, a skipped snapshot) go to ``on_warning``."""

    data_dir: Path | None
    records: Path | None = None
    kraft: bool = False
    at_offset: int | None = None
    at_time_ms: int | None = None
    snapshots: bool = True
    on_warning: OnWarning = ignore_warning

    @property
    def point(self) -> tuple[int | None, int | None]:
        """``(at_offset, at_time_ms)``."""
        return (self.at_offset, self.at_time_ms)

    def data_directory(self) -> Path:
        """``data_dir``, or a ``usage`` failure when there is none to read."""
        if self.data_dir is None:
            raise JobFailure("give --data-dir (or --records)", "usage")
        if not self.data_dir.is_dir():
            raise JobFailure(f"no data directory at {self.data_dir}", "usage")
        return self.data_dir


@dataclass(frozen=True)
class Job:
    """One command's job: what it reads (``source``), where it writes its result as Parquet
    (``out``; ``None``: nowhere), and the Spark session it runs in (``master``, ``conf`` pairs,
    ``driver_host``: :func:`~aclog.pipeline.failures.command_session`, which shows ``starting``
    while Spark starts)."""

    source: Source
    out: Path | None = None
    master: str | None = None
    conf: Sequence[str] = ()
    driver_host: str | None = None
    starting: Starting = unnoticed

    def session(self) -> AbstractContextManager[SparkSession]:
        """The session the job runs in; what goes wrong inside comes out as a
        :class:`~aclog.pipeline.failures.JobFailure`."""
        return command_session(self.master, self.conf, self.driver_host, starting=self.starting)


def input_records(spark: SparkSession, source: Source) -> DataFrame:
    """The records to read: ``records`` Parquet, else the whole data directory."""
    if source.records is not None:
        return read_parquet_records(spark, source.records)
    return read_records(spark, source.data_directory())


def history_records(spark: SparkSession, source: Source) -> DataFrame:
    """The records lifetimes are built from: a data directory's (only the record types history
    needs), or the Parquet records."""
    if source.records is None and source.data_dir is not None:
        found = history_source(
            spark, source.data_dir, on_warning=source.on_warning, kraft=source.kraft
        )
        return found.frame
    return input_records(spark, source)


def job_state(spark: SparkSession, source: Source) -> State:
    """The :class:`~aclog.pipeline.state.State` as of the source's point, from the snapshot
    ``aclog replay`` would start from plus the log after it (a KRaft log read as ``aclog
    replay --format kraft`` reads it); from Parquet records, from the log rows they hold
    (snapshot rows there are ignored)."""
    if source.records is not None or source.data_dir is None:
        frame = input_records(spark, source).filter(F.col("source") == "log")
    else:
        frame = records_as_of(
            spark,
            source.data_directory(),
            at_offset=source.at_offset,
            at_time_ms=source.at_time_ms,
            use_snapshots=source.snapshots,
            on_warning=source.on_warning,
            columns=state_input_columns(*source.point),
            kraft=source.kraft,
        ).frame
    # Cached when the data source decodes the records (each read would decode the log again);
    # Parquet is cheap to read again.
    return state(frame, *source.point, persist=source.records is None)


def persisted(frame: DataFrame) -> DataFrame:
    """``frame`` kept once computed (memory, spilling to disk), for a job that reads it twice."""
    return frame.persist(StorageLevel.MEMORY_AND_DISK)


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def collect_rows(frame: DataFrame) -> list[dict[str, Any]]:
    """Collect ``frame`` as JSON-ready dicts; timestamps become milliseconds since the epoch
    (as ``aclog replay --json`` prints them), whatever the session's time zone."""
    columns = [
        F.unix_millis(F.col(f.name)).alias(f.name)
        if isinstance(f.dataType, TimestampType)
        else F.col(f.name)
        for f in frame.schema.fields
    ]
    return [
        {k: _jsonable(v) for k, v in row.asDict().items()}
        for row in frame.select(*columns).collect()
    ]


def write_parquet(frame: DataFrame, path: Path) -> DataFrame:
    """Write ``frame`` as Parquet at ``path`` (made absolute here, on the driver: executors run
    in their own working directories) and return the written data (so a following ``--json``
    reads the file instead of computing the job again)."""
    where = str(path.resolve())
    frame.write.mode("overwrite").parquet(where)
    return frame.sparkSession.read.parquet(where)


def written(frame: DataFrame, out: Path | None) -> DataFrame:
    """``frame``, first written to ``out`` when given (:func:`write_parquet`)."""
    return frame if out is None else write_parquet(frame, out)


def answers(frame: DataFrame, out: Path | None) -> list[dict[str, Any]]:
    """The JSON answers of a questions job (its ``answer`` column), written to ``out`` first."""
    return [json.loads(row["answer"]) for row in written(frame, out).select("answer").collect()]
