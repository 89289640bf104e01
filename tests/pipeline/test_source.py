"""The ``aclog`` data source: every record, decoded by the one decoder, split without loss."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from aclog.pipeline.load import read_records
from aclog.pipeline.pieces import plan_pieces
from aclog.pipeline.schema import COLUMN_NAMES, RECORD_SCHEMA
from aclog.pipeline.source import read_log_rows, read_snapshot_rows
from aclog.replay.stream import read_decoded
from aclog.snapshot import list_snapshots, read_snapshot
from tests.pipeline.conftest import Logs
from tests.pipeline.logs import write_log

_DATA_COLUMNS = {
    "id": "acl_id",
    "resource_type": "resource_type",
    "resource_name": "resource_name",
    "pattern_type": "pattern_type",
    "principal": "principal",
    "host": "host",
    "operation": "operation",
    "permission_type": "permission_type",
    "name": "user",
    "mechanism": "mechanism",
    "iterations": "iterations",
    "leader_id": "leader_id",
}
_ACL = "AccessControlEntryRecord"
_AUTHOR_COLUMNS = {
    "principal": "author_principal",
    "client_address": "author_address",
    "client_id": "author_client_id",
    "api": "author_api",
}


def _expected(directory: Path) -> list[dict[str, Any]]:
    """Every record as ``aclog dump --json`` shows it, mapped to the source's columns."""
    rows = []
    for batch in read_decoded(directory):
        for entry in batch.entries:
            shown = entry.to_dict()
            row: dict[str, Any] = dict.fromkeys(COLUMN_NAMES)
            row.update(
                offset=entry.offset,
                epoch=entry.epoch,
                timestamp_ms=entry.timestamp_ms,
                batch_base_offset=entry.batch_base_offset,
                batch_last_offset=batch.last_offset,
                source="log",
                position=entry.offset - entry.batch_base_offset,
                type=shown["type"],
                type_code=int(entry.record_type),
                version=entry.version,
            )
            for key, column in _AUTHOR_COLUMNS.items():
                row[column] = shown.get("author", {}).get(key)
            for key, value in shown["data"].items():
                if key in ("salt", "stored_key", "server_key"):
                    assert value == "(redacted)"
                elif key in _DATA_COLUMNS and not (
                    key == "principal" and row["type"] != "AccessControlEntryRecord"
                ):
                    row[_DATA_COLUMNS[key]] = value
            rows.append(row)
    return rows


def _collected(frame: Any) -> list[dict[str, Any]]:
    frame = frame.withColumn("timestamp", F.unix_millis("timestamp"))
    return [row.asDict() for row in frame.orderBy("offset").collect()]


def test_every_record_matches_the_decoder_with_no_secret_columns(
    spark: SparkSession, logs: Logs
) -> None:
    frame = read_records(spark, logs.full)
    assert frame.schema == RECORD_SCHEMA
    assert not {"salt", "stored_key", "server_key"} & set(frame.columns)
    got = _collected(frame)
    expected = _expected(logs.full)
    for row in expected:
        row["timestamp"] = row["timestamp_ms"]
    assert got == expected
    assert {r["type"] for r in got} >= {
        "AccessControlEntryRecord",
        "RemoveAccessControlEntryRecord",
        "UserScramCredentialRecord",
        "RequestContextRecord",
        "LeaderChangeRecord",
    }


def test_rows_without_arrow_and_snapshot_partitions(spark: SparkSession, logs: Logs) -> None:
    snapshots = list_snapshots(logs.full)
    frame = read_records(spark, logs.full, snapshots="all", arrow=False)
    log_rows = frame.filter(F.col("source") == "log")
    assert _collected(log_rows) == _collected(read_records(spark, logs.full))
    snapshot_rows = frame.filter(F.col("source") == "snapshot").orderBy("offset", "position")
    expected = [row for s in snapshots for row in read_snapshot_rows(str(s.path))]
    assert [
        (r["offset"], r["position"], r["type"], r["acl_id"], r["user"], r["iterations"])
        for r in snapshot_rows.collect()
    ] == [(e[0], e[7], e[8], e[15], e[23], e[25]) for e in expected]
    # The snapshot rows carry what the header says.
    info = read_snapshot(snapshots[0].path).info
    first = snapshot_rows.filter(F.col("offset") == info.last_offset).first()
    assert first is not None
    assert (first["epoch"], first["timestamp_ms"]) == (info.epoch, info.timestamp_ms)


def test_split_segments_lose_and_repeat_nothing(tmp_path: Path) -> None:
    write_log(tmp_path, seed=5, steps=120, segment_bytes=1 << 20)
    pieces = plan_pieces(tmp_path, split_bytes=4096)
    assert len(pieces) > 3
    offsets = [row[0] for piece in pieces for row in read_log_rows(piece)]
    expected = [e.offset for b in read_decoded(tmp_path) for e in b.entries]
    assert offsets == expected
    # A start offset inside the log skips whole pieces and the records before it.
    start = expected[len(expected) // 2] + 1
    later = plan_pieces(tmp_path, split_bytes=4096, from_offset=start)
    assert [row[0] for piece in later for row in read_log_rows(piece)] == [
        o for o in expected if o >= start
    ]


def test_a_narrower_schema_reads_those_columns_of_every_record(
    spark: SparkSession, logs: Logs
) -> None:
    columns = ["acl_id", "offset", "timestamp", "author_principal", "user", "type"]
    narrow = read_records(spark, logs.full, snapshots="all", columns=columns)
    assert narrow.columns == columns
    full = read_records(spark, logs.full, snapshots="all").select(*columns)
    order = ["offset", "type", "acl_id", "user"]
    assert narrow.orderBy(*order).collect() == full.orderBy(*order).collect()


def test_a_schema_the_source_cannot_produce_fails(spark: SparkSession, logs: Logs) -> None:
    frame = spark.read.format("aclog").schema("offset long, salt binary").load(str(logs.full))
    try:
        frame.count()
    except Exception as error:  # Spark wraps the planner's ValueError
        assert "no column salt" in str(error)
    else:
        raise AssertionError("a column the source lacks was accepted")
