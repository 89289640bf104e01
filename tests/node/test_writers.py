"""A node's writer hands the image it rebuilt as it opened to the node's metadata loader, so
``aclog serve`` replays the log once at start, alone on its directory or as a
``--controller`` member of a shared one; the loader then reads only what follows it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from aclog.authorizer import Authorizer, Decision
from aclog.broker import AuthorizerPublisher, MetadataLoader
from aclog.broker.loader import ManifestKind
from aclog.controller.caller import Caller
from aclog.controller.controller import LocalOperator
from aclog.controller.quorum import ControllerNode
from aclog.controller.quorum_member import QuorumMember
from aclog.node.writers import open_node_writer
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from aclog.replay import rebuild_image


@dataclass(frozen=True)
class _Settings:
    data_dir: Path
    controller: bool
    node_id: int = 2
    heartbeat_ms: int = 100
    election_timeout_ms: int = 1000
    workers: int = 2


def _acl(name: str) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC,
        name,
        PatternType.LITERAL,
        "User:bob",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def _write_shared(directory: Path, names: list[str], *, fsync: bool = False) -> None:
    """ACLs for ``names`` committed by the active member of a shared directory."""
    member = QuorumMember(
        ControllerNode(
            directory,
            1,
            heartbeat_ms=100,
            election_timeout_ms=300,
            authorizer=LocalOperator(),
            fsync=fsync,
        ),
        workers=1,
    )
    try:
        member.start("127.0.0.1:9001")
        deadline = time.monotonic() + 20
        while not member.is_active:
            assert time.monotonic() < deadline, "the member did not become active"
            time.sleep(0.02)
        for name in names:
            assert [r.error.code for r in member.create_acls([_acl(name)], Caller())] == [0]
    finally:
        member.close()


@pytest.mark.parametrize("controller", [False, True], ids=["alone", "shared"])
def test_the_loader_starts_from_the_image_the_writer_rebuilt(
    tmp_path: Path, controller: bool
) -> None:
    if controller:
        _write_shared(tmp_path, ["orders", "payments"])
    writer = open_node_writer(_Settings(tmp_path, controller), LocalOperator())
    try:
        assert writer.image is not None
        assert writer.image.provenance == rebuild_image(tmp_path).image.provenance
        authorizer = Authorizer()
        loader = MetadataLoader(tmp_path, [AuthorizerPublisher(authorizer)], image=writer.image)
        manifest = loader.catch_up()
        assert manifest.kind is ManifestKind.SNAPSHOT
        assert (manifest.batches, manifest.records) == (0, 0)  # the log was not read again
        decision = authorizer.authorize(
            "User:bob", "10.0.0.1", AclOperation.READ, ResourceType.TOPIC, "payments"
        )
        assert decision is (Decision.ALLOWED if controller else Decision.DENIED)
    finally:
        writer.writer.close()


def test_a_shared_members_loader_publishes_only_what_the_recovery_point_covers(
    tmp_path: Path,
) -> None:
    """In ``serve --controller`` the broker loader follows a log other processes append to: a
    batch written but not yet fsynced (above the recovery point; its fsync may still fail and
    cut it) is not published to the node's authorizer until the point moves over it."""
    from aclog.log.recovery_point import RecoveryPointFile, point_epochs, read_recovery_point

    _write_shared(tmp_path, ["orders"], fsync=True)
    writer = open_node_writer(_Settings(tmp_path, True), LocalOperator())
    try:
        authorizer = Authorizer()
        loader = MetadataLoader(
            tmp_path,
            [AuthorizerPublisher(authorizer)],
            durable_end=writer.durable_end,
            image=writer.image,
        )
        loader.catch_up()
        before = read_recovery_point(tmp_path)
        _write_shared(tmp_path, ["late"], fsync=True)
        after = read_recovery_point(tmp_path)
        # The point of the epoch the last leader led (each epoch's leader keeps its own).
        points = RecoveryPointFile(tmp_path, fsync=False, epoch=point_epochs(tmp_path)[-1])
        try:
            points.write(before.offset, before.epoch)  # as if "late" were not fsynced yet

            def allowed() -> bool:
                decision = authorizer.authorize(
                    "User:bob", "10.0.0.1", AclOperation.READ, ResourceType.TOPIC, "late"
                )
                return decision is Decision.ALLOWED

            loader.poll()
            assert not allowed()
            points.write(after.offset, after.epoch)  # its fsync returned: committed
            loader.poll()
            assert allowed()
        finally:
            points.close()
    finally:
        writer.writer.close()
