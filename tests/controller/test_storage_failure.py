"""A full disk or an I/O error while a commit is written (issue 35, item 1): the request gets
KAFKA_STORAGE_ERROR with the OS error and the file, what it wrote is undone, the next requests
commit, and a restart finds every acknowledged change and none of the failed ones."""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from aclog.acl import Errors
from aclog.acl.filters import AclFilter
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.controller.quorum import ControllerNode, Role
from aclog.log import read_records
from aclog.log.files import Faults, injected
from tests.acl_factory import acl_binding

ADMIN = Caller("User:admin", "10.0.0.1", "test-client", "CreateAcls")


_acl = acl_binding


def _failing_once(
    monkeypatch: pytest.MonkeyPatch, suffix: str, code: int, call: str = "write"
) -> list[str]:
    """Make the next ``os.<call>`` on a file whose name ends with ``suffix`` fail with ``code``
    (as a full disk or a failing device does); returns the files it failed on."""
    real: Callable[..., object] = getattr(os, call)
    failed: list[str] = []

    def faulty(fd: int, *args: object) -> object:
        if not failed and os.readlink(f"/proc/self/fd/{fd}").endswith(suffix):
            failed.append(os.readlink(f"/proc/self/fd/{fd}"))
            raise OSError(code, os.strerror(code))
        return real(fd, *args)

    monkeypatch.setattr(os, call, faulty)
    return failed


def _names(directory: Path) -> list[str]:
    with Controller.open(directory, authorizer=LocalOperator()) as reopened:
        return sorted(acl.resource_name for acl in reopened.image.acls)


def test_a_full_disk_on_the_index_fails_one_request_and_corrupts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    long = "t" * 900  # a few of these fill the 4 KiB after which the index takes an entry
    with Controller.open(tmp_path, authorizer=LocalOperator()) as controller:
        acked = []
        for i in range(4):
            assert controller.create_acls([_acl(f"{long}-{i}")], ADMIN)[0].error.is_success
            acked.append(f"{long}-{i}")
        failed_on = _failing_once(monkeypatch, ".index", errno.ENOSPC)
        for i in range(4, 12):
            result = controller.create_acls([_acl(f"{long}-{i}")], ADMIN)[0]
            if result.error.is_success:
                acked.append(f"{long}-{i}")
            else:
                failure = result.error
        assert failed_on, "no index entry was written: the test writes too little"
        monkeypatch.undo()
    assert _names(tmp_path) == sorted(acked)  # nothing acknowledged lost, nothing failed back
    assert len(acked) == 11  # only the request that met the full disk failed
    assert failure.error == Errors.KAFKA_STORAGE_ERROR
    assert "No space left on device" in str(failure.message)
    assert failed_on[0] in str(failure.message)
    offsets = [record.offset for record in read_records(tmp_path)]
    assert offsets == list(range(len(offsets)))
    errors = [r for r in caplog.records if "No space left on device" in r.getMessage()]
    assert len(errors) == 1 and errors[0].levelno >= logging.ERROR  # once, loudly
    assert any("works again" in r.getMessage() for r in caplog.records)


def test_a_failed_fsync_stops_the_writer_until_it_is_reopened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Controller.open(tmp_path, authorizer=LocalOperator()) as controller:
        assert controller.create_acls([_acl("kept")], ADMIN)[0].error.is_success
        _failing_once(monkeypatch, ".log", errno.EIO, call="fsync")
        lost = controller.create_acls([_acl("lost")], ADMIN)[0].error
        monkeypatch.undo()
        refused = controller.create_acls([_acl("refused")], ADMIN)[0].error
        listed = controller.describe_acls(AclFilter())[1]
    assert [acl.resource_name for acl in listed] == ["kept"]
    assert _names(tmp_path) == ["kept"]  # a reopen recovers, without the failed change
    assert not refused.is_success  # never retried as if the fsync had worked
    assert lost.error == refused.error == Errors.KAFKA_STORAGE_ERROR
    assert "Input/output error" in str(lost.message) and ".log" in str(lost.message)
    assert "accepts no more writes" in str(refused.message)
    with Controller.open(tmp_path, authorizer=LocalOperator()) as reopened:
        assert reopened.create_acls([_acl("after")], ADMIN)[0].error.is_success


def test_a_quorum_leader_whose_writer_stops_steps_down_and_a_standby_takes_over(
    tmp_path: Path,
) -> None:
    now = [0.0]
    nodes = [
        ControllerNode(tmp_path, i, clock=lambda: now[0], authorizer=LocalOperator())
        for i in (1, 2)
    ]
    for _ in range(20):
        now[0] += 0.25
        for node in nodes:
            node.tick()
    active = next(n for n in nodes if n.is_active)
    standby = next(n for n in nodes if not n.is_active)
    assert active.create_acls([_acl("kept")], ADMIN)[0].error.is_success
    # The disk breaks under the leader for good: its heartbeat fails and so does the undo.
    broken = Faults(1, "EIO", persist=True, where=lambda op, path: op in ("write", "truncate"))
    now[0] += 1.0
    with injected(broken):
        active.tick()
    assert active.role is Role.STANDBY  # it can commit nothing: it does not claim to lead
    assert active.create_acls([_acl("refused")], ADMIN)[0].error.error == Errors.NOT_CONTROLLER
    for _ in range(12):  # past the election timeout, on a disk that works again
        now[0] += 0.25
        for node in nodes:
            node.tick()
    assert standby.is_active and not active.is_active
    assert standby.create_acls([_acl("after")], ADMIN)[0].error.is_success
    for node in nodes:
        node.close()
    assert _names(tmp_path) == ["after", "kept"]
