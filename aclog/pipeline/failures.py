"""Why a pipeline command could not finish, in the one line it prints, and whose fault it was:
the session every ``aclog pipeline`` command runs in, with Spark's, py4j's and the pipeline's
errors turned into :class:`JobFailure`.

Not thread-safe (one command per process: a process has one Spark session). Cost: starting
Spark (seconds) unless a session is already running; the mapping itself is free.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from typing import Literal

from py4j.protocol import Py4JError  # type: ignore[import-untyped]
from pyspark.errors import PySparkException
from pyspark.sql import SparkSession

from aclog.pipeline.errors import JavaMissingError, PipelineError
from aclog.pipeline.session import DEFAULT_MASTER, spark_session
from aclog.pipeline.settings import SettingError, check_master, driver_host, parse_conf

FailureKind = Literal["usage", "data", "environment"]
"""Whose fault: ``usage`` what was asked (a bad setting or path), ``data`` the job failed on the
data (a corrupt log, no usable snapshot), ``environment`` no Java, or Spark or I/O failed."""

Starting = Callable[[str], AbstractContextManager[object]]
"""What a command shows while Spark starts: given what it waits for (a spinner, or nothing)."""


def unnoticed(what: str) -> AbstractContextManager[object]:
    """Nothing shown while Spark starts (the :data:`Starting` of a caller that shows nothing)."""
    return nullcontext()


class JobFailure(PipelineError):
    """A pipeline command that cannot finish: the message is the one line to print, ``kind``
    whose fault it was (the command's exit code follows from it)."""

    def __init__(self, message: str, kind: FailureKind) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind


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


def failure_of(error: Exception) -> JobFailure | None:
    """``error`` as the failure a command reports, or ``None`` for one that is not the
    pipeline's, Spark's or the file system's (a bug: left to surface as it is)."""
    if isinstance(error, JobFailure):
        return error
    if isinstance(error, JavaMissingError):
        return JobFailure(str(error), "environment")
    if isinstance(error, PipelineError):
        return JobFailure(str(error), "data")
    if isinstance(error, PySparkException):
        return JobFailure(f"the Spark job failed: {short_error(error)}", "data")
    if isinstance(error, Py4JError):
        # A task's Python exception sometimes arrives unconverted (wrapped by a broadcast or a
        # cache build): still a failure on the data, not of Spark itself.
        text = str(error)
        if "PythonException" in text or "Python worker" in text:
            return JobFailure(f"the Spark job failed: {short_error(error)}", "data")
        return JobFailure(f"Spark failed: {short_error(error)}", "environment")
    if isinstance(error, OSError):
        return JobFailure(str(error), "environment")
    return None


@contextmanager
def command_session(
    master: str | None,
    conf: Sequence[str] | None = None,
    given_driver_host: str | None = None,
    *,
    starting: Starting = unnoticed,
) -> Iterator[SparkSession]:
    """The session for one command (``--master``, ``--conf`` pairs, ``--driver-host``): a bad
    setting is a ``usage`` :class:`JobFailure` before Spark starts, and what the command's
    job raises comes out as a :class:`JobFailure` (see :func:`failure_of`). The session is
    stopped afterwards unless it was running before
    (:func:`~aclog.pipeline.session.spark_session`)."""
    named = master or DEFAULT_MASTER
    try:
        settings = parse_conf(conf or [])
        driver_host(check_master(named), given_driver_host)
    except SettingError as error:
        raise JobFailure(str(error), "usage") from error
    try:
        with ExitStack() as stack:
            with starting(f"starting Spark ({named})"):
                spark = stack.enter_context(
                    spark_session(master, conf=settings, driver=given_driver_host)
                )
            yield spark
    except Exception as error:
        failure = failure_of(error)
        if failure is None or failure is error:
            raise
        raise failure from error
