"""The Spark session for one pipeline command, with Spark's and the pipeline's errors turned into
the CLI's exits.

Not thread-safe (one command per process). Cost: importing pyspark and, unless a session is
already running, starting Spark (seconds).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from aclog.tools.console import EXIT_FAILURE, EXIT_IO, EXIT_USAGE, fail
from aclog.tools.progress import waiting
from aclog.tools.writing import removed_on_failure

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


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


_OWN_ERROR = re.compile(r"^aclog(?:\.\w+)*\.\w+(?:Error|Exception): (?P<message>.+)$")
"""A task's line for one of aclog's own exceptions: its message says all (what and what to do)."""


def short_error(error: BaseException) -> str:
    """The useful line of a Spark error: the Python exception raised in a task, if any, and
    only its message when it is one of aclog's own (whose messages say what to do)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in reversed(lines):
        if "Error: " in line or "Exception: " in line:
            own = _OWN_ERROR.match(line)
            return own["message"] if own else line
    return lines[0] if lines else type(error).__name__


@contextmanager
def spark_for(
    master: str | None,
    conf: list[str] | None = None,
    driver_host: str | None = None,
    *,
    out: Path | None = None,
) -> Iterator[SparkSession]:
    """The session for one command (``--master``, ``--conf`` pairs, ``--driver-host``), with
    Spark and pipeline errors turned into exits; a bad setting is a usage error before Spark
    starts. ``out``: the command's ``--out``; a command that fails removes what it created
    there (:func:`~aclog.tools.writing.removed_on_failure`)."""
    with removed_on_failure(out), _session(master, conf, driver_host) as spark:
        yield spark


@contextmanager
def _session(
    master: str | None, conf: list[str] | None, driver_host: str | None
) -> Iterator[SparkSession]:
    pipeline = pipeline_modules()
    settings = pipeline.settings
    try:
        given = settings.parse_conf(conf or [])
        settings.driver_host(
            settings.check_master(master or pipeline.session.DEFAULT_MASTER), driver_host
        )
    except settings.SettingError as error:
        fail(str(error), EXIT_USAGE)
    from py4j.protocol import Py4JError  # type: ignore[import-untyped]  # noqa: PLC0415
    from pyspark.errors import PySparkException  # noqa: PLC0415

    try:
        with ExitStack() as stack:
            with waiting(f"starting Spark ({master or pipeline.session.DEFAULT_MASTER})"):
                spark = stack.enter_context(
                    pipeline.spark_session(master, conf=given, driver=driver_host)
                )
            yield spark
    except pipeline.JavaMissingError as error:
        fail(str(error), EXIT_IO)
    except pipeline.PipelineError as error:
        fail(str(error), EXIT_FAILURE)
    except PySparkException as error:
        fail(f"the Spark job failed: {short_error(error)}", EXIT_FAILURE)
    except Py4JError as error:
        # A task's Python exception sometimes arrives unconverted (wrapped by a broadcast or a
        # cache build): still a failure on the data, not of Spark itself.
        text = str(error)
        if "PythonException" in text or "Python worker" in text:
            fail(f"the Spark job failed: {short_error(error)}", EXIT_FAILURE)
        fail(f"Spark failed: {short_error(error)}", EXIT_IO)
    except OSError as error:
        fail(str(error), EXIT_IO)
