"""Turning a data directory (or a Parquet copy of its records) into the records DataFrame a
job reads, choosing a snapshot the way :func:`aclog.replay.rebuild.rebuild_image` does: the one
place every job gets its records from, in either format (``kraft=True``: Kafka's own
``__cluster_metadata-0``, chosen by :mod:`aclog.pipeline.kraft_load` as ``aclog replay --format
kraft`` does).

:func:`records_as_of` picks the newest snapshot that verifies, at or below the requested offset
and taken by the requested time, and reads it plus the log after it; :func:`records_for_history`
reads the whole retained log, starting from the oldest usable snapshot only when segments at the
start of the log were deleted. Choosing reads snapshot headers and checksums in the driver; the
records themselves are decoded by the executors.

Thread-safe (no shared state).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from aclog.log.segment import list_segments
from aclog.pipeline.errors import PipelineError
from aclog.pipeline.kraft_load import kraft_records_as_of, kraft_records_for_history
from aclog.pipeline.pieces import absolute_snapshots
from aclog.pipeline.schema import COLUMN_NAMES, RECORD_SCHEMA
from aclog.pipeline.source import FORMAT_NAME
from aclog.records.warning import OnWarning, ignore_warning
from aclog.snapshot import (
    SnapshotError,
    SnapshotId,
    SnapshotInfo,
    choose_for_point,
    list_snapshots,
    read_snapshot,
)


@dataclass(frozen=True)
class Records:
    """A records DataFrame and the aclog snapshot it starts from (``None``: the log from offset
    0, or a KRaft log, whose checkpoint rows are in the frame)."""

    frame: DataFrame
    snapshot: SnapshotInfo | None


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
) -> DataFrame:
    """The records of ``directory`` through the ``aclog`` data source (one partition per
    segment piece and per snapshot, decoded by the executors), split into at least as many
    pieces as the session has default parallelism. ``columns`` (default: all) narrows what is
    built to those columns."""
    if not directory.is_dir():
        raise PipelineError(f"no data directory at {directory}")
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


def _header(snapshot: SnapshotId) -> SnapshotInfo:
    return read_snapshot(snapshot.path).info


def _skipped(on_warning: OnWarning) -> Callable[[SnapshotId, Exception], None]:
    def skip(snapshot: SnapshotId, error: Exception) -> None:
        reason = "it was deleted while being read" if isinstance(error, OSError) else error
        on_warning(f"skipped snapshot {snapshot.path}: {reason}")

    return skip


def choose_snapshot(
    directory: Path,
    *,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    on_warning: OnWarning = ignore_warning,
) -> SnapshotInfo | None:
    """The snapshot ``rebuild_image`` would start from for this point (the one rule,
    :func:`aclog.snapshot.choose_for_point`; here its header and checksum are checked, the
    tasks decode its body): ``None`` replays the log from offset 0. Raises
    :class:`PipelineError` when segments were deleted and no usable snapshot covers them."""
    log_start = log_start_offset(directory)
    chosen = choose_for_point(
        list_snapshots(directory),
        _header,
        unusable=(SnapshotError,),
        on_skip=_skipped(on_warning),
        at_offset=at_offset,
        at_time_ms=at_time_ms,
        taken_at=lambda s: _header(s).timestamp_ms,
        log_start_offset=log_start,
    )
    if chosen is not None:
        return chosen[1]
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
    on_warning: OnWarning = ignore_warning,
    columns: Sequence[str] | None = None,
    kraft: bool = False,
) -> Records:
    """The records that rebuild the state as of the given point: the chosen snapshot (if any)
    plus every log record after it (``columns`` of them: see :func:`read_records`). The cut at
    the point itself is :func:`~aclog.pipeline.state.cut`'s job. ``kraft``: ``directory`` is a
    KRaft metadata log (:func:`~aclog.pipeline.kraft_load.kraft_records_as_of`)."""
    if kraft:
        frame = kraft_records_as_of(
            spark, directory, at_offset=at_offset, at_time_ms=at_time_ms,
            use_snapshots=use_snapshots, on_warning=on_warning, columns=columns,
        )  # fmt: skip
        return Records(frame, None)
    snapshot = starting_snapshot(
        directory,
        at_offset=at_offset,
        at_time_ms=at_time_ms,
        use_snapshots=use_snapshots,
        on_warning=on_warning,
    )
    shots, start = (
        ("none", 0) if snapshot is None else (str(snapshot.path), snapshot.last_offset + 1)
    )
    frame = read_records(spark, directory, snapshots=shots, from_offset=start, columns=columns)
    return Records(frame, snapshot)


def starting_snapshot(
    directory: Path,
    *,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    use_snapshots: bool = True,
    on_warning: OnWarning = ignore_warning,
) -> SnapshotInfo | None:
    """The snapshot the state as of the point starts from (:func:`choose_snapshot`; ``None``:
    the log from offset 0, also when ``use_snapshots`` is off). Raises :class:`PipelineError`
    for a missing directory, and when snapshots are off but the log no longer starts at 0."""
    if not directory.is_dir():
        raise PipelineError(f"no data directory at {directory}")
    if use_snapshots:
        return choose_snapshot(
            directory, at_offset=at_offset, at_time_ms=at_time_ms, on_warning=on_warning
        )
    if log_start_offset(directory) > 0:
        raise PipelineError(
            f"the log in {directory} starts at offset {log_start_offset(directory)}: the state "
            "needs a snapshot, so do not turn snapshots off"
        )
    return None


def records_for_history(
    spark: SparkSession,
    directory: Path,
    *,
    on_warning: OnWarning = ignore_warning,
    kraft: bool = False,
) -> Records:
    """Every retained log record; when the log no longer starts at 0, the oldest snapshot that
    the log continues from comes first (its entries existed at its offset). ``kraft``:
    ``directory`` is a KRaft metadata log
    (:func:`~aclog.pipeline.kraft_load.kraft_records_for_history`)."""
    if kraft:
        return Records(kraft_records_for_history(spark, directory, on_warning=on_warning), None)
    if not directory.is_dir():
        raise PipelineError(f"no data directory at {directory}")
    log_start = log_start_offset(directory)
    if log_start == 0:
        return Records(read_records(spark, directory), None)
    for snapshot in list_snapshots(directory):
        if snapshot.last_offset + 1 < log_start:
            continue
        try:
            info = _header(snapshot)
        except (SnapshotError, FileNotFoundError) as error:
            _skipped(on_warning)(snapshot, error)
            continue
        frame = read_records(
            spark, directory, snapshots=str(info.path), from_offset=info.last_offset + 1
        )
        return Records(frame, info)
    raise PipelineError(
        f"the log in {directory} starts at offset {log_start} and no valid snapshot covers the "
        "offsets before it"
    )
