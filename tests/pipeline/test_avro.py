"""The JVM Avro path of the records DataFrame: the same rows as the Python source, no secrets
staged, older record versions resolved, and the fallback still giving replay's state."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from aclog.log import SegmentedLog, read_batches
from aclog.pipeline.avro import _types_with, avro_available, stage_log
from aclog.pipeline.columns import FIELD_OF_COLUMN
from aclog.pipeline.load import read_records, records_as_of, resolve_engine
from aclog.pipeline.session import PipelineError
from aclog.pipeline.state import STATE_INPUT_COLUMNS, Survey, state, survey
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    LeaderChangeRecord,
    NoOpRecord,
    PatternType,
    RecordType,
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


def _rows(frame: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(row) for row in frame.collect()), key=repr)


def _both(spark: SparkSession, directory: Path, **options: Any) -> tuple[list[Any], list[Any]]:
    avro = read_records(spark, directory, engine="avro", **options)
    python = read_records(spark, directory, engine="python", **options)
    assert avro.schema == python.schema
    return _rows(avro), _rows(python)


def test_the_bundled_spark_has_the_avro_reader(spark: SparkSession) -> None:
    # The class is internal to spark-sql: this pins that the pinned pyspark still ships it.
    assert avro_available(spark)
    assert resolve_engine(spark) == "avro"
    assert resolve_engine(spark, "python") == "python"
    with pytest.raises(PipelineError, match="unknown pipeline engine"):
        resolve_engine(spark, "jvm")


def test_both_engines_give_the_same_rows(spark: SparkSession, logs: Logs) -> None:
    avro, python = _both(spark, logs.full)
    assert avro == python and len(avro) > 100
    middle = list(read_batches(logs.full))[20]
    inside = middle.base_offset + (1 if middle.last_offset > middle.base_offset else 0)
    avro, python = _both(spark, logs.full, from_offset=inside, snapshots="all")
    assert avro == python
    assert min(r[0] for r in avro if r[6] == "log") == inside  # offset, source
    avro, python = _both(spark, logs.pruned, snapshots="all", columns=STATE_INPUT_COLUMNS)
    assert avro == python


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
    avro, python = _both(spark, tmp_path)
    assert avro == python
    frame = read_records(spark, tmp_path, engine="avro")
    authors = {
        (r["offset"], r["author_principal"], r["author_api"])
        for r in frame.filter(F.col("type") != "RequestContextRecord").collect()
    }
    assert (2, "User:old", None) in authors  # version 0 has no api: the default, null
    assert (6, "User:new", "CreateAcls") in authors
    assert {r["type"] for r in frame.collect()} >= {"NoOpRecord", "LeaderChangeRecord"}
    result = state(records_as_of(spark, tmp_path, engine="avro").frame)
    assert result.to_dict() == state_to_dict(rebuild_image(tmp_path).image)
    result.unpersist()


def test_staged_files_hold_no_secrets(spark: SparkSession, tmp_path: Path) -> None:
    _write_mixed_versions(tmp_path / "log")
    folder = stage_log(spark, tmp_path / "log", staging=tmp_path / "staging").folder
    staged = b"".join(path.read_bytes() for path in folder.rglob("*.avro"))
    assert b"orders" in staged and b"alice" in staged
    assert SALT not in staged and KEY not in staged


def test_an_unknown_record_type_fails_the_job(spark: SparkSession, tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, fsync=False) as log:
        log.append([encode(LeaderChangeRecord(1, 1))], 1, timestamp_ms=500)
        log.append([b"\x01\x63\x00garbage"], 1, timestamp_ms=600)
    with pytest.raises(Exception, match="offset 1"):
        read_records(spark, tmp_path, engine="avro")


@pytest.mark.parametrize("engine", ["python", "avro"])
def test_each_engine_gives_replays_state_at_a_point(
    spark: SparkSession, logs: Logs, engine: str
) -> None:
    batches = list(read_batches(logs.full))
    offset, at = batches[-7].last_offset, batches[len(batches) // 3].timestamp_ms
    for point in ({}, {"at_offset": offset}, {"at_time_ms": at}):
        chosen = records_as_of(
            spark, logs.full, columns=STATE_INPUT_COLUMNS, engine=engine, **point
        )
        result = state(chosen.frame, **point, known=chosen.survey)
        assert result.to_dict() == state_to_dict(rebuild_image(logs.full, **point).image), point
        result.unpersist()
    assert (chosen.survey is not None) == (engine == "avro")


def test_the_survey_staging_counts_equals_the_survey_job(spark: SparkSession, logs: Logs) -> None:
    """Removals and provenance counted while staging equal what the survey job finds, from
    the log alone, from a snapshot plus the log, and from a pruned log's snapshot."""
    options = {"columns": STATE_INPUT_COLUMNS, "engine": "avro"}
    for directory, snapshots in ((logs.pruned, True), (logs.full, False), (logs.full, True)):
        chosen = records_as_of(spark, directory, use_snapshots=snapshots, **options)
        assert chosen.survey is not None
        assert chosen.survey == survey(chosen.frame), (directory, snapshots)
        assert chosen.survey.removals > 0
    last, found = list(read_batches(logs.full))[-1], chosen.survey
    assert (found.offset, found.epoch, found.timestamp) == (
        last.last_offset,
        last.epoch,
        last.timestamp_ms,
    )


def test_no_staged_record_leaves_the_survey_to_spark(spark: SparkSession, tmp_path: Path) -> None:
    with SegmentedLog(tmp_path / "log", fsync=False):
        pass
    chosen = records_as_of(spark, tmp_path / "log", columns=STATE_INPUT_COLUMNS, engine="avro")
    assert chosen.survey is None
    assert survey(chosen.frame) == Survey(0)
    assert state(chosen.frame).to_dict()["offset"] == -1


def test_each_record_column_comes_from_the_record_types_that_carry_it() -> None:
    T = RecordType
    acl, scram = T.ACCESS_CONTROL_ENTRY, T.USER_SCRAM_CREDENTIAL
    expected = {
        "acl_id": ("id", {acl, T.REMOVE_ACCESS_CONTROL_ENTRY}),
        **{
            name: (name, {acl})
            for name in (
                "resource_type",
                "resource_name",
                "pattern_type",
                "principal",
                "host",
                "operation",
                "permission_type",
            )
        },
        "user": ("name", {scram, T.REMOVE_USER_SCRAM_CREDENTIAL}),
        "mechanism": ("mechanism", {scram, T.REMOVE_USER_SCRAM_CREDENTIAL}),
        "iterations": ("iterations", {scram}),
        "leader_id": ("leader_id", {T.LEADER_CHANGE}),
    }
    actual = {column: (f, set(_types_with(f))) for column, f in FIELD_OF_COLUMN.items()}
    assert actual == expected
