"""Helpers for running ``aclog import --from-kraft --follow`` against a real broker's live
metadata directory: the follower as a subprocess (stopped by its pid), Kafka's own tools for
changes, and a listing of the KRaft directory to show aclog changed nothing in it."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.kraft.follower import ImportFollower
from tests.kraft.follower import eventually as wait_for
from tests.real_kafka import KafkaBroker

# Every name Kafka itself writes in __cluster_metadata-0 (aclog must add none of its own).
KAFKA_FILE = re.compile(
    r"^(\d{20}\.(log|index|timeindex|snapshot)(\.deleted|\.cleaned|\.swap)?"
    r"|\d{20}-\d{10}\.checkpoint(\.part|\.deleted)?"
    r"|quorum-state(\.tmp)?|partition\.metadata(\.tmp)?|leader-epoch-checkpoint(\.tmp)?)$"
)


Follower = ImportFollower


def expected_exit(report: dict[str, Any]) -> int:
    """The exit code an import or follow owes: 1 when the broker's history (shared by the
    session's tests) held a record aclog's rules keep out, such as a host-name ACL, else 0."""
    return 1 if report["rejected"] else 0


def eventually(check: Callable[[], bool], timeout: float = 30.0) -> bool:
    """:func:`tests.kraft.follower.eventually` with a real broker's longer default."""
    return wait_for(check, timeout)


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
