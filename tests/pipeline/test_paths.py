"""Relative paths are resolved on the driver: executors run in their own working directory (a
worker's work dir on a cluster; here, the JVM's, which a ``chdir`` of this process leaves
behind), so every path a task opens must already be absolute."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from aclog.pipeline.load import read_parquet_records, read_records, records_as_of
from aclog.pipeline.pieces import LogPiece, SnapshotPiece, absolute_snapshots
from aclog.pipeline.source import AclogReader
from aclog.pipeline.state import state
from aclog.pipeline.state_files import write_state
from aclog.replay.rebuild import rebuild_image
from aclog.snapshot import list_snapshots
from aclog.tools.history import state_to_dict
from tests.pipeline.conftest import Logs


def test_the_planner_gives_every_piece_an_absolute_path(
    logs: Logs, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(logs.full.parent)
    name = logs.full.name
    snapshot = list_snapshots(logs.full)[0].path.name
    for choice in ("all", f"{name}/{snapshot}"):
        pieces = AclogReader({"path": name, "snapshots": choice}).partitions()
        paths = [p.path if isinstance(p, SnapshotPiece) else p.directory for p in pieces]
        assert {type(p) for p in pieces} == {SnapshotPiece, LogPiece}
        assert all(Path(p).is_absolute() and Path(p).exists() for p in paths), paths
    assert absolute_snapshots(f" {name}/{snapshot} , ") == str(logs.full / snapshot)
    assert absolute_snapshots("none") == absolute_snapshots("") == "none"
    assert absolute_snapshots("all") == "all"


def test_jobs_over_relative_paths_read_and_write_where_the_driver_is(
    spark: SparkSession, logs: Logs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pruned log's state starts at its snapshot: the snapshot's path reaches a task.
    (tmp_path / "data").symlink_to(logs.pruned, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    chosen = records_as_of(spark, Path("data"))
    assert chosen.snapshot is not None
    result = state(chosen.frame)
    try:
        assert result.to_dict() == state_to_dict(rebuild_image(logs.pruned).image)
        written = write_state(result, Path("state"))
    finally:
        result.unpersist()
    assert written.out == "state" and (tmp_path / "state" / "acls").is_dir()

    snapshot = list_snapshots(logs.pruned)[0].path.name
    frame = read_records(spark, Path("data"), snapshots=f"data/{snapshot}")
    frame.write.parquet(str(tmp_path / "records"))
    assert read_parquet_records(spark, Path("records")).count() == frame.count() > 0
