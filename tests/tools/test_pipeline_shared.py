"""The options every ``aclog pipeline`` command shares arrive parsed, once, as the library's job
(:class:`aclog.tools.pipeline.shared.SharedOptions`): the command makes one library call with it,
and what the library raises comes out as the CLI's exit. A stand-in for :mod:`aclog.pipeline`
records the call, so no Spark starts."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from aclog.tools.pipeline import shared
from tests.tools.harness import run_main


class _Failure(Exception):
    """Stands in for :class:`aclog.pipeline.JobFailure`."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def _pipeline(monkeypatch: pytest.MonkeyPatch, job: Callable[..., Any]) -> list[tuple[Any, ...]]:
    """Stand in for :mod:`aclog.pipeline`: its ``commands.state_of`` and ``commands.changes``
    run ``job``; each call is recorded with the source and the job the command built."""
    calls: list[tuple[Any, ...]] = []

    def call(*args: Any) -> Any:
        calls.append(args)
        return job(*args)

    module = SimpleNamespace(
        Source=lambda *fields: ("source", *fields),
        Job=lambda *fields: ("job", *fields),
        JobFailure=_Failure,
        commands=SimpleNamespace(state_of=call, changes=call),
    )
    monkeypatch.setattr(shared, "pipeline_modules", lambda: module)
    return calls


def _state(*_: Any) -> Any:
    document = {"offset": 3, "epoch": 1, "acls": [], "users": []}
    return SimpleNamespace(written=None, document=document)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "data"
    argv = ["acls", "add", "--data-dir", str(directory), "--topic", "orders"]
    assert run_main(*argv, "--allow-principal", "User:a", "--operation", "Read").code == 0
    return directory


def test_the_shared_options_reach_the_library_as_one_job(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    calls = _pipeline(monkeypatch, _state)
    run = run_main(
        "pipeline", "state", "--data-dir", str(data_dir), "--at-time", "1970-01-01T00:00:01Z",
        "--no-snapshots", "--master", "local[1]", "--conf", "spark.x=1", "--conf", "spark.y=2",
        "--driver-host", "10.0.0.5", "--json",
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["offset"] == 3
    [(job, collect)] = calls
    source = ("source", data_dir, None, False, None, 1000, False, shared.print_warning)
    conf = ["spark.x=1", "spark.y=2"]
    assert job == ("job", source, None, "local[1]", conf, "10.0.0.5", shared.waiting)
    assert collect is True  # --json: the rows are printed, so collected


def test_a_job_failure_is_its_exit_and_leaves_nothing_under_out(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "made" / "state"

    def fails(*_: Any) -> Any:
        out.mkdir(parents=True)  # the job began writing
        raise _Failure("no usable snapshot", "data")

    calls = _pipeline(monkeypatch, fails)
    run = run_main("pipeline", "state", "--data-dir", str(data_dir), "--out", str(out))
    assert (run.code, len(calls)) == (1, 1)
    assert "no usable snapshot" in run.stderr
    assert not (tmp_path / "made").exists()


def test_a_usage_error_exits_before_the_library_is_called(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    calls = _pipeline(monkeypatch, _state)
    run = run_main("pipeline", "diff", "--data-dir", str(data_dir), "--from", "x", "--to", "3")
    assert run.code == 2
    assert calls == []
    run = run_main("pipeline", "state", "--data-dir", str(data_dir), "--format", "bogus")
    assert (run.code, calls) == (2, [])
    assert "unknown --format 'bogus'" in run.stderr
