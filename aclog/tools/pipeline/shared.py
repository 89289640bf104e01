"""The options every ``aclog pipeline`` command shares, parsed once into :class:`SharedOptions`,
and the one way a command calls the library with them: the source checked before Spark starts,
the :class:`aclog.pipeline.Job` built from them, and what goes wrong
(:class:`aclog.pipeline.JobFailure`) turned into the CLI's exits.

Not thread-safe (one command per process). Cost: a few ``stat`` calls and importing the pipeline
(pyspark) when a command runs; nothing at import.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from aclog.tools.console import EXIT_FAILURE, EXIT_IO, EXIT_USAGE, fail, print_warning
from aclog.tools.progress import waiting

EXIT_CODES = {"usage": EXIT_USAGE, "data": EXIT_FAILURE, "environment": EXIT_IO}
"""The exit code for each kind of :class:`~aclog.pipeline.JobFailure`."""


def pipeline_modules() -> ModuleType:
    """:mod:`aclog.pipeline`, or exit 3 with how to install it."""
    try:
        import aclog.pipeline  # noqa: PLC0415 - imports pyspark, which the rest of the CLI avoids
    except ImportError as error:
        fail(
            f"the pipeline needs the spark extra ({error}); install it with "
            "pip install 'aclog[spark]'",
            EXIT_IO,
        )
    return aclog.pipeline


@dataclass(frozen=True)
class SharedOptions:
    """What ``--data-dir``/``--records``, ``--format``, ``--at-offset``/``--at-time``,
    ``--snapshots``, ``--out``, ``--master``, ``--conf``, ``--driver-host``, ``--json`` and
    ``--limit`` said (a command takes those
    :func:`~aclog.tools.pipeline.options.pipeline_command` gives it; the others keep these
    defaults)."""

    data_dir: Path | None = None
    records: Path | None = None
    at_offset: int | None = None
    at_time: str | None = None
    out: Path | None = None
    snapshots: bool = True
    source_format: str = "auto"
    master: str | None = None
    conf: list[str] | None = None
    driver_host: str | None = None
    json_output: bool = False
    limit: int = 20

    @property
    def collect(self) -> bool:
        """Whether the job's rows are printed (``--json``, or no ``--out``), so collected."""
        return self.json_output or self.out is None

    @contextmanager
    def job(self) -> Iterator[tuple[ModuleType, Any]]:
        """:mod:`aclog.pipeline` and the :class:`~aclog.pipeline.Job` to hand one of its
        :mod:`~aclog.pipeline.commands`: usage errors in the source exit before Spark starts
        (:meth:`checked_kraft`), a :class:`~aclog.pipeline.JobFailure` exits with its kind's
        code, and a command that fails removes what it created under ``--out``
        (:func:`~aclog.tools.writing.removed_on_failure`)."""
        from aclog.tools.points import parse_time  # noqa: PLC0415 - the library on a run
        from aclog.tools.writing import removed_on_failure  # noqa: PLC0415

        at_time_ms = None if self.at_time is None else parse_time(self.at_time)
        kraft = self.checked_kraft()
        pipeline = pipeline_modules()
        source = pipeline.Source(
            self.data_dir, self.records, kraft, self.at_offset, at_time_ms, self.snapshots,
            print_warning,
        )  # fmt: skip
        job = pipeline.Job(
            source, self.out, self.master, self.conf or (), self.driver_host, waiting
        )
        with removed_on_failure(self.out):
            try:
                yield pipeline, job
            except pipeline.JobFailure as failure:
                fail(str(failure), EXIT_CODES[failure.kind])

    def checked_kraft(self) -> bool:
        """Usage errors before Spark starts: a data directory or a records Parquet must exist.
        Whether the job reads ``--data-dir`` as a KRaft metadata log (``--format``, decided as
        ``aclog replay --format`` decides it: :func:`aclog.tools.common.is_kraft`); Parquet
        records are read as they are, whatever their log's format was."""
        from aclog.tools.common import is_kraft  # noqa: PLC0415 - the library when a job runs
        from aclog.tools.data_dirs import require_log  # noqa: PLC0415

        data_dir, records = self.data_dir, self.records
        kraft = is_kraft(data_dir, self.source_format) if data_dir is not None else False
        if records is not None:
            if not records.exists():
                fail(f"no Parquet records at {records}", EXIT_USAGE)
            return False
        if data_dir is None:
            fail("give --data-dir (or --records)", EXIT_USAGE)
        require_log(data_dir, kraft=kraft)
        return kraft
