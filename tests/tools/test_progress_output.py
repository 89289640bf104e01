"""Where a person waits, progress shows on a terminal's stderr (a total, an ETA) and nothing at
all on a pipe; tables printed to a pipe keep every cell whole; a failed connect names the
address and the wait; the JVM's start-up notice never reaches stderr."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import time
from pathlib import Path

import kafka.errors as kafka_errors
import pytest
from rich.console import Console
from typer.testing import CliRunner

from aclog.log import SegmentedLog, estimated_end_offset
from aclog.pipeline.jvm_stderr import filtered_jvm_stderr
from aclog.records import encode_many
from aclog.remote.connection import connect_failure
from aclog.tools import console, progress
from aclog.tools.main import app
from aclog.tools.pipeline import output as pipeline_output
from benchmarks.bench_log import acl_records

runner = CliRunner()
TIMELINE = [
    "timeline",
    "--principal",
    "User:svc-1",
    "--operation",
    "Read",
    "--topic",
    "t",
    "--data-dir",
]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    records = acl_records(3000)
    with SegmentedLog(tmp_path, fsync=False) as log:
        for start in range(0, len(records), 100):
            log.append(encode_many(records[start : start + 100]), 1)
    return tmp_path


def _stderr(monkeypatch: pytest.MonkeyPatch, *, terminal: bool) -> io.StringIO:
    """Point the progress display at a console that is (or is not) a terminal."""
    buffer = io.StringIO()
    fake = Console(file=buffer, force_terminal=terminal, width=120)
    monkeypatch.setattr(progress, "err", fake)
    return buffer


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["replay", "--data-dir"], "replaying: offset"),
        (["verify", "--data-dir"], "snapshot + tail replay: offset"),
        (["dump"], "dumping: offset"),
        (["lint", "--data-dir"], "replaying: offset"),
        (TIMELINE, "walking: offset"),
    ],
)
def test_progress_shows_on_a_terminal(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], shown: str
) -> None:
    buffer = _stderr(monkeypatch, terminal=True)
    result = runner.invoke(app, [*argv, str(data_dir)])
    assert result.exit_code == 0, result.output
    drawn = buffer.getvalue()
    assert shown in drawn and "ETA" in drawn and "%" in drawn
    assert re.search(r"offset [\d,]+ of [\d,]+", drawn), drawn  # the total, not only a percent
    assert shown not in result.stdout  # the data stream stays clean


@pytest.mark.parametrize(
    "argv", [["replay", "--data-dir"], ["verify", "--data-dir"], ["dump"], ["lint", "--data-dir"]]
)
def test_no_progress_on_a_pipe(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    buffer = _stderr(monkeypatch, terminal=False)
    result = runner.invoke(app, [*argv, str(data_dir)])
    assert result.exit_code == 0, result.output
    assert buffer.getvalue() == ""
    assert "offset" not in result.stderr


def test_the_bar_runs_to_the_estimated_end_of_the_log(data_dir: Path) -> None:
    end = estimated_end_offset(data_dir)
    assert end is not None and 2700 <= end <= 3300  # 3000 offsets, estimated from the index
    assert estimated_end_offset(data_dir / "missing") is None


def test_dump_to_the_terminal_itself_shows_no_bar(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    buffer = _stderr(monkeypatch, terminal=True)
    monkeypatch.setattr(progress, "stdout_is_free", lambda: False)  # dump asks at its start
    assert runner.invoke(app, ["dump", str(data_dir)]).exit_code == 0
    assert buffer.getvalue() == ""


def test_a_wait_names_what_it_waits_for_and_escapes_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    buffer = _stderr(monkeypatch, terminal=True)
    with progress.waiting("connecting to [bold]evil\x1b[2J:9092") as say:
        say("still [red]waiting")
    drawn = buffer.getvalue()
    assert "connecting to [bold]evil\\x1b[2J:9092" in drawn and "still [red]waiting" in drawn


def test_tables_on_a_pipe_are_never_cut(capsys: pytest.CaptureFixture[str]) -> None:
    assert not console.out.is_terminal
    wide = "t" * 150
    pipeline_output.show_rows(
        [{"name": wide, "principal": "User:" + "p" * 90}], ["name", "principal"], 5, "x"
    )
    printed = capsys.readouterr().out
    assert wide in printed and "User:" + "p" * 90 in printed
    assert "…" not in printed


def test_a_connect_that_gets_no_answer_names_the_address_and_the_timeout() -> None:
    silent = kafka_errors.KafkaConnectionError("socket disconnected")
    message = connect_failure("10.255.255.1:9092", silent, 3000)
    assert message.startswith("cannot connect to 10.255.255.1:9092: no answer within 3 s")
    assert "default.api.timeout.ms" in message and "socket disconnected" not in message
    refused = connect_failure("h:1", kafka_errors.KafkaConnectionError("111 ECONNREFUSED"), 15000)
    assert "within 15 s" in refused and "ECONNREFUSED" in refused
    sasl = kafka_errors.SaslAuthenticationFailedError("Authentication failed")
    assert "SASL_AUTHENTICATION_FAILED (58)" in connect_failure("h:1", sasl, 15000)


def test_the_jvm_notice_is_kept_off_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    script = (
        "import sys; sys.stderr.write('WARNING: Using incubator modules: jdk.incubator.vector\\n'"
        " 'ERROR a real problem\\n')"
    )
    with filtered_jvm_stderr():
        subprocess.run([sys.executable, "-c", script], check=True)
    deadline = time.monotonic() + 5
    seen = ""
    while "a real problem" not in seen and time.monotonic() < deadline:
        time.sleep(0.05)
        seen += capfd.readouterr().err
    assert "ERROR a real problem" in seen
    assert "incubator" not in seen
