"""``aclog pipeline records``: the tasks that decode the records write them as Parquet, equal
to the source's rows, replacing the output only when every task succeeded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession
from typer.testing import CliRunner

import aclog.tools.pipeline  # noqa: F401  (registers the commands)
from aclog.pipeline.load import read_parquet_records, read_records
from aclog.pipeline.records_files import write_records
from aclog.pipeline.schema import ARROW_SCHEMA, COLUMN_NAMES, RECORD_SCHEMA
from aclog.replay.rebuild import rebuild_image
from aclog.tools.console import app
from aclog.tools.history import state_to_dict
from tests.pipeline.conftest import Logs

runner = CliRunner()


def _rows(frame: object) -> list[tuple[object, ...]]:
    """The rows by (offset, source, position): each row's own place."""
    rows = [tuple(row) for row in frame.select(*COLUMN_NAMES).collect()]  # type: ignore[attr-defined]
    at, source = COLUMN_NAMES.index("position"), COLUMN_NAMES.index("source")
    return sorted(rows, key=lambda row: (row[0], row[source], row[at]))


@pytest.mark.parametrize("snapshots", ["none", "all"])
def test_written_records_equal_the_sources_rows(
    spark: SparkSession, logs: Logs, tmp_path: Path, snapshots: str
) -> None:
    out = tmp_path / "records"
    count = write_records(spark, logs.full, out, snapshots=snapshots)
    written = read_parquet_records(spark, out)
    assert written.schema == RECORD_SCHEMA
    assert _rows(written) == _rows(read_records(spark, logs.full, snapshots=snapshots))
    assert count == written.count() > 0
    assert pq.read_schema(next(out.glob("part-*.parquet"))).equals(ARROW_SCHEMA)
    assert [p.name for p in tmp_path.iterdir()] == ["records"]  # no staging folder left


def test_an_empty_log_writes_the_schema(spark: SparkSession, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert write_records(spark, empty, tmp_path / "records") == 0
    assert read_parquet_records(spark, tmp_path / "records").count() == 0


def test_a_failed_run_leaves_the_previous_output(
    spark: SparkSession, logs: Logs, tmp_path: Path
) -> None:
    out = tmp_path / "records"
    before = write_records(spark, logs.full, out)
    damaged = tmp_path / "damaged"
    shutil.copytree(logs.full, damaged)
    first = min(damaged.glob("*.log"))
    data = bytearray(first.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 8] = b"\xff" * 8
    first.write_bytes(bytes(data))
    with pytest.raises(Exception, match="CorruptLogError"):
        write_records(spark, damaged, out)
    assert read_parquet_records(spark, out).count() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged", "records"]


def test_cli_writes_records_that_state_reads_back(logs: Logs, tmp_path: Path) -> None:
    out = tmp_path / "records"
    args = ["pipeline", "records", "--data-dir", str(logs.full), "--out", str(out), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown == {"out": str(out), "records": shown["records"]} and shown["records"] > 0
    state = runner.invoke(app, ["pipeline", "state", "--records", str(out), "--json"])
    assert state.exit_code == 0, state.output
    assert json.loads(state.stdout) == state_to_dict(
        rebuild_image(logs.full, use_snapshots=False).image
    )
