"""The controller's commit loop: one batch per request, fsync before results, strict replay,
failed appends change nothing, and a restart rebuilds the same image."""

from __future__ import annotations

import random
import shutil
import uuid
from pathlib import Path

import pytest

from aclog.acl import Errors
from aclog.acl.filters import AclFilter
from aclog.controller import AclControlManager, ControllerResult, upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator, replay_log
from aclog.image import ReplayError
from aclog.log import FencedEpochError
from aclog.log.recovery_point import FILE_NAME as RECOVERY_POINT_FILE
from aclog.log.segment import list_segments
from aclog.records import (
    AclOperation,
    PatternType,
    RemoveAccessControlEntryRecord,
    RequestContextRecord,
    ResourceType,
    ScramMechanism,
)
from aclog.replay.stream import read_decoded
from tests.acl_factory import acl_binding

ADMIN = Caller("User:admin", "10.0.0.1", "test-client", "CreateAcls")


_binding = acl_binding


class _Deny:
    def authorize_cluster(self, principal: str, host: str, operation: AclOperation) -> bool:
        return False


@pytest.fixture
def controller(tmp_path: Path) -> Controller:
    return Controller.open(tmp_path, authorizer=LocalOperator(), clock=lambda: 1_000.0)


def test_one_request_is_one_batch_led_by_its_request_context(controller: Controller) -> None:
    results = controller.create_acls([_binding("a"), _binding("b")], ADMIN)
    assert [r.error.code for r in results] == [0, 0]
    batches = list(read_decoded(controller.log.directory))
    assert len(batches) == 2  # the bootstrap leader change, then the request
    request = batches[1]
    assert request.author == RequestContextRecord(
        "User:admin", "10.0.0.1", "test-client", 1_000_000, "CreateAcls"
    )
    assert [type(e.record).__name__ for e in request.entries] == [
        "RequestContextRecord",
        "AccessControlEntryRecord",
        "AccessControlEntryRecord",
    ]
    assert request.epoch == controller.epoch == 1
    assert controller.image.provenance.last_offset == request.last_offset
    assert {acl.resource_name for acl in controller.image.acls} == {"a", "b"}
    controller.close()


def test_requests_without_changes_write_nothing(controller: Controller) -> None:
    controller.create_acls([_binding("a")], ADMIN)
    end = controller.log.end_offset
    assert controller.create_acls([_binding("a")], ADMIN)[0].error.code == 0
    assert controller.delete_acls([AclFilter(ResourceType.GROUP)], ADMIN)[0].acls == ()
    assert controller.log.end_offset == end
    controller.close()


def test_dry_run_reports_and_writes_nothing(controller: Controller) -> None:
    result = controller.create_acls([_binding("a")], ADMIN, dry_run=True)
    assert result[0].error.code == 0 and result[0].acl_id is not None
    assert len(controller.image.acls) == 0 and controller.log.end_offset == 1
    controller.close()


def test_failed_append_changes_nothing_and_fails_every_item(
    controller: Controller, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller.create_acls([_binding("kept")], ADMIN)
    before, end = controller.image, controller.log.end_offset

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(controller.log, "append", broken)
    results = controller.create_acls([_binding("x"), _binding("y")], ADMIN)
    assert [r.error.error for r in results] == [Errors.KAFKA_STORAGE_ERROR] * 2
    assert results[0].error.message == "No space left on device (ENOSPC)"
    assert controller.image is before and controller.log.end_offset == end

    def fenced(*args: object, **kwargs: object) -> None:
        raise FencedEpochError(1, 2)

    monkeypatch.setattr(controller.log, "append", fenced)
    upsert = upsertion_for_password("bob", ScramMechanism.SCRAM_SHA_256, "pw", 4096)
    assert [r.error.error for r in controller.alter_scram([upsert], [], ADMIN)] == [
        Errors.NOT_CONTROLLER
    ]
    assert controller.image is before
    controller.close()


def test_replay_failure_surfaces_and_appends_nothing(tmp_path: Path) -> None:
    class Buggy(AclControlManager):
        def create_acls(self, image, acls):  # type: ignore[no-untyped-def]
            return ControllerResult((RemoveAccessControlEntryRecord(uuid.UUID(int=5)),), [])

    controller = Controller.open(tmp_path, authorizer=LocalOperator(), acl_manager=Buggy())
    with pytest.raises(ReplayError, match="offset 2"):
        controller.create_acls([_binding("a")], ADMIN)
    assert controller.log.end_offset == 1
    controller.close()


def test_authorization_hook(tmp_path: Path) -> None:
    with Controller.open(tmp_path / "none") as open_to_all:
        assert open_to_all.create_acls([_binding("a")], ADMIN)[0].error.code == 54
        assert open_to_all.describe_acls(AclFilter(), ADMIN)[0].code == 54
        upsert = upsertion_for_password("bob", ScramMechanism.SCRAM_SHA_256, "pw", 4096)
        assert open_to_all.alter_scram([upsert], [], ADMIN)[0].error.code == 0
    with Controller.open(tmp_path / "deny", authorizer=_Deny()) as denied:
        assert denied.create_acls([_binding("a")], ADMIN)[0].error.code == 31
        assert denied.delete_acls([AclFilter()], ADMIN)[0].error.code == 31
        assert denied.describe_acls(AclFilter(), ADMIN)[0].code == 31
        assert denied.alter_scram([], [], ADMIN) == []
        assert denied.describe_scram(None, ADMIN)[0].code == 31
        assert denied.log.end_offset == 1


def test_restart_rebuilds_the_same_image(tmp_path: Path) -> None:
    with Controller.open(tmp_path, authorizer=LocalOperator()) as first:
        first.create_acls([_binding(f"t{i}") for i in range(20)], ADMIN)
        first.delete_acls([AclFilter(ResourceType.TOPIC, "t3", PatternType.LITERAL)], ADMIN)
        upsert = upsertion_for_password("bob", ScramMechanism.SCRAM_SHA_512, "pw", 4096)
        first.alter_scram([upsert], [], ADMIN)
        image = first.image
    with Controller.open(tmp_path, authorizer=LocalOperator()) as second:
        assert second.image == image
        assert second.log.end_offset == image.provenance.last_offset + 1


def test_a_crash_mid_append_loses_nothing_acknowledged(tmp_path: Path) -> None:
    """Acknowledged requests survive a crash that tears the in-flight batch anywhere."""
    rng = random.Random(20261121)
    pristine = tmp_path / "pristine"
    with Controller.open(pristine, authorizer=LocalOperator()) as controller:
        for i in range(5):
            controller.create_acls([_binding(f"acked-{i}")], ADMIN)
        acknowledged = controller.image
        segment = list_segments(pristine)[-1][1]
        acked_size = segment.stat().st_size
        # The crash comes before the in-flight batch's fsync, so the recovery point never
        # moved past the acknowledged batches.
        acked_point = (pristine / RECOVERY_POINT_FILE).read_bytes()
        controller.create_acls([_binding(f"inflight-{i}") for i in range(30)], ADMIN)
        full_size = segment.stat().st_size
    for trial in range(25):
        work = tmp_path / f"crash-{trial}"
        shutil.copytree(pristine, work)
        cut = rng.randrange(acked_size, full_size)
        with open(list_segments(work)[-1][1], "r+b") as file:
            file.truncate(cut)
        (work / RECOVERY_POINT_FILE).write_bytes(acked_point)
        with Controller.open(work, authorizer=LocalOperator()) as restarted:
            assert restarted.image == acknowledged
            assert (restarted.log.recovery is not None) == (cut > acked_size)
            restarted.create_acls([_binding("after-crash")], ADMIN)
        assert replay_log(work).acls.id_of(_binding("after-crash")) is not None
        shutil.rmtree(work)
