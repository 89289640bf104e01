"""What a pipeline command reads, checked before Spark starts: ``--records`` Parquet or a
``--data-dir``, as of ``--at-offset``/``--at-time``, as the :class:`aclog.pipeline.Source` its
job reads.

Thread-safe (no shared state). Cost: a few ``stat`` calls (and importing the pipeline).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aclog.tools.console import EXIT_USAGE, fail, print_warning
from aclog.tools.pipeline.spark import pipeline_modules


def check_source(data_dir: Path | None, records: Path | None, source_format: str) -> bool:
    """Usage errors before Spark starts: a data directory or a records Parquet must exist.
    Whether the job reads ``data_dir`` as a KRaft metadata log (``--format``, decided as
    ``aclog replay --format`` decides it: :func:`aclog.tools.common.is_kraft`); Parquet
    records are read as they are, whatever their log's format was."""
    from aclog.tools.common import is_kraft  # noqa: PLC0415 - the library when a job runs
    from aclog.tools.data_dirs import require_log  # noqa: PLC0415

    kraft = is_kraft(data_dir, source_format) if data_dir is not None else False
    if records is not None:
        if not records.exists():
            fail(f"no Parquet records at {records}", EXIT_USAGE)
        return False
    if data_dir is None:
        fail("give --data-dir (or --records)", EXIT_USAGE)
    require_log(data_dir, kraft=kraft)
    return kraft


def job_source(
    data_dir: Path | None,
    records: Path | None,
    source_format: str,
    point: tuple[int | None, str | None] = (None, None),
    snapshots: bool = True,
) -> Any:
    """The :class:`aclog.pipeline.Source` of ``--data-dir``/``--records`` as of ``point``
    (``--at-offset``, ``--at-time``), warnings printed; usage errors exit before Spark starts
    (:func:`check_source`)."""
    at_time_ms = time_ms(point[1])
    kraft = check_source(data_dir, records, source_format)
    return pipeline_modules().Source(
        data_dir, records, kraft, point[0], at_time_ms, snapshots, print_warning
    )


def time_ms(at_time: str | None) -> int | None:
    """``--at-time`` in milliseconds since the epoch (a usage error when it does not parse)."""
    from aclog.tools.points import parse_time  # noqa: PLC0415 - the library when a job runs

    return None if at_time is None else parse_time(at_time)
