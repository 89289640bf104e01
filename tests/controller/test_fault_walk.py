"""Fault injection as a test layer (issue 35): fail the Nth file operation of an append, a
segment roll, a snapshot and a recovery-point update, for every N the operation reaches and
every fault that call can meet, and check after each one what a user relies on:

- nothing acknowledged is lost and nothing reported failed reappears after a reopen;
- the writer either takes the next write, or (fail-stop) refuses it with the reason;
- the directory opens and ``aclog verify`` finds it ok.

Every file operation of the log, its indexes, the recovery point and snapshots goes through
:mod:`aclog.log.files`, whose :class:`~aclog.log.files.Faults` plan does the failing. A first run
without a fault counts the calls; each walk copies one prepared directory per fault. Bounded:
a few hundred small runs, seconds in total.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from aclog.acl import Errors
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.log import SegmentedLog, WriterStoppedError, list_segments
from aclog.log.files import Faults, injected
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.replay.verify import verify_directory
from aclog.snapshot import list_snapshots

ADMIN = Caller("User:admin", "10.0.0.1", "fault-walk", "CreateAcls")
SEGMENT_BYTES = 16 * 1024
LONG = "x" * 700  # a few ACLs this long fill the 4 KiB after which the index takes an entry


def _acl(name: str) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC,
        f"{LONG}-{name}",
        PatternType.LITERAL,
        "User:alice",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def _open(directory: Path) -> Controller:
    log = SegmentedLog(directory, segment_bytes=SEGMENT_BYTES)
    return Controller(log, authorizer=LocalOperator(), clock=lambda: 1_000.0)


def _names(controller: Controller) -> set[str]:
    return {acl.resource_name.removeprefix(f"{LONG}-") for acl in controller.image.acls}


@dataclass
class Run:
    """One run of an operation on a copy of the prepared directory: what was acknowledged,
    what was reported failed, and how."""

    directory: Path
    acked: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)

    def create(self, controller: Controller, name: str) -> None:
        result = controller.create_acls([_acl(name)], ADMIN)[0]
        if result.error.is_success:
            self.acked.add(name)
            return
        assert result.error.error == Errors.KAFKA_STORAGE_ERROR, result.error
        assert result.error.message, "a storage failure must say what failed"
        self.failed.add(name)
        self.errors.append(result.error.message)


Operation = Callable[[Controller, Run], None]
Touch = Callable[[str, str], bool]


def _append(controller: Controller, run: Run) -> None:
    run.create(controller, "new")


def _snapshot(controller: Controller, run: Run) -> None:
    try:
        controller.snapshot()
    except OSError as error:  # the snapshot is not written; the log is untouched
        assert error.filename is not None and str(error.filename) in str(error)
        run.errors.append(str(error))


def _close(controller: Controller, run: Run) -> None:
    try:
        controller.close()
    except OSError as error:
        run.errors.append(str(error))


def _prepare(directory: Path, count: int) -> set[str]:
    """A log of ``count`` ACLs (their names returned), its active segment near a roll."""
    names = {f"old-{i}" for i in range(count)}
    with _open(directory) as controller:
        for name in sorted(names):
            assert controller.create_acls([_acl(name)], ADMIN)[0].error.is_success
    return names


def _calls(template: Path, scratch: Path, operation: Operation) -> list[tuple[str, str]]:
    """The seam calls ``operation`` makes on a copy of ``template``, none of them failing."""
    shutil.copytree(template, scratch)
    controller = _open(scratch)
    with injected(Faults()) as faults:
        operation(controller, Run(scratch))
    controller.close()
    shutil.rmtree(scratch)
    return faults.calls


def _plans(calls: list[tuple[str, str]]) -> Iterator[Faults]:
    """Every fault each call can meet, and a disk that breaks for good at each call."""
    for n, (operation, _) in enumerate(calls, start=1):
        kinds = {"write": ("ENOSPC", "EIO", "short"), "fsync": ("fsync",)}.get(operation, ("EIO",))
        for kind in kinds:
            yield Faults(n, kind)
        yield Faults(n, "EIO", persist=True)


def _check(run: Run, controller: Controller, known: set[str], stopped: bool) -> None:
    """The writer's answer to the next write, then the directory as a restart finds it."""
    if controller.log._active.fd >= 0:  # not closed by the operation itself
        if stopped:
            with pytest.raises(WriterStoppedError, match="accepts no more writes"):
                controller.log.append([b"refused"], controller.epoch)
        else:
            run.create(controller, "after")
        controller.close()
    report = verify_directory(run.directory)
    assert report.ok, (report.problems, report.differences)
    with _open(run.directory) as reopened:
        assert _names(reopened) == known | run.acked  # nothing acked lost, nothing failed back
        assert not (_names(reopened) & run.failed)
        reopened.create_acls([_acl("reopened")], ADMIN)  # a reopen recovers a stopped writer
    offsets = [batch.base_offset for batch in reopened.log.read()]
    assert offsets == sorted(offsets)


def _walk(tmp_path: Path, count: int, operation: Operation, touches: Touch) -> int:
    template = tmp_path / "template"
    known = _prepare(template, count)
    calls = _calls(template, tmp_path / "count", operation)
    assert any(touches(*call) for call in calls), calls
    plans = list(_plans(calls))
    for i, faults in enumerate(plans):
        run = Run(tmp_path / f"run-{i}")
        shutil.copytree(template, run.directory)
        controller = _open(run.directory)
        with injected(faults):
            operation(controller, run)
        stopped = controller.log._guard.stopped is not None
        context = f"{faults.kind} at call {faults.fail_at} of {calls}"
        assert faults.failed or not run.errors, context
        try:
            _check(run, controller, known, stopped)
        except AssertionError as error:
            raise AssertionError(f"{context}: {error}") from error
        shutil.rmtree(run.directory)
    return len(plans)


def test_every_fault_of_an_append_is_undone_or_stops_the_writer(tmp_path: Path) -> None:
    assert _walk(tmp_path, 5, _append, lambda op, path: op == "write" and ".index" in path) > 10


def test_every_fault_of_a_segment_roll_is_undone_or_stops_the_writer(tmp_path: Path) -> None:
    template = tmp_path / "probe"
    _prepare(template, 18)
    assert len(list_segments(template)) == 1  # the next append rolls
    shutil.rmtree(template)
    rolls = lambda op, path: op == "open" and path.endswith(".log")  # noqa: E731
    assert _walk(tmp_path, 18, _append, rolls) > 20


def test_every_fault_of_a_snapshot_leaves_the_log_and_older_snapshots(tmp_path: Path) -> None:
    assert _walk(tmp_path, 3, _snapshot, lambda op, path: op == "rename") > 5


def test_every_fault_of_a_recovery_point_update_on_close(tmp_path: Path) -> None:
    point = lambda op, path: op == "fsync" and "recovery-point" in path  # noqa: E731
    assert _walk(tmp_path, 3, _close, point) >= 3


def test_a_failed_snapshot_names_its_file_and_leaves_nothing_behind(tmp_path: Path) -> None:
    with _open(tmp_path) as controller:
        controller.create_acls([_acl("a")], ADMIN)
        with injected(Faults(3, "ENOSPC")), pytest.raises(OSError) as raised:
            controller.snapshot()
    assert "No space left on device" in str(raised.value)
    assert ".snapshot.avro" in str(raised.value)
    assert list_snapshots(tmp_path) == [] and not list(tmp_path.glob("*.tmp"))
