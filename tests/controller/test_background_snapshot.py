"""Policy snapshots are written off the commit path: commits go on while one is written, one
runs at a time, closing waits for it, and a failed one only logs."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from aclog.controller import snapshots as snapshots_module
from aclog.controller.controller import Controller, LocalOperator
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.replay.rebuild import rebuild_image
from aclog.snapshot import SnapshotPolicy, list_snapshots


def _binding(n: int) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC,
        f"topic-{n}",
        PatternType.LITERAL,
        "User:alice",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def _every_commit() -> SnapshotPolicy:
    return SnapshotPolicy(max_bytes_between=1, max_interval_seconds=0)


def test_commits_go_on_while_a_snapshot_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, release = threading.Event(), threading.Event()
    real_write = snapshots_module.write_snapshot
    offered: list[object] = []
    written: list[int] = []

    def slow_write(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        offered.append(kwargs["last_offset"])
        started.set()
        assert release.wait(10), "the test never released the snapshot"
        info = real_write(*args, **kwargs)  # type: ignore[arg-type]
        written.append(info.last_offset)
        return info

    monkeypatch.setattr(snapshots_module, "write_snapshot", slow_write)
    controller = Controller.open(
        tmp_path, authorizer=LocalOperator(), snapshot_policy=_every_commit()
    )
    try:
        assert controller.create_acls([_binding(0)])[0].error.is_success
        assert started.wait(10)
        for n in range(1, 6):  # none of these waits for the snapshot being written
            assert controller.create_acls([_binding(n)])[0].error.is_success
        assert written == []  # still held: only one snapshot at a time, none finished
    finally:
        release.set()
        controller.close()  # waits for the snapshot in progress
    assert written == offered and len(written) == 1
    assert [s.last_offset for s in list_snapshots(tmp_path)] == written
    assert len(rebuild_image(tmp_path).image.acls) == 6


def test_a_failed_snapshot_logs_and_commits_stay_acknowledged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def failing_write(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(snapshots_module, "write_snapshot", failing_write)
    with (
        caplog.at_level(logging.WARNING),
        Controller.open(
            tmp_path, authorizer=LocalOperator(), snapshot_policy=_every_commit()
        ) as controller,
    ):
        assert controller.create_acls([_binding(1)])[0].error.is_success
    assert any(
        "snapshot at offset" in r.message and "disk full" in r.message for r in caplog.records
    )
    assert list_snapshots(tmp_path) == []
    assert len(rebuild_image(tmp_path).image.acls) == 1
