"""The line a failed Spark job leaves the user: the task's exception, without the class name
when it is one of aclog's own (its message already says what happened and what to do)."""

from __future__ import annotations

import pytest

from aclog.pipeline.failures import short_error

TRACE = 'Job aborted due to stage failure\nTraceback (most recent call last):\n  File "x.py"\n'


@pytest.mark.parametrize(
    ("last_line", "shown"),
    [
        (
            "aclog.log.errors.CorruptLogError: corrupt log segment /d/0.log at byte 74: fix it",
            "corrupt log segment /d/0.log at byte 74: fix it",
        ),
        ("aclog.pipeline.errors.PipelineError: no data directory at d", "no data directory at d"),
        ("FileNotFoundError: [Errno 2] No such file: 'd/1.log'", None),
        ("java.lang.OutOfMemoryError: Java heap space", None),
        ("notaclog.x.SomeError: kept whole", None),
    ],
)
def test_a_task_error_is_shown_by_its_message(last_line: str, shown: str | None) -> None:
    error = RuntimeError(TRACE + last_line + "\n\tat org.apache.spark.Executor\n")
    assert short_error(error) == (last_line if shown is None else shown)


def test_an_error_without_an_exception_line_shows_its_first_line() -> None:
    assert short_error(RuntimeError("\n  the master is gone\nmore")) == "the master is gone"
    assert short_error(RuntimeError("")) == "RuntimeError"
