"""The pipeline reads Kafka's own KRaft metadata log: ``aclog pipeline state --format kraft``
equals ``aclog replay --format kraft`` at every point of a generated ``__cluster_metadata-0``
(three segments, a checkpoint, records of other types, leader changes, a torn tail)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from typer.testing import CliRunner

import aclog.tools.pipeline  # noqa: F401  (registers the commands)
from aclog.pipeline.kraft_source import read_kraft_records
from aclog.pipeline.load import records_as_of
from aclog.pipeline.state import STATE_INPUT_COLUMNS, state
from aclog.records.types import RECORD_TYPES, record_type_name
from aclog.replay.rebuild import rebuild_image
from aclog.tools.console import app
from aclog.tools.history import state_to_dict
from tests.kraft.layout import ACL_B, T0, Layout, build_layout

runner = CliRunner()


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Layout:
    return build_layout(tmp_path_factory.mktemp("kraft") / "__cluster_metadata-0")


def _pipeline(spark: SparkSession, directory: Path, **point: Any) -> dict[str, Any]:
    chosen = records_as_of(spark, directory, columns=STATE_INPUT_COLUMNS, kraft=True, **point)
    point.pop("use_snapshots", None)
    result = state(chosen.frame, point.get("at_offset"), point.get("at_time_ms"))
    try:
        return result.to_dict()
    finally:
        result.unpersist()


def _replay(directory: Path, **point: Any) -> dict[str, Any]:
    return state_to_dict(rebuild_image(directory, kraft=True, **point).image)


def test_every_offset_is_one_row_with_the_records_aclog_reads(
    spark: SparkSession, layout: Layout
) -> None:
    rows = read_kraft_records(spark, layout.directory).orderBy("offset").collect()
    assert [r["offset"] for r in rows] == list(range(18))  # the torn tail is not a batch
    read = {offset: (epoch, ts, record) for offset, epoch, ts, record in layout.log_records}
    for row in rows:
        assert row["source"] == "log" and row["author_principal"] is None
        if row["offset"] not in read:  # FeatureLevel, Topic, RegisterBroker records
            assert (row["type"], row["type_code"], row["acl_id"]) == ("UNKNOWN", 0, None)
            continue
        epoch, ts, record = read[row["offset"]]
        assert row["type"] == record_type_name(RECORD_TYPES[type(record)])
        assert (row["epoch"], row["timestamp_ms"]) == (epoch, ts)
        assert row["batch_base_offset"] <= row["offset"] <= row["batch_last_offset"]
        assert row["position"] == row["offset"] - row["batch_base_offset"]


def test_checkpoint_rows_sit_at_its_last_covered_offset(
    spark: SparkSession, layout: Layout
) -> None:
    frame = read_kraft_records(spark, layout.directory, checkpoint=layout.checkpoint)
    shot = frame.filter("source = 'snapshot'").collect()
    assert [(r["offset"], r["epoch"], r["position"]) for r in shot] == [(12, 2, 0)]
    assert shot[0]["timestamp_ms"] == layout.checkpoint_timestamp
    assert shot[0]["type"] == "AccessControlEntryRecord"
    assert layout.checkpoint_records == [ACL_B]
    assert shot[0]["resource_name"] == ACL_B.resource_name


@pytest.mark.parametrize(
    "point",
    [
        {},
        {"at_offset": 3},
        {"at_offset": 10},
        {"at_offset": 12},
        {"at_offset": 13},
        {"at_offset": 16},
        {"at_time_ms": T0 + 11_000},
        {"at_time_ms": T0 + 25_000},
        {"use_snapshots": False},
        {"use_snapshots": False, "at_offset": 9},
    ],
)
def test_state_equals_replay(spark: SparkSession, layout: Layout, point: dict[str, Any]) -> None:
    assert _pipeline(spark, layout.directory, **point) == _replay(layout.directory, **point)


def test_cli_json_equals_replay_with_format_kraft_and_auto(layout: Layout) -> None:
    replayed = runner.invoke(
        app, ["replay", "--data-dir", str(layout.directory), "--format", "kraft", "--json"]
    )
    assert replayed.exit_code == 0, replayed.output
    for given in (["--format", "kraft"], []):
        args = ["pipeline", "state", "--data-dir", str(layout.directory), "--json", *given]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == json.loads(replayed.stdout)


def test_a_damaged_segment_fails_the_job_naming_the_file(
    spark: SparkSession, layout: Layout, tmp_path: Path
) -> None:
    damaged = tmp_path / "__cluster_metadata-0"
    damaged.mkdir()
    for path in layout.directory.iterdir():
        (damaged / path.name).write_bytes(path.read_bytes())
    middle = layout.segments[1]
    data = bytearray((damaged / middle.name).read_bytes())
    data[-3] ^= 0xFF  # the last batch of a segment that is not the last: corruption
    (damaged / middle.name).write_bytes(bytes(data))
    args = ["pipeline", "state", "--data-dir", str(damaged), "--no-snapshots", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "the Spark job failed: cannot read KRaft metadata" in result.output
    assert f"{middle.name} at byte" in result.output and "CRC-32C mismatch" in result.output


def test_a_log_that_needs_a_missing_checkpoint_is_refused(layout: Layout, tmp_path: Path) -> None:
    pruned = tmp_path / "__cluster_metadata-0"
    pruned.mkdir()
    for path in layout.directory.iterdir():
        if path.name != layout.segments[0].name and not path.name.endswith(".checkpoint"):
            (pruned / path.name).write_bytes(path.read_bytes())
    result = runner.invoke(app, ["pipeline", "state", "--data-dir", str(pruned), "--json"])
    assert result.exit_code == 1
    assert "starts at offset 8" in result.output
