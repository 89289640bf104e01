"""The Spark session for one pipeline command, with what went wrong
(:class:`aclog.pipeline.JobFailure`) turned into the CLI's exits.

Not thread-safe (one command per process). Cost: importing pyspark and, unless a session is
already running, starting Spark (seconds).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from aclog.tools.console import EXIT_FAILURE, EXIT_IO, EXIT_USAGE, fail
from aclog.tools.progress import waiting

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

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


def short_error(error: BaseException) -> str:
    """The useful line of a Spark error (:func:`aclog.pipeline.failures.short_error`)."""
    text: str = pipeline_modules().failures.short_error(error)
    return text


@contextmanager
def spark_for(
    master: str | None,
    conf: list[str] | None = None,
    driver_host: str | None = None,
    *,
    out: Path | None = None,
) -> Iterator[SparkSession]:
    """The session for one command (``--master``, ``--conf`` pairs, ``--driver-host``:
    :func:`aclog.pipeline.command_session`), its failures turned into exits. ``out``: the
    command's ``--out``; a command that fails removes what it created there
    (:func:`~aclog.tools.writing.removed_on_failure`)."""
    from aclog.tools.writing import removed_on_failure  # noqa: PLC0415 - when a job runs

    pipeline = pipeline_modules()
    try:
        with (
            removed_on_failure(out),
            pipeline.command_session(master, conf, driver_host, starting=waiting) as spark,
        ):
            yield spark
    except pipeline.JobFailure as failure:
        fail(str(failure), EXIT_CODES[failure.kind])
