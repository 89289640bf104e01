"""Controllers sharing a directory take no lock to follow, lead or take over (README, "Epoch
fencing"): a standby catches up and the active controller checks it still leads with a stat; a
standby replays only batches below the recovery point (fsynced, so committed); and a leader
frozen anywhere, inside its write or its fsync, is replaced at once, its write fenced (never
part of the log, answered NOT_CONTROLLER) or committed (whole before the claim), never both."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from aclog.acl import Errors
from aclog.controller.caller import Caller
from aclog.controller.controller import LocalOperator
from aclog.controller.quorum import ControllerNode
from aclog.log.files import Faults, injected
from aclog.log.reader import read_batches
from aclog.log.recovery_point import read_recovery_point
from aclog.records import NoOpRecord
from aclog.records.codec import encode
from aclog.replay.rebuild import rebuild_image
from tests.acl_factory import acl_binding


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


def test_a_standby_follows_and_the_leader_checks_it_leads_without_a_lock(tmp_path: Path) -> None:
    clock = [0.0]
    active, standby = _elect(tmp_path, clock)
    assert active.create_acls([acl_binding("a"), acl_binding("b")], Caller())[0].error.is_success
    try:
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
        leader = active.controller.log
        unsynced = leader.append([encode(NoOpRecord())], leader.latest_epoch, fsync=False)
        standby.tick()
        assert standby.controller.image.provenance.last_offset == followed
        leader.append([encode(NoOpRecord())], leader.latest_epoch)
        standby.tick()
        assert standby.controller.image.provenance.last_offset > unsynced.last_offset
    finally:
        active.close()
        standby.close()


def test_a_standby_claims_at_the_first_timeout_after_a_leader_dies_mid_commit(
    tmp_path: Path,
) -> None:
    clock = [0.0]
    active, standby = _elect(tmp_path, clock)
    # The leader's last batch is whole but above the recovery point (it died after the write,
    # before the point moved): no standby has followed it, and the claim's recovery keeps it.
    dying = active.controller.log
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
    """A disk whose ``operation`` (an fsync, a write) on segments hangs for one thread (the
    leader's) until released: a leader frozen there."""

    def __init__(self, thread: str, operation: str = "fsync") -> None:
        super().__init__()
        self.thread, self.entered, self.release = thread, threading.Event(), threading.Event()
        self.operation = operation

    def check(self, operation: str, path: Path | str, size: int = 0) -> int:
        stalled = threading.current_thread().name == self.thread and str(path).endswith(".log")
        if operation == self.operation and stalled:
            self.entered.set()
            self.release.wait(30)
        return size


@pytest.mark.parametrize(("operation", "committed"), [("fsync", True), ("write", False)])
def test_a_leader_frozen_inside_its_append_is_replaced_at_once(
    tmp_path: Path, operation: str, committed: bool
) -> None:
    """Frozen in its fsync, the leader's bytes were whole before the takeover read the log:
    committed, and acknowledged as such. Frozen in its write (the window the append lock used
    to cover), its bytes land after the fence: not part of the log, answered NOT_CONTROLLER.
    Either way the standby takes over at once, the recovery point never moves back over the
    new epoch and no record of the old epoch follows the fence."""
    clock = [0.0]
    active, standby = _elect(tmp_path, clock)
    results: list[object] = []
    disk = _StalledDisk("frozen-leader", operation)

    def write() -> None:
        results.extend(active.create_acls([acl_binding("frozen")], Caller()))

    leader = threading.Thread(target=write, name="frozen-leader")
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
        error = results[0].error  # type: ignore[attr-defined]
        assert error.is_success if committed else error.error == Errors.NOT_CONTROLLER
        late = active.create_acls([acl_binding("late")], Caller())[0].error
        assert late.error == Errors.NOT_CONTROLLER
        assert read_recovery_point(tmp_path).offset == standby.controller.log.end_offset
        epochs = [b.epoch for b in read_batches(tmp_path)]
        assert epochs == sorted(epochs)
    finally:
        disk.release.set()
        active.close()
        standby.close()
    assert _topics_in(tmp_path) == ({"frozen", "new"} if committed else {"new"})


def _topics_in(directory: Path) -> set[str]:
    image = rebuild_image(directory).image
    return {acl.resource_name for acl in image.acls.acls.values()}
