"""The records a pipeline command reads: ``--records`` Parquet or a ``--data-dir``, and the state
as of a point built from them.

Thread-safe (no shared state). Cost: reading snapshot headers on the driver; the records are
read lazily by the job.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from aclog.tools.common import is_kraft, parse_time
from aclog.tools.console import EXIT_USAGE, fail, print_warning
from aclog.tools.data_dirs import require_log
from aclog.tools.pipeline.spark import pipeline_modules

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def check_source(data_dir: Path | None, records: Path | None, source_format: str) -> bool:
    """Usage errors before Spark starts: a data directory or a records Parquet must exist.
    Whether the job reads ``data_dir`` as a KRaft metadata log (``--format``, decided as
    ``aclog replay --format`` decides it: :func:`aclog.tools.common.is_kraft`); Parquet
    records are read as they are, whatever their log's format was."""
    kraft = is_kraft(data_dir, source_format) if data_dir is not None else False
    if records is not None:
        if not records.exists():
            fail(f"no Parquet records at {records}", EXIT_USAGE)
        return False
    if data_dir is None:
        fail("give --data-dir (or --records)", EXIT_USAGE)
    require_log(data_dir, kraft=kraft)
    return kraft


def input_records(
    spark: SparkSession,
    data_dir: Path | None,
    records: Path | None,
) -> DataFrame:
    """The records to read: ``--records`` Parquet, else the whole ``--data-dir``."""
    pipeline = pipeline_modules()
    if records is not None:
        return pipeline.read_parquet_records(spark, records)  # type: ignore[no-any-return]
    if data_dir is None:
        fail("give --data-dir (or --records)", EXIT_USAGE)
    if not data_dir.is_dir():
        fail(f"no data directory at {data_dir}", EXIT_USAGE)
    return pipeline.read_records(spark, data_dir)  # type: ignore[no-any-return]


def job_state(
    spark: SparkSession,
    data_dir: Path | None,
    records: Path | None,
    point: tuple[int | None, int | None],
    snapshots: bool,
    kraft: bool = False,
) -> Any:
    """The :class:`~aclog.pipeline.state.State` as of ``point`` (offset, time in ms), from the
    snapshot ``aclog replay`` would start from plus the log after it (``kraft``: ``data_dir``
    is a KRaft metadata log, read as ``aclog replay --format kraft`` reads it); from
    ``--records`` Parquet, from the log rows it holds (snapshot rows there are ignored)."""
    pipeline = pipeline_modules()
    if records is not None or data_dir is None:
        from pyspark.sql import functions as F  # noqa: PLC0415

        frame = input_records(spark, data_dir, records).filter(F.col("source") == "log")
        source = pipeline.Records(frame, None)
    elif not data_dir.is_dir():
        fail(f"no data directory at {data_dir}", EXIT_USAGE)
    else:
        source = pipeline.records_as_of(
            spark,
            data_dir,
            at_offset=point[0],
            at_time_ms=point[1],
            use_snapshots=snapshots,
            on_warning=print_warning,
            columns=pipeline.state.state_input_columns(*point),
            kraft=kraft,
        )
    # Cached when the data source decodes the records (each read would decode the log again);
    # Parquet is cheap to read again.
    return pipeline.state.state(source.frame, *point, persist=records is None)


def time_ms(at_time: str | None) -> int | None:
    """``--at-time`` in milliseconds since the epoch (a usage error when it does not parse)."""
    return None if at_time is None else parse_time(at_time)
