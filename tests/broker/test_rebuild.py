"""Snapshots plus replay: replay(snapshot + tail) == replay(all) == the controller's image, and
the state at any offset equals the state of a log truncated there."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aclog.acl.filters import AclFilter
from aclog.controller import upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.log import SegmentedLog, read_batches
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.replay.rebuild import RebuildError, rebuild_image
from aclog.snapshot import RetentionPolicy, list_snapshots

CALLER = Caller("User:admin", "10.0.0.1", "test", "test")
NAMES = ["a", "b", "ab", "orders", "orders.eu"]


def _mutate(controller: Controller, rng: random.Random) -> None:
    """One random request: create or delete ACLs, or change a SCRAM user."""
    kind = rng.random()
    if kind < 0.55:
        bindings = [
            AclBinding(
                ResourceType.TOPIC,
                rng.choice(NAMES),
                rng.choice([PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB]),
                f"User:{rng.choice('xyz')}",
                "*",
                rng.choice([AclOperation.READ, AclOperation.WRITE]),
                rng.choice([AclPermissionType.ALLOW, AclPermissionType.DENY]),
            )
            for _ in range(rng.randint(1, 4))
        ]
        controller.create_acls(bindings, CALLER)
    elif kind < 0.8:
        controller.delete_acls([AclFilter(ResourceType.TOPIC, rng.choice(NAMES))], CALLER)
    else:
        mechanism = rng.choice([ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512])
        upsert = upsertion_for_password(rng.choice("pq"), mechanism, "pw", 4096, salt=b"s")
        controller.alter_scram([upsert], [], CALLER)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**32),
    steps=st.integers(1, 30),
    snap_every=st.integers(1, 8),
    retain=st.booleans(),
)
def test_snapshot_plus_tail_equals_full_replay_and_controller(
    tmp_path_factory: pytest.TempPathFactory,
    seed: int,
    steps: int,
    snap_every: int,
    retain: bool,
) -> None:
    directory = tmp_path_factory.mktemp("log")
    rng = random.Random(seed)
    log = SegmentedLog(directory, segment_bytes=400, fsync=False)
    retention = RetentionPolicy(delete_log_below_snapshot=not retain)
    with Controller(log, authorizer=LocalOperator(), retention=retention) as controller:
        for step in range(steps):
            _mutate(controller, rng)
            if step % snap_every == snap_every - 1:
                controller.snapshot()
        expected = controller.image
    fast = rebuild_image(directory)
    assert fast.image == expected
    if retain:
        assert rebuild_image(directory, use_snapshots=False).image == expected
    if list_snapshots(directory):
        assert fast.snapshot is not None
    with Controller.open(directory, authorizer=LocalOperator()) as reopened:
        assert reopened.image == expected


def test_state_at_an_offset_equals_a_truncated_log(tmp_path: Path) -> None:
    rng = random.Random(5)
    source = tmp_path / "source"
    with Controller.open(source, authorizer=LocalOperator()) as controller:
        for step in range(25):
            _mutate(controller, rng)
            if step in (7, 15):
                controller.snapshot()
    boundaries = [batch.last_offset for batch in read_batches(source)]
    for last in boundaries:
        truncated = tmp_path / f"cut-{last}"
        shutil.copytree(source, truncated, ignore=shutil.ignore_patterns("*.snapshot.avro"))
        with SegmentedLog(truncated) as log:
            log.truncate_to(last + 1)
        assert rebuild_image(source, at_offset=last).image == rebuild_image(truncated).image
        # An offset inside the next batch gives the same state: batches are atomic.
        assert rebuild_image(source, at_offset=last + 1).image.provenance.last_offset in (
            last,
            last + 1,
        )


def test_time_travel_by_time(tmp_path: Path) -> None:
    clock = [1_000.0]
    with Controller.open(tmp_path, authorizer=LocalOperator(), clock=lambda: clock[0]) as c:
        for i in range(6):
            clock[0] = 1_000.0 + 60 * i
            c.create_acls(
                [
                    AclBinding(
                        ResourceType.TOPIC,
                        f"t{i}",
                        PatternType.LITERAL,
                        "User:a",
                        "*",
                        AclOperation.READ,
                        AclPermissionType.ALLOW,
                    )
                ],
                CALLER,
            )
            if i == 2:
                c.snapshot()
    for i in range(6):
        at = int((1_000.0 + 60 * i + 30) * 1000)
        image = rebuild_image(tmp_path, at_time_ms=at).image
        assert sorted(a.resource_name for a in image.acls) == [f"t{j}" for j in range(i + 1)]
    assert rebuild_image(tmp_path, at_time_ms=0).image.acls.acls == {}


def test_deleted_segments_without_a_snapshot_are_a_clear_error(tmp_path: Path) -> None:
    with Controller.open(
        tmp_path,
        authorizer=LocalOperator(),
        retention=RetentionPolicy(delete_log_below_snapshot=True),
    ) as c:
        for i in range(5):
            c.create_acls(
                [
                    AclBinding(
                        ResourceType.TOPIC,
                        f"t{i}",
                        PatternType.LITERAL,
                        "User:a",
                        "*",
                        AclOperation.READ,
                        AclPermissionType.ALLOW,
                    )
                ],
                CALLER,
            )
            c.log.roll()
        c.snapshot()
        c.create_acls(
            [
                AclBinding(
                    ResourceType.TOPIC,
                    "after",
                    PatternType.LITERAL,
                    "User:a",
                    "*",
                    AclOperation.READ,
                    AclPermissionType.ALLOW,
                )
            ],
            CALLER,
        )
        expected = c.image
    assert rebuild_image(tmp_path).image == expected
    for snapshot in list_snapshots(tmp_path):
        snapshot.path.unlink()
    with pytest.raises(RebuildError, match="deleted"):
        rebuild_image(tmp_path)


def test_a_corrupt_snapshot_falls_back_with_a_warning(tmp_path: Path) -> None:
    rng = random.Random(9)
    with Controller.open(tmp_path, authorizer=LocalOperator()) as controller:
        for step in range(12):
            _mutate(controller, rng)
            if step in (3, 8):
                controller.snapshot()
        expected = controller.image
    newest = list_snapshots(tmp_path)[-1].path
    data = bytearray(newest.read_bytes())
    data[len(data) // 2] ^= 0xFF
    newest.write_bytes(bytes(data))
    warnings: list[str] = []
    rebuilt = rebuild_image(tmp_path, on_warning=warnings.append)
    assert rebuilt.image == expected
    assert rebuilt.snapshot is not None and rebuilt.snapshot.path != newest
    assert warnings and newest.name in warnings[0]


def test_controller_snapshots_by_policy(tmp_path: Path) -> None:
    from aclog.snapshot import SnapshotPolicy

    policy = SnapshotPolicy(max_bytes_between=2_000, max_interval_seconds=0)
    with Controller.open(tmp_path, authorizer=LocalOperator(), snapshot_policy=policy) as c:
        rng = random.Random(3)
        for _ in range(40):
            _mutate(c, rng)
        expected = c.image
    snapshots = list_snapshots(tmp_path)
    assert len(snapshots) >= 2
    assert rebuild_image(tmp_path).image == expected
