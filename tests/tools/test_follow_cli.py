"""``aclog follow`` against a real ``aclog serve`` (both subprocesses on 127.0.0.1, stopped by
pid): the initial state is recorded, out-of-band changes by kafka-python and confluent-kafka are
recorded within an interval, a restart resumes without re-recording, SIGTERM stops cleanly, and
an unreachable cluster is logged and retried, and a stop before any poll reached it exits 3."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import ScramCredentialInfo
from confluent_kafka.admin import ScramMechanism as CkMechanism
from confluent_kafka.admin import UserScramCredentialUpsertion as CkUpsertion
from kafka.admin import (
    ACL,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ResourcePattern,
    ResourceType,
)

from aclog.replay.stream import read_decoded
from tests.tools.harness import run_main
from tests.wire.clients import confluent, kafka_python
from tests.wire.harness import LAUNCHER, REPO, ServerProcess

INTERVAL = "0.3s"


class Follower:
    """One ``aclog follow`` subprocess, its stderr in a file."""

    def __init__(self, workdir: Path, bootstrap: str) -> None:
        self.err = workdir / f"follow-{time.monotonic_ns()}.err"
        command = [sys.executable, "-c", LAUNCHER, "follow", "--data-dir", str(workdir / "fol"),
                   "--bootstrap-server", bootstrap, "--interval", INTERVAL, "--json"]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(REPO),
               "ACLOG_COMMAND_CONFIG": str(_fast_config(workdir))}  # fmt: skip
        with self.err.open("wb") as err:
            self.process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL, env=env
            )

    def started(self) -> bool:
        """Whether it has said it follows (its signal handlers are installed right after)."""
        return _eventually(lambda: "aclog: following" in self.stderr(), 20)

    def stop(self) -> tuple[int, Any]:
        """SIGTERM, then the exit code and the JSON summary (SIGKILL after 15 s)."""
        self.process.send_signal(signal.SIGTERM)
        try:
            out, _ = self.process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, _ = self.process.communicate(timeout=5)
        return self.process.returncode, json.loads(out or b"null")

    def stderr(self) -> str:
        return self.err.read_text()


def _fast_config(workdir: Path) -> Path:
    config = workdir / "fast.properties"
    config.write_text("request.timeout.ms=2000\ndefault.api.timeout.ms=2000\n")
    return config


def _eventually(check: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def _recorded(workdir: Path) -> dict[str, Any]:
    if not (workdir / "fol").exists():  # the follower has not started yet
        return {"acls": [], "users": []}
    replayed = run_main("replay", "--data-dir", str(workdir / "fol"), "--json")
    assert replayed.code == 0, replayed.stderr
    state: dict[str, Any] = json.loads(replayed.stdout)
    return state


def _counts(workdir: Path) -> tuple[int, int]:
    """(ACLs, users) recorded so far."""
    state = _recorded(workdir)
    return len(state["acls"]), len(state["users"])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    (tmp_path / "srv").mkdir()
    process = ServerProcess(tmp_path / "srv", "--super-users", "User:ANONYMOUS")
    process.start()
    try:
        yield process
    finally:
        assert process.stop() == 0, process.stderr()[-3000:]


def _acl(principal: str, topic: str) -> ACL:
    pattern = ResourcePattern(ResourceType.TOPIC, topic, ACLResourcePatternType.LITERAL)
    return ACL(principal, "*", ACLOperation.READ, ACLPermissionType.ALLOW, pattern)


def test_follow_records_changes_made_out_of_band(tmp_path: Path, server: ServerProcess) -> None:
    with kafka_python(server) as admin:
        admin.create_acls([_acl("User:before", "orders")])
    follower = Follower(tmp_path, server.bootstrap)
    try:
        assert _eventually(lambda: len(_recorded(tmp_path)["acls"]) == 1), follower.stderr()
        with kafka_python(server) as admin:
            admin.create_acls([_acl("User:later", "orders")])
        ck_admin = confluent(server)  # kept: librdkafka drops a collected handle's requests
        info = ScramCredentialInfo(CkMechanism.SCRAM_SHA_512, 8192)
        futures = ck_admin.alter_user_scram_credentials([CkUpsertion("carol", info, b"pw")])
        assert futures["carol"].result(timeout=10) is None
        assert _eventually(lambda: _counts(tmp_path) == (2, 1)), follower.stderr()
    finally:
        code, summary = follower.stop()
    assert code == 0, follower.stderr()
    assert summary["source"] == server.bootstrap and summary["polls_recorded"] >= 2
    batches = list(read_decoded(tmp_path / "fol"))
    contexts = [b.records[0] for b in batches[1:]]
    assert all(c.principal == "unknown" for c in contexts)  # type: ignore[union-attr]
    assert all(c.client_address == server.bootstrap for c in contexts)  # type: ignore[union-attr]
    assert _recorded(tmp_path)["users"] == [
        {"name": "carol", "credentials": [{"mechanism": "SCRAM-SHA-512", "iterations": 8192}]}
    ]
    # Drift: a file that owns User:later and declares nothing for it sees the out-of-band grant.
    (tmp_path / "later.yaml").write_text("owns: {principals: [User:later]}\n")
    drift = run_main("plan", str(tmp_path / "later.yaml"), "--data-dir", str(tmp_path / "fol"),
                     "--json", "--detailed-exitcode")  # fmt: skip
    assert drift.code == 4, drift.stderr
    assert [a["principal"] for a in json.loads(drift.stdout)["acls"]["remove"]] == ["User:later"]
    # A restart resumes from the data directory: nothing changed, nothing is recorded.
    end = batches[-1].last_offset
    again = Follower(tmp_path, server.bootstrap)
    assert again.started(), again.stderr()
    time.sleep(1.0)
    code, summary = again.stop()
    assert code == 0 and summary["polls_recorded"] == 0, again.stderr()
    assert summary["polls"] >= 1  # it reached the cluster: a clean stop
    assert list(read_decoded(tmp_path / "fol"))[-1].last_offset == end


def test_a_follower_that_never_reached_the_cluster_exits_3_when_stopped(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    follower = Follower(tmp_path, f"127.0.0.1:{port}")
    try:
        assert _eventually(lambda: "cannot poll" in follower.stderr(), 20), follower.stderr()
        assert follower.process.poll() is None  # still running: it retries
    finally:
        code, summary = follower.stop()
    # It observed nothing, not even an unchanged state: a 0 would tell a script all was well.
    assert code == 3, follower.stderr()
    assert summary["polls"] == 0 and summary["polls_recorded"] == 0
    assert "retrying in" in follower.stderr()
    assert f"without ever reaching 127.0.0.1:{port}" in follower.stderr()
    # the directory it created for nothing is gone; it reported 'log end 1' of it
    assert not (tmp_path / "fol").exists()
    assert summary["log_end"] is None
