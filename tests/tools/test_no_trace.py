"""A command that commits nothing leaves every file as it was, mtime included; a writer
starts no log among other files.

A write that fails validation or changes nothing (``acls add`` of an ACL that exists, ``users
delete`` of an unknown user, ``apply`` with no diff) still takes the writer lock to decide; it
used to rewrite ``.lock`` with its pid and the index and recovery point with the same bytes, so
every such command moved three mtimes (and backup tools copied the directory again). A pure
read never writes at all. ``serve`` and ``quickstart`` started their log in any existing
directory, beside whatever it held.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.tools.harness import run_main, tree_stamps

ROOT = Path(__file__).resolve().parents[2]

NO_OP_WRITES = [
    # the demo already holds this ACL
    ("acls", "add", "--allow-principal", "User:ledger", "--operation", "Read", "--topic",
     "payments.", "--resource-pattern-type", "prefixed"),
    ("acls", "add", "--allow-principal", "alice", "--topic", "t"),
    ("acls", "add", "--allow-principal", "User:a", "--allow-host", "myhost", "--topic", "t"),
    ("acls", "remove", "--topic", "no-such-topic", "--force"),
    ("users", "delete", "nobody", "--mechanism", "SCRAM-SHA-256"),
    ("users", "set", "bob", "--mechanism", "SCRAM-SHA-256", "--password", ""),
]  # fmt: skip

READS = [
    ("acls", "list"),
    ("acls", "list", "--topic", "payments.cards", "--resource-pattern-type", "match"),
    ("acls", "add", "--allow-principal", "User:x", "--topic", "t", "--dry-run"),
    ("acls", "remove", "--topic", "audit", "--dry-run"),
    ("users", "list"),
    ("users", "list", "--json"),
    ("explain", "--principal", "User:ledger", "--host", "10.0.0.1", "--operation", "Read",
     "--topic", "payments.cards"),
    ("who-can", "--operation", "Read", "--topic", "payments.cards"),
    ("reach", "--principal", "User:ledger"),
    ("lint",),
    ("timeline", "--principal", "User:ledger", "--operation", "Read", "--topic", "payments.x"),
    ("replay",),
    ("replay", "--at-offset", "5", "--json"),
    ("diff", "--from", "0", "--to", "17"),
    ("verify",),
    ("snapshot", "list"),
    ("snapshot", "verify"),
    ("export", "--format", "yaml"),
]  # fmt: skip


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("no-trace") / "data"
    assert run_main("demo", "--data-dir", str(directory), "--no-show").code == 0
    assert run_main("snapshot", "create", "--data-dir", str(directory)).code == 0
    return directory


@pytest.mark.parametrize("line", NO_OP_WRITES, ids=lambda line: " ".join(line[:3]))
def test_a_write_that_commits_nothing_leaves_every_file_and_mtime_alone(
    demo: Path, line: tuple[str, ...]
) -> None:
    before = tree_stamps(demo.parent)
    result = run_main(*line, "--data-dir", str(demo))
    assert "Traceback" not in result.stderr
    assert tree_stamps(demo.parent) == before, (result.code, result.stdout, result.stderr)


def test_apply_of_the_exported_state_changes_nothing(demo: Path, tmp_path: Path) -> None:
    desired = tmp_path / "desired.yaml"
    exported = run_main("export", "--format", "yaml", "--data-dir", str(demo))
    desired.write_text(exported.stdout)
    before = tree_stamps(demo.parent)
    result = run_main("apply", str(desired), "--data-dir", str(demo))
    assert result.code == 0 and "no changes" in result.stdout, result.stderr
    assert tree_stamps(demo.parent) == before


def test_a_failed_write_to_an_empty_directory_leaves_it_empty(tmp_path: Path) -> None:
    # It left a lock, a segment, an index and a recovery point: a log nobody asked for.
    result = run_main("users", "delete", "bob", "--mechanism", "SCRAM-SHA-256",
                      "--data-dir", str(tmp_path))  # fmt: skip
    assert result.code == 1 and "RESOURCE_NOT_FOUND" in result.stderr
    assert list(tmp_path.iterdir()) == []
    added = run_main("acls", "add", "--allow-principal", "User:a", "--topic", "t",
                     "--data-dir", str(tmp_path))  # fmt: skip
    assert added.code == 0 and any(tmp_path.glob("*.log"))


def test_the_lock_still_names_its_holder(demo: Path) -> None:
    from aclog.controller import Controller

    with Controller.open(demo):
        result = run_main("users", "delete", "x", "--mechanism", "SCRAM-SHA-256",
                          "--data-dir", str(demo))  # fmt: skip
    assert result.code == 3
    assert f"pid {os.getpid()}" in result.stderr, result.stderr


@settings(
    max_examples=len(READS) * 2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(line=st.sampled_from(READS), json_output=st.booleans())
def test_a_read_leaves_every_file_and_mtime_alone(
    demo: Path, line: tuple[str, ...], json_output: bool
) -> None:
    before = tree_stamps(demo.parent)
    extra = ("--json",) if json_output and "--json" not in line else ()
    result = run_main(*line, *extra, "--data-dir", str(demo))
    assert result.code == 0, (line, result.stderr)
    assert tree_stamps(demo.parent) == before, line


def _aclog(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("ACLOG_DATA_DIR", None)
    command = [sys.executable, "-m", "aclog.tools.main", *args]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:  # it started serving: stop it by its pid, then fail
        process.kill()
        stdout, stderr = process.communicate(timeout=30)
        pytest.fail(f"aclog {' '.join(args)} kept running: {stdout} {stderr}")
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


@pytest.mark.parametrize(
    "line",
    [
        ("serve", "--listen", "127.0.0.1:0"),
        ("quickstart", "--listen", "127.0.0.1:0", "--exit"),
    ],
    ids=lambda line: line[0],
)
def test_a_server_starts_no_log_among_other_files(tmp_path: Path, line: tuple[str, ...]) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    before = tree_stamps(tmp_path)
    result = _aclog(*line, "--data-dir", str(tmp_path), timeout=20)
    assert result.returncode == 2, result.stderr
    assert f"{tmp_path} holds no log segments" in result.stderr
    assert "Traceback" not in result.stderr
    assert tree_stamps(tmp_path) == before


def test_snapshot_verify_json_names_each_corrupt_snapshot(tmp_path: Path) -> None:
    # It printed {"ok": false, "corrupt": 1}: which snapshot, and why, was on stderr only.
    data = tmp_path / "data"
    assert run_main("demo", "--data-dir", str(data), "--no-show").code == 0
    assert run_main("snapshot", "create", "--data-dir", str(data)).code == 0
    [snapshot] = data.glob("*.snapshot.avro")
    damaged = bytearray(snapshot.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    snapshot.write_bytes(bytes(damaged))
    result = run_main("snapshot", "verify", "--data-dir", str(data), "--json")
    assert result.code == 1
    shown = json.loads(result.stdout)
    assert shown["ok"] is False and shown["checked"] == 1 and shown["corrupt"] == 1
    [problem] = shown["problems"]
    assert snapshot.name in problem


def test_a_writer_refused_by_another_process_names_its_pid(demo: Path) -> None:
    # The pid used to be written into .lock by each writer; now the kernel's lock table says.
    script = (
        "import sys, time; from aclog.log import SegmentedLog; "
        "log = SegmentedLog(sys.argv[1]); print('held', flush=True); time.sleep(60)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(demo)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = tree_stamps(demo.parent)
        result = run_main("acls", "add", "--allow-principal", "User:q", "--topic", "q",
                          "--data-dir", str(demo))  # fmt: skip
        assert result.code == 3, result.stderr
        assert f"pid {holder.pid}" in result.stderr, result.stderr
        assert tree_stamps(demo.parent) == before
    finally:
        holder.kill()
        holder.wait(timeout=30)
