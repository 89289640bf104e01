"""The ``state`` job equals ``aclog replay`` (``rebuild_image``) exactly, at any point."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from typer.testing import CliRunner

import aclog.tools.pipeline  # noqa: F401  (registers the commands)
from aclog.log import read_batches
from aclog.pipeline.load import records_as_of
from aclog.pipeline.state import STATE_INPUT_COLUMNS, state
from aclog.pipeline.state_files import write_state
from aclog.replay.rebuild import rebuild_image
from aclog.tools.console import app
from aclog.tools.history import state_to_dict
from tests.pipeline.conftest import Logs

runner = CliRunner()


def _pipeline_state(
    spark: SparkSession,
    directory: Path,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    *,
    use_snapshots: bool = True,
    narrow: bool = False,
) -> dict[str, Any]:
    chosen = records_as_of(
        spark,
        directory,
        at_offset=at_offset,
        at_time_ms=at_time_ms,
        use_snapshots=use_snapshots,
        columns=STATE_INPUT_COLUMNS if narrow else None,
    )
    result = state(chosen.frame, at_offset, at_time_ms)
    try:
        return result.to_dict()
    finally:
        result.unpersist()


def _replay(directory: Path, **point: Any) -> dict[str, Any]:
    return state_to_dict(rebuild_image(directory, **point).image)


def test_state_equals_replay_at_the_end_and_at_batch_boundaries(
    spark: SparkSession, logs: Logs
) -> None:
    expected = _replay(logs.full)
    assert expected["acls"] and expected["users"]
    assert _pipeline_state(spark, logs.full) == expected
    batches = list(read_batches(logs.full))
    # A boundary before the first snapshot, an offset inside a batch (whole batches only) between
    # the snapshots, and a boundary after the last one: each equals replay.
    inside = next(b for b in batches[len(batches) // 2 :] if b.last_offset > b.base_offset)
    for offset in (batches[2].last_offset, inside.base_offset, batches[-5].last_offset):
        assert _pipeline_state(spark, logs.full, at_offset=offset) == _replay(
            logs.full, at_offset=offset
        ), offset


def test_state_from_just_the_columns_it_reads_equals_replay(
    spark: SparkSession, logs: Logs
) -> None:
    offset = list(read_batches(logs.full))[-9].last_offset
    assert _pipeline_state(spark, logs.full, narrow=True) == _replay(logs.full)
    assert _pipeline_state(spark, logs.full, at_offset=offset, narrow=True) == _replay(
        logs.full, at_offset=offset
    )
    assert _pipeline_state(spark, logs.pruned, narrow=True) == _replay(logs.pruned)


def test_state_at_a_time(spark: SparkSession, logs: Logs) -> None:
    batches = list(read_batches(logs.full))
    at = batches[len(batches) // 2].timestamp_ms
    assert _pipeline_state(spark, logs.full, at_time_ms=at) == _replay(logs.full, at_time_ms=at)


def test_snapshot_plus_tail_equals_the_full_log(spark: SparkSession, logs: Logs) -> None:
    from_snapshot = records_as_of(spark, logs.full)
    assert from_snapshot.snapshot is not None
    without = _pipeline_state(spark, logs.full, use_snapshots=False)
    assert without == _replay(logs.full) == _replay(logs.full, use_snapshots=False)
    # (The snapshot + tail path is the default one, checked against replay above.)


def test_pruned_log_starts_from_its_snapshot(spark: SparkSession, logs: Logs) -> None:
    assert read_batches(logs.pruned).__next__().base_offset > 0
    assert _pipeline_state(spark, logs.pruned) == _replay(logs.pruned)


def test_cli_json_equals_replay_and_writes_parquet(
    spark: SparkSession, logs: Logs, tmp_path: Path
) -> None:
    offset = list(read_batches(logs.full))[-3].last_offset
    out = tmp_path / "state"
    result = runner.invoke(
        app,
        [
            "pipeline",
            "state",
            "--data-dir",
            str(logs.full),
            "--at-offset",
            str(offset),
            "--out",
            str(out),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown == _replay(logs.full, at_offset=offset)
    replayed = runner.invoke(
        app, ["replay", "--data-dir", str(logs.full), "--at-offset", str(offset), "--json"]
    )
    assert json.loads(replayed.stdout) == shown
    acls = spark.read.parquet(str(out / "acls"))
    users = spark.read.parquet(str(out / "users"))
    assert sorted(r["acl_id"] for r in acls.collect()) == sorted(a["id"] for a in shown["acls"])
    assert users.count() == sum(len(u["credentials"]) for u in shown["users"])
    assert not {"salt", "stored_key", "server_key"} & set(users.columns)


def test_cli_summary_line_counts_what_it_wrote(
    spark: SparkSession, logs: Logs, tmp_path: Path
) -> None:
    want = _replay(logs.full)
    out = tmp_path / "state"
    args = ["pipeline", "state", "--data-dir", str(logs.full), "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    credentials = sum(len(u["credentials"]) for u in want["users"])
    assert result.stdout.strip() == (
        f"state at offset {want['offset']} (epoch {want['epoch']}): {len(want['acls'])} ACLs, "
        f"{credentials} SCRAM credentials; written to {out}"
    )
    assert spark.read.parquet(str(out / "acls")).count() == len(want["acls"])


def test_a_failed_part_leaves_no_half_state_behind(
    spark: SparkSession, logs: Logs, tmp_path: Path
) -> None:
    chosen = records_as_of(spark, logs.full, columns=STATE_INPUT_COLUMNS)
    result = state(chosen.frame)
    out = tmp_path / "state"
    assert write_state(result, out).acls == len(_replay(logs.full)["acls"])
    broken = replace(result, acls=result.acls.withColumn("x", F.raise_error(F.lit("disk gone"))))
    with pytest.raises(Exception, match="disk gone"):
        write_state(broken, out)
    assert not (out / "acls").exists()
    assert not (out / "users").exists()  # written fine, but half a state is removed too


def test_cli_usage_errors_and_a_corrupt_log(
    spark: SparkSession, logs: Logs, tmp_path: Path
) -> None:
    missing = runner.invoke(app, ["pipeline", "state", "--data-dir", str(tmp_path / "nope")])
    assert missing.exit_code == 2
    assert "no data directory" in missing.output
    damaged = tmp_path / "damaged"
    shutil.copytree(logs.full, damaged)
    first = min(damaged.glob("*.log"))
    data = bytearray(first.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 8] = b"\xff" * 8
    first.write_bytes(bytes(data))
    result = runner.invoke(
        app, ["pipeline", "state", "--data-dir", str(damaged), "--no-snapshots", "--json"]
    )
    assert result.exit_code == 1
    # the message of aclog's own error, without its class (the class is for a traceback)
    assert f"the Spark job failed: corrupt log segment {first}" in result.output
    assert "CorruptLogError" not in result.output
