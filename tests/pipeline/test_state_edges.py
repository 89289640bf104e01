"""``state`` equals ``aclog replay`` on the edges of last-record-wins: an ACL id removed and
added again (in one batch, across batches, and over a snapshot that holds it), a removal whose
addition is in the snapshot rather than the log, a credential deleted and set again; with
cached or read again, with the removals broadcast or shuffled."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from aclog.controller.controller import Controller, LocalOperator
from aclog.log import SegmentedLog, read_batches
from aclog.pipeline.load import records_as_of
from aclog.pipeline.state import BROADCAST_REMOVALS, STATE_INPUT_COLUMNS, state
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    LeaderChangeRecord,
    PatternType,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
    encode,
)
from aclog.replay.rebuild import rebuild_image
from aclog.tools.history import state_to_dict

X, Y = uuid.UUID(int=0x1111 << 64 | 7), uuid.UUID(int=0x2222 << 64 | 9)
SHA = ScramMechanism.SCRAM_SHA_256


def _acl(acl_id: uuid.UUID, topic: str) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        acl_id,
        ResourceType.TOPIC,
        topic,
        PatternType.LITERAL,
        "User:alice",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def _scram(iterations: int) -> UserScramCredentialRecord:
    return UserScramCredentialRecord("bob", SHA, b"s" * 16, b"k" * 32, b"k" * 32, iterations)


def _append(directory: Path, batches: list[list[Record]], start_ms: int) -> None:
    with SegmentedLog(directory, fsync=False) as log:
        for i, batch in enumerate(batches):
            log.append([encode(r) for r in batch], 1, timestamp_ms=start_ms + i)


def _snapshot(directory: Path) -> None:
    with Controller(SegmentedLog(directory, fsync=False), authorizer=LocalOperator()) as ctl:
        ctl.snapshot()


def _write(directory: Path) -> None:
    """X added, removed and added again in one batch and across batches; Y added before a
    snapshot, then removed and added again after it; bob's credential deleted and set again."""
    _append(
        directory,
        [
            [LeaderChangeRecord(1, 1)],
            [_acl(X, "a"), RemoveAccessControlEntryRecord(X), _acl(X, "b")],
            [RemoveAccessControlEntryRecord(X)],
            [_acl(X, "c"), _acl(Y, "y"), _scram(4096)],
            [RemoveUserScramCredentialRecord("bob", SHA)],
            [_scram(8192)],
        ],
        1_000,
    )
    _snapshot(directory)
    _append(
        directory,
        [
            [RemoveAccessControlEntryRecord(Y)],
            [_acl(Y, "y2"), RemoveAccessControlEntryRecord(X)],
            [_acl(X, "x3"), RemoveUserScramCredentialRecord("bob", SHA)],
            [_scram(4096)],
        ],
        2_000,
    )


@pytest.mark.parametrize(
    ("persist", "broadcast_limit"),
    [(True, BROADCAST_REMOVALS), (False, BROADCAST_REMOVALS), (False, 0)],
)
def test_ids_removed_and_added_again_equal_replay(
    spark: SparkSession, tmp_path: Path, persist: bool, broadcast_limit: int
) -> None:
    _write(tmp_path)
    offsets = [b.last_offset for b in read_batches(tmp_path)]
    points = [
        ({}, True),
        ({}, False),  # the whole log, no snapshot
        ({"at_offset": offsets[2]}, True),  # X added, removed, added, removed: absent
        ({"at_offset": offsets[-3]}, True),  # Y (in the snapshot) removed and added again
    ]
    for point, use_snapshots in points:
        chosen = records_as_of(
            spark,
            tmp_path,
            use_snapshots=use_snapshots,
            columns=STATE_INPUT_COLUMNS,
            **point,
        )
        result = state(chosen.frame, persist=persist, broadcast_limit=broadcast_limit, **point)
        try:
            expected = rebuild_image(tmp_path, use_snapshots=use_snapshots, **point).image
            assert result.to_dict() == state_to_dict(expected), (point, use_snapshots)
        finally:
            result.unpersist()
    assert records_as_of(spark, tmp_path).snapshot is not None
