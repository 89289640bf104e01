"""The quorum-state file: where the active controller of a shared directory listens, trusted
only for the log's newest epoch; and when a starting node may claim leadership at once."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from aclog.controller.caller import Caller
from aclog.controller.controller import LocalOperator
from aclog.controller.quorum import ControllerNode
from aclog.controller.quorum_state import FILE_NAME, QuorumState, QuorumStateFile
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType

BINDING = AclBinding(
    ResourceType.TOPIC,
    "t",
    PatternType.LITERAL,
    "User:a",
    "*",
    AclOperation.READ,
    AclPermissionType.ALLOW,
)


def test_state_round_trips_and_counts_only_for_its_epoch(tmp_path: Path) -> None:
    file = QuorumStateFile(tmp_path)
    assert file.read() is None
    file.write(QuorumState(3, 7, "127.0.0.1:9093"))
    assert QuorumStateFile(tmp_path).read() == QuorumState(3, 7, "127.0.0.1:9093")
    assert file.current(7) == QuorumState(3, 7, "127.0.0.1:9093")
    assert file.current(8) is None  # a newer epoch was claimed: the file is out of date
    file.write(QuorumState(4, 8, None))
    assert file.current(8) == QuorumState(4, 8, None)
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize(
    "content",
    [b"", b"{not json", b"[1, 2]", b'{"leader_id": "1", "epoch": 2, "listener": null}', b"{}"],
)
def test_an_unreadable_file_is_ignored_with_a_warning(
    tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / FILE_NAME).write_bytes(content)
    with caplog.at_level(logging.WARNING):
        assert QuorumStateFile(tmp_path).read() is None
    assert "next election" in caplog.text


def _clocked(tmp_path: Path, node_id: int, now: list[float], listener: str) -> ControllerNode:
    return ControllerNode(
        tmp_path,
        node_id,
        clock=lambda: now[0],
        authorizer=LocalOperator(),
        fsync=False,
        listener=listener,
    )


def test_the_winner_announces_its_listener_and_the_standby_follows_it(tmp_path: Path) -> None:
    now = [100.0]
    first = _clocked(tmp_path, 1, now, "127.0.0.1:9001")
    first.tick()  # an empty log: nobody to wait for
    assert first.is_active
    assert first.leader() == QuorumState(1, 1, "127.0.0.1:9001")
    second = _clocked(tmp_path, 2, now, "127.0.0.1:9002")
    second.tick()  # the log moved just now: it waits for the election timeout
    assert not second.is_active
    assert second.leader() == QuorumState(1, 1, "127.0.0.1:9001")
    now[0] += second.election_timeout_s  # the first node falls silent
    second.tick()
    assert second.is_active and second.leader() == QuorumState(2, 2, "127.0.0.1:9002")
    assert first.create_acls([BINDING], Caller())[0].error.code == 41
    assert first.leader() == QuorumState(2, 2, "127.0.0.1:9002")


def test_a_node_starting_on_a_quiet_log_claims_at_once(tmp_path: Path) -> None:
    now = [100.0]
    first = _clocked(tmp_path, 1, now, "127.0.0.1:9001")
    first.tick()
    assert first.create_acls([BINDING], Caller())[0].error.code == 0
    first.close()
    now[0] += first.election_timeout_s + 1  # the log has stood still longer than a timeout
    second = _clocked(tmp_path, 2, now, "127.0.0.1:9002")
    second.tick()
    assert second.is_active and len(second.controller.image.acls) == 1


def test_a_stale_file_names_no_leader(tmp_path: Path) -> None:
    now = [100.0]
    first = _clocked(tmp_path, 1, now, "127.0.0.1:9001")
    first.tick()
    # As if the leader of epoch 1 died after its leader-change record but before announcing
    # itself: the file names an older epoch than the log's newest.
    QuorumStateFile(tmp_path).write(QuorumState(1, 0, "127.0.0.1:9001"))
    second = _clocked(tmp_path, 2, now, "127.0.0.1:9002")
    assert second.leader() is None


def test_a_leader_deposed_while_it_cannot_tick_names_the_newer_leader(tmp_path: Path) -> None:
    """A leader whose controller thread is stuck (an fsync on a stalled disk) still answers
    Metadata on its listener: it names the newer epoch's leader the file announces, not
    itself, so clients stop sending it writes that would wait out their request timeout."""
    now = [100.0]
    first = _clocked(tmp_path, 1, now, "127.0.0.1:9001")
    first.tick()
    assert first.is_active
    second = _clocked(tmp_path, 2, now, "127.0.0.1:9002")
    second.tick()
    now[0] += second.election_timeout_s  # the first node cannot tick: stuck on its disk
    second.tick()
    assert second.is_active
    assert first.is_active  # it has not found out yet
    assert first.leader() == QuorumState(2, 2, "127.0.0.1:9002")


def test_a_write_waiting_on_a_stuck_leader_is_refused_once_another_leads(
    tmp_path: Path,
) -> None:
    """A write that waits for a leader's controller thread, stuck in an fsync on a stalled
    disk, is answered NOT_CONTROLLER as soon as another node is announced as the leader, not
    when the disk comes back (the client's request timeout, 30 s by default for Kafka's)."""
    import threading

    from aclog.controller.quorum_member import QuorumMember

    now = [100.0]
    first = _clocked(tmp_path, 1, now, "127.0.0.1:9001")
    first.tick()
    member = QuorumMember(first, workers=1)
    second = _clocked(tmp_path, 2, now, "127.0.0.1:9002")
    second.tick()
    stuck, release = threading.Event(), threading.Event()

    def stuck_tick() -> None:  # holds the node's lock as a tick stuck in an fsync does
        with member._lock:
            stuck.set()
            release.wait(30)

    holder = threading.Thread(target=stuck_tick, daemon=True)
    holder.start()
    try:
        assert stuck.wait(5)
        answer = member.create_acls_later([BINDING], Caller())
        now[0] += second.election_timeout_s
        second.tick()
        assert second.is_active
        assert answer.result(timeout=5)[0].error.code == 41
    finally:
        release.set()
        holder.join(5)
        member.close()
        second.close()
