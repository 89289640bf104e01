"""A real full file system (issue 35): the log fills a small tmpfs until the kernel answers
ENOSPC. Every request then fails with KAFKA_STORAGE_ERROR naming the file, nothing it wrote
stays, a snapshot fails naming its file, and once space is freed the next request commits and
a restart finds exactly the acknowledged changes. Needs root and ``mount -t tmpfs``; skipped
with one line otherwise."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from aclog.acl import ApiError, Errors
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.replay.verify import verify_directory
from tests.small_fs import small_tmpfs

ADMIN = Caller("User:admin", "10.0.0.1", "full-disk", "CreateAcls")


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    with small_tmpfs(tmp_path / "fs", "192k") as mount_point:
        yield mount_point


def _acl(i: int) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC,
        f"topic-{i:05d}-" + "x" * 300,
        PatternType.LITERAL,
        "User:alice",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def _fill(controller: Controller, acked: set[str], start: int) -> list[ApiError]:
    """Create ACLs until three requests fail; the names of those that committed go in
    ``acked``. Returns the failures."""
    failures = []
    for i in range(start, start + 2_000):
        result = controller.create_acls([_acl(i)], ADMIN)[0]
        if result.error.is_success:
            acked.add(_acl(i).resource_name)
        else:
            failures.append(result.error)
            if len(failures) == 3:
                return failures
    raise AssertionError("the file system never filled up")


def test_the_log_fills_the_disk_and_loses_nothing(small_fs: Path) -> None:
    data = small_fs / "data"
    filler = small_fs / "filler"
    filler.write_bytes(bytes(48 * 1024))  # what the operator frees once the disk is full
    acked: set[str] = set()
    with Controller.open(data, authorizer=LocalOperator()) as controller:
        for failure in _fill(controller, acked, 0):
            assert failure.error == Errors.KAFKA_STORAGE_ERROR
            assert "No space left on device (ENOSPC) on " + str(data) in str(failure.message)
        with pytest.raises(OSError, match=r"No space left on device.*\.snapshot\.avro"):
            controller.snapshot()
        assert not list(data.glob("*.tmp"))
        assert verify_directory(data).ok
        filler.unlink()
        assert controller.create_acls([_acl(99_999)], ADMIN)[0].error.is_success
        acked.add(_acl(99_999).resource_name)
        _fill(controller, acked, 100_000)  # and full again
    with Controller.open(data, authorizer=LocalOperator()) as reopened:  # a restart, still full
        assert {acl.resource_name for acl in reopened.image.acls} == acked
    assert verify_directory(data).ok
