"""A leader that stops on damage to what it acknowledged (issue 35, item 3): no node appends
behind the damage, so no standby takes over on it; once the operator restores the segment, a
standby takes over without a restart, while the stopped leader claims nothing until its own
restart. Every node says so once, not with a traceback per tick."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from aclog.acl import Errors
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.controller.quorum import ControllerNode, Role
from aclog.controller.quorum_member import QuorumMember
from aclog.log import CorruptLogError, SegmentedLog, WriterStoppedError
from aclog.log.segment import list_segments
from aclog.records import NoOpRecord
from aclog.records.codec import encode
from tests.acl_factory import acl_binding

ADMIN = Caller("User:admin", "10.0.0.1", "test-client", "CreateAcls")


def _flip_in_last_batch(directory: Path) -> tuple[Path, bytes]:
    """Flip a byte inside the newest (acknowledged) batch; the segment and its bytes before."""
    segment = list_segments(directory)[-1][1]
    before = segment.read_bytes()
    damaged = bytearray(before)
    damaged[len(before) - 30] ^= 0xFF
    segment.write_bytes(bytes(damaged))
    return segment, before


def _names(directory: Path) -> list[str]:
    with Controller.open(directory, authorizer=LocalOperator()) as reopened:
        return sorted(acl.resource_name for acl in reopened.image.acls)


def test_no_standby_takes_over_on_damage_and_one_does_once_it_is_restored(
    tmp_path: Path,
) -> None:
    now = [0.0]
    nodes = [
        ControllerNode(tmp_path, i, clock=lambda: now[0], authorizer=LocalOperator())
        for i in (1, 2)
    ]

    def ticks(n: int) -> list[BaseException]:
        errors: list[BaseException] = []
        for _ in range(n):
            now[0] += 0.25
            for node in nodes:
                try:
                    node.tick()
                except CorruptLogError as error:
                    errors.append(error)
        return errors

    try:
        assert not ticks(20)
        leader = next(n for n in nodes if n.is_active)
        standby = next(n for n in nodes if not n.is_active)
        assert leader.create_acls([acl_binding("kept")], ADMIN)[0].error.is_success
        segment, whole = _flip_in_last_batch(tmp_path)
        with pytest.raises(WriterStoppedError, match="damaged batch"):
            leader.controller.log.roll()  # the read-back before a seal finds it
        damaged_ticks = ticks(12)  # past the election timeout
        assert damaged_ticks and all(str(segment) in str(e) for e in damaged_ticks)
        assert leader.role is Role.STANDBY and not standby.is_active  # nobody appends behind it
        assert segment.stat().st_size == len(whole)
        segment.write_bytes(whole)  # the operator restores the segment
        assert not ticks(12)
        assert standby.is_active and not leader.is_active  # stopped: claims nothing
        assert standby.create_acls([acl_binding("after")], ADMIN)[0].error.is_success
        refused = leader.create_acls([acl_binding("refused")], ADMIN)[0].error
        assert refused.error == Errors.NOT_CONTROLLER
    finally:
        for node in nodes:
            node.close()
    assert _names(tmp_path) == ["after", "kept"]


@pytest.mark.timeout(60)
def test_a_damaged_log_is_one_error_line_on_a_standby_not_a_traceback_per_tick(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with Controller.open(tmp_path, authorizer=LocalOperator()) as controller:
        assert controller.create_acls([acl_binding("kept")], ADMIN)[0].error.is_success
    node = ControllerNode(tmp_path, 1, authorizer=LocalOperator(), election_timeout_ms=300)
    member = QuorumMember(node)
    # A batch another controller acknowledged after this node opened, damaged before this node
    # read it: its follow finds the damage, and so does its claim's recovery of the tail.
    # (Damage to bytes a node has already read is the scrub's to find, see aclog.node.scrub.)
    with SegmentedLog(tmp_path, shared=True) as other:
        epoch = other.latest_epoch + 1
        assert other.begin_epoch(epoch, 9) is not None
        other.append([encode(NoOpRecord())], epoch)
    segment, whole = _flip_in_last_batch(tmp_path)
    caplog.set_level(logging.WARNING, logger="aclog.controller.quorum_member")
    try:
        member.start("127.0.0.1:9")
        time.sleep(1.0)  # twenty ticks, each finding the damage
        assert not member.is_active
        segment.write_bytes(whole)
        deadline = time.monotonic() + 10
        while not member.is_active:
            assert time.monotonic() < deadline, "the node never claimed once the log was whole"
            time.sleep(0.05)
    finally:
        member.close()
    assert all(r.exc_info is None for r in caplog.records), "a traceback was logged"
    lines = [r.getMessage() for r in caplog.records]
    damaged = [r for r in caplog.records if str(segment) in r.getMessage()]
    assert len(damaged) == 1 and damaged[0].levelno == logging.ERROR, lines
    assert any("reads whole again" in line for line in lines), lines
