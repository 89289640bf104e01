"""What a pipeline command reports when it cannot finish, decided once in
:mod:`aclog.pipeline.failures`: whose fault (the kind, which picks the exit code) and the one
line printed. No Spark session is needed: the errors are built as Spark and py4j raise them, and
a bad setting is refused before Spark starts."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from py4j.protocol import Py4JError  # type: ignore[import-untyped]
from pyspark.errors import AnalysisException

from aclog.pipeline import JavaMissingError, JobFailure, PipelineError, Source, command_session
from aclog.pipeline.failures import FailureKind, failure_of
from aclog.tools.console import EXIT_FAILURE, EXIT_IO, EXIT_USAGE
from aclog.tools.pipeline.shared import EXIT_CODES

TASK_ERROR = "Traceback (most recent call last):\naclog.log.errors.CorruptLogError: torn at 74\n"


@pytest.mark.parametrize(
    ("error", "kind", "message"),
    [
        (JavaMissingError("install java"), "environment", "install java"),
        (PipelineError("no usable snapshot"), "data", "no usable snapshot"),
        (
            AnalysisException(TASK_ERROR),
            "data",
            "the Spark job failed: torn at 74",
        ),
        (Py4JError("PythonException: " + TASK_ERROR), "data", "the Spark job failed: torn at 74"),
        (Py4JError("Java side is gone"), "environment", "Spark failed: Java side is gone"),
        (PermissionError("cannot write /out"), "environment", "cannot write /out"),
    ],
)
def test_each_error_is_one_line_and_whose_fault(
    error: Exception, kind: FailureKind, message: str
) -> None:
    failure = failure_of(error)
    assert failure is not None
    assert (failure.kind, str(failure)) == (kind, message)


def test_a_bug_is_left_to_surface_as_it_is() -> None:
    assert failure_of(KeyError("acl_id")) is None
    assert failure_of(RuntimeError("typer.Exit is one of these")) is None


def test_every_kind_has_its_exit_code() -> None:
    assert EXIT_CODES == {"usage": EXIT_USAGE, "data": EXIT_FAILURE, "environment": EXIT_IO}
    assert set(EXIT_CODES) == set(get_args(FailureKind))


@pytest.mark.parametrize(
    ("master", "conf", "said"),
    [
        ("local[2]", ["spark.executor.memory"], "is not KEY=VALUE"),
        ("local[2]", ["spark.master=local[4]"], "--master"),
        ("nonsense://x", [], "nonsense://x"),
    ],
)
def test_a_bad_setting_is_a_usage_failure_before_spark_starts(
    master: str, conf: list[str], said: str
) -> None:
    def starting(what: str) -> None:
        raise AssertionError(f"Spark was started: {what}")

    with pytest.raises(JobFailure) as raised, command_session(master, conf, starting=starting):
        raise AssertionError("the command ran")
    assert raised.value.kind == "usage"
    assert said in str(raised.value)


def test_a_source_without_a_data_directory_is_a_usage_failure(tmp_path: Path) -> None:
    with pytest.raises(JobFailure) as raised:
        Source(None).data_directory()
    assert (raised.value.kind, str(raised.value)) == ("usage", "give --data-dir (or --records)")
    with pytest.raises(JobFailure, match="no data directory at") as raised:
        Source(tmp_path / "missing").data_directory()
    assert raised.value.kind == "usage"
    assert Source(tmp_path).data_directory() == tmp_path
