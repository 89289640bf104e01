"""The records DataFrame through the columnar decoder, end to end in Spark: every record type,
older versions resolved, each batch's author, no SCRAM secret anywhere in the rows, a record
this build cannot read failing the job at its offset, and replay's state at any point."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from aclog.log import SegmentedLog, read_batches
from aclog.pipeline.load import read_records, records_as_of
from aclog.pipeline.state import STATE_INPUT_COLUMNS, state
from aclog.pipeline.survey import Survey, survey
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    LeaderChangeRecord,
    NoOpRecord,
    PatternType,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    RequestContextRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
    encode,
)
from aclog.replay.rebuild import rebuild_image
from aclog.tools.history import state_to_dict
from tests.pipeline.conftest import Logs

SALT = b"\x5a" * 11 + b"salt-marker"
KEY = b"\x3c" * 9 + b"key-marker-0123456789abcdefghij"


def _write_mixed_versions(directory: Path) -> None:
    old_context = RequestContextRecord("User:old", "10.0.0.2", "old-cli", 1_000, None)
    new_context = RequestContextRecord("User:new", "10.0.0.3", "new-cli", 2_000, "CreateAcls")
    first = uuid.UUID(int=7)
    acl = AccessControlEntryRecord(
        first,
        ResourceType.TOPIC,
        "orders",
        PatternType.PREFIXED,
        "User:alice",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )
    second = AccessControlEntryRecord(
        uuid.UUID(int=8),
        ResourceType.GROUP,
        "g",
        PatternType.LITERAL,
        "User:bob",
        "10.0.0.1",
        AclOperation.ALL,
        AclPermissionType.DENY,
    )
    scram = UserScramCredentialRecord("alice", ScramMechanism.SCRAM_SHA_256, SALT, KEY, KEY, 4096)
    bob = UserScramCredentialRecord("bob", ScramMechanism.SCRAM_SHA_512, SALT, KEY, KEY, 8192)
    with SegmentedLog(directory, fsync=False) as log:
        log.append([encode(LeaderChangeRecord(1, 1))], 1, timestamp_ms=500)
        log.append(
            [encode(old_context, version=0), encode(acl), encode(scram), encode(bob)],
            1,
            timestamp_ms=1_000,
        )
        log.append(
            [encode(new_context), encode(second), encode(NoOpRecord())], 1, timestamp_ms=2_000
        )
        removals = [
            encode(RemoveAccessControlEntryRecord(first)),
            encode(RemoveUserScramCredentialRecord("bob", ScramMechanism.SCRAM_SHA_512)),
        ]
        log.append([encode(new_context), *removals], 1, timestamp_ms=3_000)


def test_older_versions_authors_and_every_type(spark: SparkSession, tmp_path: Path) -> None:
    _write_mixed_versions(tmp_path)
    frame = read_records(spark, tmp_path)
    rows = frame.collect()
    authors = {
        (r["offset"], r["author_principal"], r["author_api"])
        for r in rows
        if r["type"] != "RequestContextRecord"
    }
    assert (2, "User:old", None) in authors  # version 0 has no api: the default, null
    assert (6, "User:new", "CreateAcls") in authors
    assert (0, None, None) in authors  # a batch that no request context starts
    assert {r["type"] for r in rows} >= {"NoOpRecord", "LeaderChangeRecord"}
    assert {(r["user"], r["mechanism"], r["iterations"]) for r in rows if r["user"]} >= {
        ("alice", "SCRAM-SHA-256", 4096),
        ("bob", "SCRAM-SHA-512", 8192),
    }
    shown = repr([tuple(r) for r in rows]).encode()
    assert b"salt-marker" not in shown and b"key-marker" not in shown
    result = state(records_as_of(spark, tmp_path).frame)
    assert result.to_dict() == state_to_dict(rebuild_image(tmp_path).image)
    result.unpersist()


def test_an_unknown_record_type_fails_the_job_at_its_offset(
    spark: SparkSession, tmp_path: Path
) -> None:
    with SegmentedLog(tmp_path, fsync=False) as log:
        log.append([encode(LeaderChangeRecord(1, 1))], 1, timestamp_ms=500)
        log.append([b"\x01\x63\x00garbage"], 1, timestamp_ms=600)
    with pytest.raises(Exception, match="record at offset 1: unknown record type 99"):
        read_records(spark, tmp_path).collect()


def test_replays_state_at_a_point(spark: SparkSession, logs: Logs) -> None:
    batches = list(read_batches(logs.full))
    offset, at = batches[-7].last_offset, batches[len(batches) // 3].timestamp_ms
    for point in ({}, {"at_offset": offset}, {"at_time_ms": at}):
        chosen = records_as_of(spark, logs.full, columns=STATE_INPUT_COLUMNS, **point)
        result = state(chosen.frame, **point)
        assert result.to_dict() == state_to_dict(rebuild_image(logs.full, **point).image), point
        result.unpersist()


def test_an_empty_log_is_the_empty_state(spark: SparkSession, tmp_path: Path) -> None:
    with SegmentedLog(tmp_path / "log", fsync=False):
        pass
    chosen = records_as_of(spark, tmp_path / "log", columns=STATE_INPUT_COLUMNS)
    assert survey(chosen.frame) == Survey(0)
    assert state(chosen.frame).to_dict()["offset"] == -1
