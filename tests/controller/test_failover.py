"""Failover with epoch fencing: seeded fault-injection schedules find no lost acknowledged
write, no stale epoch after a newer one, no broker diverging from the log and no broken SCRAM
atomicity; planted bugs prove the checker catches each kind of violation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aclog.controller import ControllerResult, ScramControlManager
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.controller.quorum import ControllerNode, Role
from aclog.log import SegmentedLog
from aclog.log import commit as commit_module
from aclog.log.claims import Outcome
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    UserScramCredentialRecord,
)
from tests.controller.simulation import Sim

SCHEDULES = int(os.environ.get("ACLOG_SIM_SCHEDULES", "200"))
BINDING = AclBinding(
    ResourceType.TOPIC,
    "t",
    PatternType.LITERAL,
    "User:a",
    "*",
    AclOperation.READ,
    AclPermissionType.ALLOW,
)


def test_seeded_schedules_have_no_violations(tmp_path: Path) -> None:
    violations: list[str] = []
    for seed in range(SCHEDULES):
        directory = tmp_path / f"s{seed}"
        violations += Sim(seed, directory).run()
    assert violations == []


def _pair(tmp_path: Path) -> tuple[list[float], ControllerNode, ControllerNode]:
    now = [0.0]

    def clock() -> float:
        return now[0]

    nodes = [
        ControllerNode(tmp_path, i, clock=clock, authorizer=LocalOperator(), fsync=False)
        for i in (1, 2)
    ]
    for _ in range(20):
        now[0] += 0.25
        for node in nodes:
            node.tick()
    active = next(n for n in nodes if n.is_active)
    standby = next(n for n in nodes if not n.is_active)
    return now, active, standby


def test_one_active_and_the_standby_answers_not_controller(tmp_path: Path) -> None:
    _, active, standby = _pair(tmp_path)
    assert active.create_acls([BINDING], Caller())[0].error.code == 0
    assert standby.create_acls([BINDING], Caller())[0].error.code == 41


def test_a_paused_controller_is_deposed_and_fenced(tmp_path: Path) -> None:
    now, active, standby = _pair(tmp_path)
    old_epoch = active.controller.epoch
    for _ in range(12):  # the active is frozen past the election timeout
        now[0] += 0.25
        standby.tick()
    assert standby.is_active and standby.controller.epoch == old_epoch + 1
    result = active.create_acls([BINDING], Caller())  # it wakes up and tries to write
    assert result[0].error.code == 41 and active.role is Role.STANDBY
    retried = standby.create_acls([BINDING], Caller())
    assert retried[0].error.code == 0
    again = standby.create_acls([BINDING], Caller())  # a retry after an ambiguous failure
    assert again[0].acl_id == retried[0].acl_id
    assert len(standby.controller.image.acls) == 1


def test_two_standbys_cannot_win_the_same_epoch(tmp_path: Path) -> None:
    now = [0.0]
    nodes = [
        ControllerNode(tmp_path, i, clock=lambda: now[0], authorizer=LocalOperator(), fsync=False)
        for i in (1, 2, 3)
    ]
    now[0] = 10.0  # every timer has expired: all three try at once
    for node in nodes:
        node.tick()
    assert sum(node.is_active for node in nodes) == 1
    epochs = [n.controller.epoch for n in nodes if n.is_active]
    assert epochs == [1]


@pytest.mark.parametrize(
    "planted", ["ack-before-durable", "no-fencing", "broker-skips", "scram-not-atomic"]
)
def test_the_checker_catches_planted_bugs(
    tmp_path: Path, planted: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    found: list[str] = []
    for seed in range(40):
        sim = Sim(seed, tmp_path / f"{planted}-{seed}")
        _plant(planted, sim, monkeypatch)
        found += sim.run()
        if found:
            break
    assert found, f"the checker missed the planted bug {planted}"
    assert "seed" in found[0] and "re-run" in found[0]


def _plant(planted: str, sim: Sim, monkeypatch: pytest.MonkeyPatch) -> None:
    if planted == "ack-before-durable":
        sim.ack_before_write = True
    elif planted == "no-fencing":
        # A log that forgets to refuse older epochs and stale views lets a deposed
        # controller write after its successor...
        real_write = SegmentedLog._write_group

        def unfenced(self: SegmentedLog, batches, expected):  # type: ignore[no-untyped-def]
            self.latest_epoch = -1
            return real_write(self, batches, None)

        monkeypatch.setattr(SegmentedLog, "_write_group", unfenced)
        monkeypatch.setattr(Controller, "still_leading", lambda self: True)
        # ...and acknowledges a group without settling it against a newer epoch's fence.
        monkeypatch.setattr(commit_module, "settle", lambda *args: Outcome.LEADING)
    elif planted == "broker-skips":
        loader = sim.brokers[0][0]
        real = loader.poll
        calls = [0]

        def skipping() -> object:
            calls[0] += 1
            if calls[0] % 7 == 0 and loader.caught_up:
                loader.image = loader.image  # forgets to look at the log this time...
                start = loader.image.provenance.last_offset + 1
                from aclog.replay.stream import read_decoded

                for batch in read_decoded(loader.directory, start):
                    loader.image = type(loader.image)(
                        provenance=type(loader.image.provenance)(
                            batch.last_offset, batch.epoch, batch.timestamp_ms
                        ),
                        acls=loader.image.acls,
                        scram=loader.image.scram,
                    )
                    break  # ...and marks a batch as applied without applying it
                return None
            return real()

        loader.poll = skipping  # type: ignore[method-assign]
    else:
        monkeypatch.setattr(ScramControlManager, "alter", _alter_without_atomicity)


_real_alter = ScramControlManager.alter


def _alter_without_atomicity(self, image, upsertions, deletions):  # type: ignore[no-untyped-def]
    """A manager that writes a failing user's valid-looking changes anyway."""
    result = _real_alter(self, image, upsertions, deletions)
    failed = {r.user for r in result.response if not r.error.is_success}
    extra = [
        UserScramCredentialRecord(u.name, u.mechanism, u.salt, b"k", b"k", 4096)
        for u in upsertions
        if u.name in failed and u.mechanism.name.startswith("SCRAM")
    ]
    return ControllerResult((*result.records, *extra), result.response)
