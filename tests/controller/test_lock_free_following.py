"""Controllers sharing a directory follow it without its lock: a standby catches up, and the
active controller checks it still leads, while another process holds the append lock (as a
node frozen mid-append does); a standby replays only batches below the recovery point (fsynced,
so committed); and a node whose election is blocked by a held lock says so in one line, once,
not with a traceback per tick."""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from aclog.acl import Errors
from aclog.controller.caller import Caller
from aclog.controller.controller import LocalOperator
from aclog.controller.quorum import ControllerNode
from aclog.controller.quorum_member import QuorumMember
from aclog.log import LOCK_FILE, SegmentedLog
from aclog.log import lock as lock_module
from aclog.log.files import Faults, injected
from aclog.log.recovery_point import read_recovery_point
from aclog.records import NoOpRecord
from aclog.records.codec import encode
from aclog.replay.rebuild import rebuild_image
from tests.acl_factory import acl_binding


@contextmanager
def _lock_held(directory: Path) -> Iterator[None]:
    """The append lock held through an open file of our own, as a frozen holder holds it."""
    fd = os.open(directory / LOCK_FILE, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _elect(directory: Path, clock: list[float]) -> tuple[ControllerNode, ControllerNode]:
    nodes = [
        ControllerNode(directory, i, clock=lambda: clock[0], authorizer=LocalOperator())
        for i in (1, 2)
    ]
    for _ in range(12):
        clock[0] += 0.25
        for node in nodes:
            node.tick()
    active = next(n for n in nodes if n.is_active)
    return active, next(n for n in nodes if n is not active)


def _topics(node: ControllerNode) -> set[str]:
    return {acl.resource_name for acl in node.controller.image.acls.acls.values()}


def test_a_standby_follows_and_the_leader_serves_while_the_lock_is_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lock_module, "SHARED_LOCK_TIMEOUT", 0.5)
    clock = [0.0]
    active, standby = _elect(tmp_path, clock)
    assert active.create_acls([acl_binding("a"), acl_binding("b")], Caller())[0].error.is_success
    try:
        with _lock_held(tmp_path):
            started = time.monotonic()
            standby.tick()  # follows: no lock needed to read
            assert active.controller.still_leading()  # a stat, not a lock round trip
            assert time.monotonic() - started < 0.4
        assert _topics(standby) == {"a", "b"}
    finally:
        active.close()
        standby.close()


def test_a_standby_replays_only_what_is_below_the_recovery_point(tmp_path: Path) -> None:
    clock = [0.0]
    active, standby = _elect(tmp_path, clock)
    try:
        assert active.create_acls([acl_binding("durable")], Caller())[0].error.is_success
        before = standby.controller.image.provenance.last_offset
        standby.tick()
        followed = standby.controller.image.provenance.last_offset
        assert followed > before
        # A whole batch written but not yet fsynced (its fsync may still fail and cut it) is
        # not committed, so a standby must not replay it; once a later fsync covers it, it is.
        with SegmentedLog(tmp_path, shared=True) as other:
            unsynced = other.append([encode(NoOpRecord())], other.latest_epoch, fsync=False)
            standby.tick()
            assert standby.controller.image.provenance.last_offset == followed
            other.append([encode(NoOpRecord())], other.latest_epoch)
        standby.tick()
        assert standby.controller.image.provenance.last_offset > unsynced.last_offset
    finally:
        active.close()
        standby.close()


def test_a_blocked_election_is_one_line_once_not_a_traceback_per_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(lock_module, "SHARED_LOCK_TIMEOUT", 0.1)
    SegmentedLog(tmp_path, shared=True).close()  # an empty log: the node claims at once
    member = QuorumMember(ControllerNode(tmp_path, 1, authorizer=LocalOperator(), fsync=False))
    caplog.set_level(logging.WARNING, logger="aclog.controller.quorum_member")
    try:
        with _lock_held(tmp_path):
            member.start("127.0.0.1:9")
            time.sleep(1.0)  # several ticks, each blocked for the lock's timeout
            assert not member.is_active
        deadline = time.monotonic() + 10
        while not member.is_active:
            assert time.monotonic() < deadline, "the node never claimed once the lock was free"
            time.sleep(0.05)
    finally:
        member.close()
    lines = [r.getMessage() for r in caplog.records]
    assert all(r.exc_info is None for r in caplog.records), "a traceback was logged"
    held = [line for line in lines if "has held the append lock" in line]
    assert len(held) == 1 and "nothing was written" in held[0], lines
    assert any("lock is free again" in line for line in lines), lines


def test_a_standby_claims_at_the_first_timeout_after_a_leader_dies_mid_commit(
    tmp_path: Path,
) -> None:
    clock = [0.0]
    active, standby = _elect(tmp_path, clock)
    # The leader's last batch is whole but above the recovery point (it died after the write,
    # before the point moved): no standby has followed it, and the claim's recovery keeps it.
    with SegmentedLog(tmp_path, shared=True) as dying:
        dying.append([encode(NoOpRecord())], dying.latest_epoch, fsync=False)
    active.close()
    try:
        standby.tick()
        clock[0] += 2.5  # one election timeout of silence
        standby.tick()
        assert standby.is_active  # not only after a second timeout
        assert standby.create_acls([acl_binding("after")], Caller())[0].error.is_success
    finally:
        standby.close()


class _StalledDisk(Faults):
    """A disk whose fsyncs of segments hang for one thread (the leader's) until released."""

    def __init__(self, thread: str) -> None:
        super().__init__()
        self.thread, self.entered, self.release = thread, threading.Event(), threading.Event()

    def check(self, operation: str, path: Path | str, size: int = 0) -> int:
        stalled = threading.current_thread().name == self.thread and str(path).endswith(".log")
        if operation == "fsync" and stalled:
            self.entered.set()
            self.release.wait(30)
        return size


def test_a_leader_stalled_in_its_fsync_holds_no_lock_and_its_write_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lock_module, "SHARED_LOCK_TIMEOUT", 0.5)
    clock = [0.0]
    active, standby = _elect(tmp_path, clock)
    results: list[object] = []
    disk = _StalledDisk("stalled-leader")

    def write() -> None:
        results.extend(active.create_acls([acl_binding("stalled")], Caller()))

    leader = threading.Thread(target=write, name="stalled-leader")
    try:
        with injected(disk):
            leader.start()
            assert disk.entered.wait(10)
            clock[0] += 2.5
            started = time.monotonic()
            standby.tick()  # the election: no lock to wait for
            assert standby.is_active and time.monotonic() - started < 0.4
            assert standby.create_acls([acl_binding("new")], Caller())[0].error.is_success
            disk.release.set()
            leader.join(10)
        # Its bytes were whole before the new leader recovered the tail: committed, and
        # acknowledged as such; the recovery point never moves back over the new epoch.
        assert results and results[0].error.is_success  # type: ignore[attr-defined]
        assert (
            active.create_acls([acl_binding("late")], Caller())[0].error.error
            == Errors.NOT_CONTROLLER
        )
        end = standby.controller.log.end_offset
        assert read_recovery_point(tmp_path).offset == end
    finally:
        disk.release.set()
        active.close()
        standby.close()
    assert _topics_in(tmp_path) == {"stalled", "new"}


def _topics_in(directory: Path) -> set[str]:
    image = rebuild_image(directory).image
    return {acl.resource_name for acl in image.acls.acls.values()}
