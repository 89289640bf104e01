"""A shared directory's writer, as ``aclog serve --controller`` runs it: two
:class:`QuorumMember` s, each with its ticking thread, over one data directory. The standby
refuses every write item by item with NOT_CONTROLLER (41) and names the active member as the
leader; the active one's writes are visible to the standby once it has followed the log."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from aclog.acl import Errors
from aclog.acl.filters import AclFilter
from aclog.controller import upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import LocalOperator
from aclog.controller.quorum import ControllerNode
from aclog.controller.quorum_member import QuorumMember
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)

T = TypeVar("T")
ACL = AclBinding(
    ResourceType.TOPIC,
    "orders",
    PatternType.LITERAL,
    "User:alice",
    "*",
    AclOperation.READ,
    AclPermissionType.ALLOW,
)


def _until(check: Callable[[], T | None], what: str, timeout: float = 20.0) -> T:
    deadline = time.monotonic() + timeout
    while (found := check()) is None:
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s")
        time.sleep(0.02)
    return found


@pytest.fixture
def members(tmp_path: Path) -> Iterator[tuple[QuorumMember, QuorumMember]]:
    """(the active member, the standby)."""
    pair = [
        QuorumMember(
            ControllerNode(
                tmp_path,
                node_id,
                heartbeat_ms=100,
                election_timeout_ms=1000,
                authorizer=LocalOperator(),
                fsync=False,
            ),
            workers=2,
        )
        for node_id in (1, 2)
    ]
    try:
        for member in pair:
            member.start(f"127.0.0.1:{9000 + member.node.node_id}")
        active = _until(lambda: next((m for m in pair if m.is_active), None), "leader")
        standby = next(m for m in pair if m is not active)
        yield active, standby
    finally:
        for member in pair:
            member.close()


def test_the_standby_refuses_writes_item_by_item(
    members: tuple[QuorumMember, QuorumMember],
) -> None:
    _, standby = members
    assert not standby.is_active and not standby.writes_in_order
    created = standby.create_acls([ACL, ACL], Caller())
    assert [r.error.code for r in created] == [Errors.NOT_CONTROLLER] * 2
    deleted = standby.delete_acls_later([AclFilter()], Caller()).result(timeout=10)
    assert [r.error.code for r in deleted] == [Errors.NOT_CONTROLLER]
    upsert = upsertion_for_password("alice", ScramMechanism.SCRAM_SHA_256, "pw", 4096)
    altered = standby.alter_scram([upsert], [], Caller())
    assert [(r.user, r.error.code) for r in altered] == [("alice", Errors.NOT_CONTROLLER)]
    assert len(standby.image.acls) == 0


def test_the_standby_names_the_active_member_and_follows_its_writes(
    members: tuple[QuorumMember, QuorumMember],
) -> None:
    active, standby = members
    leader = _until(standby.leader, "leader known to the standby")
    assert leader.leader_id == active.node.node_id
    assert leader.listener == f"127.0.0.1:{9000 + active.node.node_id}"
    assert [r.error.code for r in active.create_acls([ACL], Caller())] == [0]
    _until(lambda: standby.describe_acls(AclFilter())[1] or None, "the ACL on the standby")
    assert [a.binding for a in standby.describe_acls(AclFilter())[1]] == [ACL]
