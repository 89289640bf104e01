"""Kafka's own ``kafka-dump-log.sh`` reads an aclog data directory as a Kafka log: every batch's
CRC is valid, every offset index passes ``--verify-index-only`` and ``--index-sanity-check``;
and one whose indexes an older aclog wrote (first offsets, which Kafka reports as mismatches)
replays the same and passes once the next writer has opened it. No broker is needed."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from aclog.controller import Caller, Controller, LocalOperator
from aclog.log import SegmentedLog, list_segments, read_batches
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from tests.log.kafka_index import rewrite_as_first_offsets
from tests.real_kafka import kafka_home_or_fail, run_tool
from tests.tools.harness import run_main, tree_stamps

ACLS = 3000


@pytest.fixture(scope="module")
def kafka_home() -> Path:
    return kafka_home_or_fail()


def _acl(i: int) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC, f"orders-{i:05d}", PatternType.LITERAL, f"User:svc-{i % 97}", "*",
        AclOperation.READ, AclPermissionType.ALLOW,
    )  # fmt: skip


def _write_acls(directory: Path) -> None:
    """``ACLS`` ACLs created by requests of 1 to 40 ACLs (one batch each), 32 KiB segments."""
    rng = random.Random(11)
    log = SegmentedLog(directory, segment_bytes=32 << 10, fsync=False)
    caller = Caller("User:ops", "10.0.0.8", "ops-tool", "CreateAcls")
    with Controller(log, authorizer=LocalOperator()) as controller:
        made = 0
        while made < ACLS:
            count = min(rng.choice((1, 1, 1, 2, 5, 40)), ACLS - made)
            controller.create_acls([_acl(made + i) for i in range(count)], caller)
            made += count


def _dump(home: Path, work: Path, files: list[Path], *flags: str) -> str:
    done = run_tool(
        home, work, "kafka-dump-log.sh", *flags, "--files", ",".join(str(f) for f in files)
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout + done.stderr  # the tool prints mismatches to stderr


def _files(directory: Path, suffix: str) -> list[Path]:
    return [path.with_suffix(suffix) for _, path in list_segments(directory)]


def test_kafka_reads_every_batch_of_an_aclog_log_with_a_valid_crc(
    kafka_home: Path, tmp_path: Path
) -> None:
    _write_acls(tmp_path / "data")
    segments = _files(tmp_path / "data", ".log")
    assert len(segments) > 3
    out = _dump(kafka_home, tmp_path, segments)
    batches = re.findall(
        r"^baseOffset: (\d+) lastOffset: (\d+) count: (\d+).*isvalid: (\w+)$", out, re.M
    )
    ours = [(b.base_offset, b.last_offset) for b in read_batches(tmp_path / "data")]
    assert [(int(b), int(last)) for b, last, _, _ in batches] == ours
    assert {valid for *_, valid in batches} == {"true"}
    assert any(int(count) > 1 for _, _, count, _ in batches)


def test_kafka_finds_every_aclog_offset_index_valid(kafka_home: Path, tmp_path: Path) -> None:
    _write_acls(tmp_path / "data")
    indexes = _files(tmp_path / "data", ".index")
    verified = _dump(kafka_home, tmp_path, indexes, "--verify-index-only")
    assert "Mismatches" not in verified, verified
    assert verified.count("Dumping ") == len(indexes)
    sane = _dump(kafka_home, tmp_path, indexes, "--index-sanity-check")
    assert sane.count("passed sanity check") == len(indexes), sane


def test_an_old_first_offset_index_replays_the_same_and_the_next_writer_repairs_it(
    kafka_home: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    _write_acls(data)
    replayed = run_main("replay", "--data-dir", str(data), "--json")
    assert rewrite_as_first_offsets(data) > 10
    indexes = _files(data, ".index")
    assert "Mismatches" in _dump(kafka_home, tmp_path, indexes, "--verify-index-only")
    stamps = tree_stamps(data)
    old = run_main("replay", "--data-dir", str(data), "--json")
    assert (old.code, json.loads(old.stdout)) == (0, json.loads(replayed.stdout))
    assert tree_stamps(data) == stamps  # a read leaves the old index as it is
    with SegmentedLog(data, fsync=False):
        pass
    assert "Mismatches" not in _dump(kafka_home, tmp_path, indexes, "--verify-index-only")
