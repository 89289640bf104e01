"""Helpers for running ``aclog import --from-kraft --follow`` against a real broker's live
metadata directory: the follower as a subprocess (stopped by its pid), Kafka's own tools for
changes, and a listing of the KRaft directory to show aclog changed nothing in it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.real_kafka import KafkaBroker
from tests.wire.harness import REPO

# Every name Kafka itself writes in __cluster_metadata-0 (aclog must add none of its own).
KAFKA_FILE = re.compile(
    r"^(\d{20}\.(log|index|timeindex|snapshot)(\.deleted|\.cleaned|\.swap)?"
    r"|\d{20}-\d{10}\.checkpoint(\.part|\.deleted)?"
    r"|quorum-state(\.tmp)?|partition\.metadata(\.tmp)?|leader-epoch-checkpoint(\.tmp)?)$"
)


class Follower:
    """One ``aclog import --from-kraft DIR --follow --json`` subprocess; output in files."""

    def __init__(self, workdir: Path, source: Path, target: Path, *extra: str) -> None:
        stamp = time.monotonic_ns()
        self.out, self.err = workdir / f"out-{stamp}", workdir / f"err-{stamp}"
        command = [sys.executable, "-m", "aclog", "import", "--from-kraft", str(source),
                   "--data-dir", str(target), "--follow", "--json", *extra]  # fmt: skip
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.process = subprocess.Popen(
                command,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": str(REPO)},
            )

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out.read_text().splitlines() if line]

    def stderr(self) -> str:
        return self.err.read_text()

    def stop(self) -> int:
        """SIGTERM by pid, then the exit code (SIGKILL after 15 s)."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
        try:
            return self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=5)
            raise


def expected_exit(report: dict[str, Any]) -> int:
    """The exit code an import or follow owes: 1 when the broker's history (shared by the
    session's tests) held a record aclog's rules keep out, such as a host-name ACL, else 0."""
    return 1 if report["rejected"] else 0


def eventually(check: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def caught_up(follower: Follower) -> Callable[[], bool]:
    """Whether the follower said it caught up (or stopped, so a test stops waiting)."""
    return lambda: "caught up with" in follower.stderr() or follower.process.poll() is not None


def acl_tool(broker: KafkaBroker, *args: str) -> None:
    """``kafka-acls.sh`` on the broker; fails the test with its stderr when it fails."""
    done = broker.tool("kafka-acls.sh", "--bootstrap-server", broker.bootstrap, *args)
    assert done.returncode == 0, done.stderr[-2000:]


def scram_tool(broker: KafkaBroker, *args: str) -> None:
    """``kafka-configs.sh --entity-type users`` on the broker."""
    done = broker.tool(
        "kafka-configs.sh", "--bootstrap-server", broker.bootstrap, "--entity-type", "users",
        *args,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]


@dataclass(frozen=True)
class Seen:
    """A file of the KRaft directory as listed: size and mtime in nanoseconds."""

    size: int
    mtime_ns: int


def listing(directory: Path) -> dict[str, Seen]:
    """Every file of ``directory`` with its size and mtime."""
    found = {}
    for entry in os.scandir(directory):
        if entry.is_file(follow_symlinks=False):
            stat = entry.stat(follow_symlinks=False)
            found[entry.name] = Seen(stat.st_size, stat.st_mtime_ns)
    return found


def untouched_by_aclog(before: dict[str, Seen], after: dict[str, Seen], active: str) -> list[str]:
    """What in ``after`` the broker cannot explain: a file whose name Kafka never writes, or a
    frozen file (a ``.checkpoint``, a rolled segment: anything but the ``active`` segment and
    Kafka's small state files, which Kafka rewrites) whose size or mtime moved."""
    problems = [f"{name}: not a file Kafka writes" for name in after if not KAFKA_FILE.match(name)]
    for name, seen in before.items():
        frozen = name.endswith(".checkpoint") or (name.endswith(".log") and name < active)
        if frozen and name in after and after[name] != seen:
            problems.append(f"{name}: {seen} became {after[name]}")
    return problems


def active_segment(directory: Path) -> str:
    """The newest ``.log`` segment's name (Kafka appends only to it)."""
    return max(name for name in os.listdir(directory) if name.endswith(".log"))
