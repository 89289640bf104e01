"""The task-side ``state`` (what ``aclog pipeline state`` runs over a data directory) equals the
DataFrame ``state`` and ``aclog replay`` (``rebuild_image``) on logs with snapshots, removals in
other pieces than their additions, ids removed and added again, SCRAM credentials set and
deleted, at the end and cut at offsets and times in the middle; it writes what the DataFrame job
writes; a damaged log fails with the same error and leaves no state behind."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyspark.sql import SparkSession
from typer.testing import CliRunner

import aclog.tools.pipeline  # noqa: F401  (registers the commands)
from aclog.log import read_batches
from aclog.pipeline.failures import short_error
from aclog.pipeline.load import records_as_of
from aclog.pipeline.removed_ids import RemovedIds, id_words
from aclog.pipeline.state import STATE_INPUT_COLUMNS, state
from aclog.pipeline.state_answer import answer_state
from aclog.pipeline.state_files import write_state
from aclog.pipeline.state_tasks import task_state
from aclog.replay.rebuild import rebuild_image
from aclog.tools.console import app
from aclog.tools.history import state_to_dict
from tests.pipeline.conftest import Logs
from tests.pipeline.logs import write_log
from tests.pipeline.test_state_edges import _write as write_readded

runner = CliRunner()


def _dataframe(spark: SparkSession, directory: Path, **point: Any) -> dict[str, Any]:
    use_snapshots = point.pop("use_snapshots", True)
    chosen = records_as_of(
        spark, directory, use_snapshots=use_snapshots, columns=STATE_INPUT_COLUMNS, **point
    )
    result = state(chosen.frame, **point)
    try:
        return result.to_dict()
    finally:
        result.unpersist()


def _points(directory: Path) -> list[dict[str, Any]]:
    """The end, and cuts in the middle: at an offset inside a batch (the state as of the batch
    before it) and at a time."""
    batches = list(read_batches(directory))
    middle, third = batches[len(batches) // 2], batches[len(batches) // 3]
    return [{}, {"at_offset": middle.base_offset}, {"at_time_ms": third.timestamp_ms}]


@pytest.fixture(scope="module")
def contract_logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Many small segments (removals in other pieces than their additions), snapshots, a pruned
    log, and ids removed and added again around a snapshot."""
    made = []
    for seed, snapshot_at, prune in ((21, (25,), False), (22, (15, 35), True), (23, (), False)):
        directory = tmp_path_factory.mktemp(f"log{seed}")
        write_log(directory, seed=seed, steps=60, snapshot_at=snapshot_at, prune=prune)
        made.append(directory)
    readded = tmp_path_factory.mktemp("readded")
    write_readded(readded)
    return [*made, readded]


def test_task_state_equals_the_dataframe_state_and_replay(
    spark: SparkSession, contract_logs: list[Path]
) -> None:
    whole_log = [{"use_snapshots": False}]  # the first log's, from offset 0
    for directory, more in zip(contract_logs, [whole_log, [], [], []], strict=True):
        for point in [*_points(directory), *more]:
            kept = {k: v for k, v in point.items() if k != "use_snapshots"}
            snapshots = point.get("use_snapshots", True)
            want = state_to_dict(rebuild_image(directory, use_snapshots=snapshots, **kept).image)
            got = answer_state(spark, directory, **kept, use_snapshots=snapshots, collect=True)
            assert got.document == want, (directory.name, point)
            assert _dataframe(spark, directory, **point) == want, (directory.name, point)


def test_written_state_equals_the_dataframe_jobs(
    spark: SparkSession, contract_logs: list[Path], tmp_path: Path
) -> None:
    directory = contract_logs[0]
    offset = _points(directory)[1]["at_offset"]
    written = answer_state(spark, directory, offset, out=tmp_path / "tasks", collect=True)
    chosen = records_as_of(spark, directory, at_offset=offset, columns=STATE_INPUT_COLUMNS)
    result = state(chosen.frame, offset)
    try:
        reference = write_state(result, tmp_path / "frames")
    finally:
        result.unpersist()
    assert written.written is not None
    assert {**written.written.to_dict(), "out": ""} == {**reference.to_dict(), "out": ""}
    for part in ("acls", "users"):
        ours = spark.read.parquet(str(tmp_path / "tasks" / part))
        theirs = spark.read.parquet(str(tmp_path / "frames" / part))
        assert ours.schema == theirs.schema, part
        assert sorted(ours.collect()) == sorted(theirs.collect()), part
    assert written.document == state_to_dict(rebuild_image(directory, at_offset=offset).image)
    assert sorted(p.name for p in (tmp_path / "tasks").iterdir()) == ["acls", "users"]


def test_an_empty_directory_and_the_dataframe_fallback(
    spark: SparkSession, contract_logs: list[Path], tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    document = answer_state(spark, empty, out=tmp_path / "out", collect=True).document
    assert document == state_to_dict(rebuild_image(empty).image)
    assert spark.read.parquet(str(tmp_path / "out" / "acls")).count() == 0
    directory = contract_logs[1]
    assert task_state(spark, directory, broadcast_limit=0) is None  # it has removals
    assert task_state(spark, directory) is not None


def _damaged(source: Path, root: Path) -> Path:
    damaged = root / "damaged"
    shutil.copytree(source, damaged)
    first = min(damaged.glob("*.log"))
    data = bytearray(first.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 8] = b"\xff" * 8
    first.write_bytes(bytes(data))
    return damaged


def test_a_damaged_log_fails_as_the_dataframe_job_and_leaves_no_state(
    spark: SparkSession, contract_logs: list[Path], tmp_path: Path
) -> None:
    damaged = _damaged(contract_logs[2], tmp_path)
    out = tmp_path / "state"
    answer_state(spark, contract_logs[2], out=out)  # a previous state, to be removed
    with pytest.raises(Exception, match="CorruptLogError") as raised:
        answer_state(spark, damaged, out=out)
    assert sorted(p.name for p in out.iterdir()) == []  # no part, no staging folder
    with pytest.raises(Exception, match="CorruptLogError") as reference:
        _dataframe(spark, damaged)
    assert short_error(raised.value) == short_error(reference.value)
    args = ["pipeline", "state", "--data-dir", str(damaged), "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert f"the Spark job failed: {short_error(reference.value)}" in result.output
    assert not (out / "acls").exists()


def _words(ids: list[int]) -> Any:
    return np.array([[i >> 64, i & (1 << 64) - 1] for i in ids], dtype=np.uint64).reshape(-1, 2)


# Ids from a small pool of first words, so that runs of ids sharing one are common.
ids_st = st.builds(lambda h, lo: h << 64 | lo, st.integers(0, 3), st.integers(0, 5))


@settings(max_examples=200, deadline=None)
@given(
    removals=st.lists(st.tuples(ids_st, st.integers(0, 50)), max_size=30),
    additions=st.lists(st.tuples(ids_st, st.integers(0, 50)), max_size=30),
)
def test_removed_after_is_a_later_removal_of_the_same_id(
    removals: list[tuple[int, int]], additions: list[tuple[int, int]]
) -> None:
    removed = RemovedIds.of(
        _words([i for i, _ in removals]), np.array([at for _, at in removals], dtype=np.int64)
    )
    last: dict[int, int] = {}
    for acl_id, at in removals:
        last[acl_id] = max(at, last.get(acl_id, -1))
    assert len(removed) == len(last)
    got = removed.removed_after(
        _words([i for i, _ in additions]), np.array([at for _, at in additions], dtype=np.int64)
    )
    assert got.tolist() == [last.get(i, -1) > at for i, at in additions]


def test_id_words_read_the_ids_bytes_in_order() -> None:
    ids = [uuid.UUID(int=(7 << 64) | 9), uuid.UUID(int=(1 << 127) | 3)]
    array = pa.array([u.bytes for u in ids], pa.binary(16)).slice(1)
    assert id_words(array).tolist() == [[1 << 63, 3]]


def test_relative_paths_are_resolved_on_the_driver(
    spark: SparkSession, logs: Logs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pruned log's state starts at its snapshot: the snapshot's path reaches a task, whose
    # working directory is the JVM's, not this one.
    (tmp_path / "data").symlink_to(logs.pruned, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    answer = answer_state(spark, Path("data"), out=Path("state"), collect=True)
    assert answer.document == state_to_dict(rebuild_image(logs.pruned).image)
    assert answer.written is not None and answer.written.out == "state"
    assert (tmp_path / "state" / "acls").is_dir() and (tmp_path / "state" / "users").is_dir()


def test_a_failed_second_pass_leaves_no_half_state(
    spark: SparkSession, contract_logs: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "state"
    answer_state(spark, contract_logs[0], out=out)  # a previous state, to be removed
    staging = tmp_path / "staging"
    found = task_state(spark, contract_logs[0], staging=staging)
    assert found is not None and found.pieces > 1
    (staging / "candidates" / "candidates-00001.arrow").unlink()  # one task will fail
    with pytest.raises(Exception, match=r"candidates-00001\.arrow"):
        found.write(out)
    assert sorted(p.name for p in out.iterdir()) == []


def test_a_failed_out_command_removes_the_directory_it_created_and_keeps_the_users(
    spark: SparkSession, contract_logs: list[Path], tmp_path: Path
) -> None:
    # a failed 'pipeline state --out DIR' left an empty DIR behind
    damaged = _damaged(contract_logs[2], tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    for command in ("state", "records"):
        created = tmp_path / f"new-{command}" / "out"
        for out in (created, mine):
            args = ["pipeline", command, "--data-dir", str(damaged), "--out", str(out)]
            result = runner.invoke(app, args)
            assert result.exit_code == 1, result.output
            assert "the Spark job failed" in result.output
        assert not created.parent.exists()
        assert mine.is_dir()
