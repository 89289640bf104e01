"""Turning a data directory (or a Parquet copy of its records) into the records DataFrame a
job reads, choosing a snapshot the way :func:`aclog.replay.rebuild.rebuild_image` does.

:func:`records_as_of` picks the newest snapshot that verifies, at or below the requested offset
and taken by the requested time, and reads it plus the log after it; :func:`records_for_history`
reads the whole retained log, starting from the oldest usable snapshot only when segments at the
start of the log were deleted. Choosing reads snapshot headers and checksums in the driver; the
records themselves are decoded by the executors.

Thread-safe (no shared state).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from aclog.log.segment import list_segments
from aclog.pipeline.avro import avro_available, read_log_avro
from aclog.pipeline.schema import COLUMN_NAMES, RECORD_SCHEMA
from aclog.pipeline.session import PipelineError
from aclog.pipeline.source import FORMAT_NAME, absolute_snapshots, snapshot_paths
from aclog.pipeline.state import Survey
from aclog.snapshot import SnapshotError, SnapshotId, SnapshotInfo, list_snapshots, read_snapshot


def _ignore(message: str) -> None:
    del message


@dataclass(frozen=True)
class Records:
    """A records DataFrame and the snapshot it starts from (``None``: the log from offset 0),
    with their :class:`~aclog.pipeline.state.Survey` when it is known without a Spark job
    (staging counted it; pass it to :func:`~aclog.pipeline.state.state` as ``known``)."""

    frame: DataFrame
    snapshot: SnapshotInfo | None
    survey: Survey | None = None


def read_records(
    spark: SparkSession,
    directory: Path,
    *,
    snapshots: str = "none",
    from_offset: int = 0,
    segments: bool = True,
    arrow: bool = True,
    split_bytes: int | None = None,
    columns: Sequence[str] | None = None,
    engine: str | None = None,
) -> DataFrame:
    """The records of ``directory`` with the given options, split into at least as many pieces
    as the session has default parallelism. ``columns`` (default: all) narrows what is built
    to those columns. ``engine`` (see :func:`resolve_engine`) says who decodes the log: the
    JVM's Avro reader over staged copies (:mod:`aclog.pipeline.avro`: the copy runs now, the
    read when the result is used) or the Python source (``spark.read.format("aclog")``, which
    always reads the snapshots)."""
    return _read(
        spark,
        directory,
        snapshots=snapshots,
        from_offset=from_offset,
        segments=segments,
        arrow=arrow,
        split_bytes=split_bytes,
        columns=columns,
        engine=engine,
    )[0]


def _read(
    spark: SparkSession,
    directory: Path,
    *,
    snapshots: str,
    from_offset: int,
    columns: Sequence[str] | None,
    engine: str | None,
    segments: bool = True,
    arrow: bool = True,
    split_bytes: int | None = None,
) -> tuple[DataFrame, Survey | None]:
    """:func:`read_records`, and the survey of the records when staging counted it."""
    if not directory.is_dir():
        raise PipelineError(f"no data directory at {directory}")
    source = (snapshots, from_offset, columns, arrow, split_bytes)
    if not (segments and resolve_engine(spark, engine) == ENGINE_AVRO):
        return _python_source(spark, directory, segments, *source), None
    log, survey = read_log_avro(
        spark, directory, from_offset=from_offset, columns=columns, split_bytes=split_bytes
    )
    if not snapshot_paths(directory, snapshots):
        return log, survey
    # A snapshot holds no removal and ends before the log: the log's survey stands.
    return _python_source(spark, directory, False, *source).unionByName(log), survey


def _python_source(
    spark: SparkSession,
    directory: Path,
    segments: bool,
    snapshots: str,
    from_offset: int,
    columns: Sequence[str] | None,
    arrow: bool,
    split_bytes: int | None,
) -> DataFrame:
    reader = spark.read.format(FORMAT_NAME)
    if columns is not None:
        reader = reader.schema(StructType([RECORD_SCHEMA[name] for name in columns]))
    # Executors run in their own working directories: every path they open is absolute.
    reader = (
        reader.option("snapshots", absolute_snapshots(snapshots))
        .option("from_offset", str(from_offset))
        .option("segments", str(segments).lower())
        .option("arrow", str(arrow).lower())
        .option("min_partitions", str(spark.sparkContext.defaultParallelism))
    )
    if split_bytes is not None:
        reader = reader.option("split_bytes", str(split_bytes))
    return reader.load(str(directory.resolve()))


ENGINE_AUTO, ENGINE_AVRO, ENGINE_PYTHON = "auto", "avro", "python"
ENGINE_ENV = "ACLOG_PIPELINE_ENGINE"
"""Names the engine when a caller gives none (``auto`` if unset)."""


def resolve_engine(spark: SparkSession, engine: str | None = None) -> str:
    """``avro`` or ``python``: ``engine`` (default ``$ACLOG_PIPELINE_ENGINE``, else ``auto``),
    where ``auto`` is ``avro`` when this Spark has the Avro reader, else ``python``. Raises
    :class:`PipelineError` for an unknown name, or ``avro`` on a Spark without the reader."""
    chosen = (engine or os.environ.get(ENGINE_ENV) or ENGINE_AUTO).strip().lower()
    if chosen not in (ENGINE_AUTO, ENGINE_AVRO, ENGINE_PYTHON):
        raise PipelineError(f"unknown pipeline engine {chosen!r}: use auto, avro or python")
    if chosen == ENGINE_PYTHON:
        return ENGINE_PYTHON
    if avro_available(spark):
        return ENGINE_AVRO
    if chosen == ENGINE_AVRO:
        raise PipelineError("this Spark has no Avro reader class; use the python engine")
    return ENGINE_PYTHON


def worth_caching(spark: SparkSession, engine: str | None = None) -> bool:
    """Whether a job that reads the records several times should cache them: yes when the
    Python source decodes them (each read decodes the log again), no over staged Avro (the JVM
    decodes fast, and each read takes only its record types' folders)."""
    return resolve_engine(spark, engine) == ENGINE_PYTHON


def read_parquet_records(spark: SparkSession, path: Path) -> DataFrame:
    """The records a ``aclog pipeline records`` run wrote to ``path`` (Parquet)."""
    if not path.exists():
        raise PipelineError(f"no Parquet records at {path}")
    frame = spark.read.parquet(str(path.resolve()))
    missing = [name for name in COLUMN_NAMES if name not in frame.columns]
    if missing:
        raise PipelineError(
            f"{path} is not the output of 'aclog pipeline records': it lacks {', '.join(missing)}"
        )
    return frame.select(*COLUMN_NAMES)


def log_start_offset(directory: Path) -> int:
    """The first offset the log still holds (0 for an empty log)."""
    segments = list_segments(directory)
    return segments[0][0] if segments else 0


def _taken_by(snapshot: SnapshotId, at_time_ms: int) -> bool:
    try:
        return read_snapshot(snapshot.path).info.timestamp_ms <= at_time_ms
    except SnapshotError:
        return False


def _verified(snapshot: SnapshotId, on_warning: Callable[[str], None]) -> SnapshotInfo | None:
    try:
        return read_snapshot(snapshot.path).info
    except SnapshotError as error:
        on_warning(f"skipped snapshot {snapshot.path}: {error}")
    except FileNotFoundError:
        on_warning(f"skipped snapshot {snapshot.path}: it was deleted while being read")
    return None


def choose_snapshot(
    directory: Path,
    *,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    on_warning: Callable[[str], None] = _ignore,
) -> SnapshotInfo | None:
    """The snapshot ``rebuild_image`` would start from for this point: the newest that
    verifies, at or below ``at_offset`` and taken by ``at_time_ms``, whose successor records
    the log still holds. ``None``: replay the log from offset 0. Raises
    :class:`PipelineError` when segments were deleted and no usable snapshot covers them."""
    log_start = log_start_offset(directory)
    candidates = list_snapshots(directory)
    if at_offset is not None:
        candidates = [s for s in candidates if s.last_offset <= at_offset]
    if at_time_ms is not None:
        candidates = [s for s in candidates if _taken_by(s, at_time_ms)]
    for snapshot in reversed(candidates):
        if snapshot.last_offset + 1 < log_start:
            break
        info = _verified(snapshot, on_warning)
        if info is not None:
            return info
    if log_start > 0:
        raise PipelineError(
            f"the log in {directory} starts at offset {log_start} and no valid snapshot at or "
            "below the requested point covers the offsets before it; pick a later point"
        )
    return None


def records_as_of(
    spark: SparkSession,
    directory: Path,
    *,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    use_snapshots: bool = True,
    on_warning: Callable[[str], None] = _ignore,
    columns: Sequence[str] | None = None,
    engine: str | None = None,
) -> Records:
    """The records that rebuild the state as of the given point: the chosen snapshot (if any)
    plus every log record after it (``columns`` of them, read by ``engine``: see
    :func:`read_records`). The cut at
    the point itself is :func:`~aclog.pipeline.state.cut`'s job."""
    if not directory.is_dir():
        raise PipelineError(f"no data directory at {directory}")
    snapshot = None
    if use_snapshots:
        snapshot = choose_snapshot(
            directory, at_offset=at_offset, at_time_ms=at_time_ms, on_warning=on_warning
        )
    elif log_start_offset(directory) > 0:
        raise PipelineError(
            f"the log in {directory} starts at offset {log_start_offset(directory)}: the state "
            "needs a snapshot, so do not turn snapshots off"
        )
    shots, start = (
        ("none", 0) if snapshot is None else (str(snapshot.path), snapshot.last_offset + 1)
    )
    frame, survey = _read(
        spark, directory, snapshots=shots, from_offset=start, columns=columns, engine=engine
    )
    return Records(frame, snapshot, survey)


def records_for_history(
    spark: SparkSession, directory: Path, *, on_warning: Callable[[str], None] = _ignore
) -> Records:
    """Every retained log record; when the log no longer starts at 0, the oldest snapshot that
    the log continues from comes first (its entries existed at its offset)."""
    if not directory.is_dir():
        raise PipelineError(f"no data directory at {directory}")
    log_start = log_start_offset(directory)
    if log_start == 0:
        return Records(read_records(spark, directory), None)
    for snapshot in list_snapshots(directory):
        if snapshot.last_offset + 1 < log_start:
            continue
        info = _verified(snapshot, on_warning)
        if info is not None:
            frame = read_records(
                spark, directory, snapshots=str(info.path), from_offset=info.last_offset + 1
            )
            return Records(frame, info)
    raise PipelineError(
        f"the log in {directory} starts at offset {log_start} and no valid snapshot covers the "
        "offsets before it"
    )
