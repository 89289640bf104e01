"""Writing and reading snapshots: round trips, header metadata, plain Avro readability."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fastavro
import pytest
from hypothesis import given, settings

from aclog.records import (
    AccessControlEntryRecord,
    Record,
    RemoveAccessControlEntryRecord,
    UserScramCredentialRecord,
)
from aclog.snapshot import (
    SNAPSHOT_RECORD_TYPES,
    SnapshotCorruptError,
    list_snapshots,
    read_snapshot,
    verify_snapshot,
    write_snapshot,
)
from aclog.snapshot import header as header_module
from aclog.snapshot import reader as reader_module
from aclog.snapshot import writer as writer_module
from tests.snapshot.helpers import SMALL, acl, scram, snapshot_records, write


@settings(max_examples=60, deadline=None)
@given(records=snapshot_records)
def test_round_trip_keeps_every_record_in_order(records: list[Record]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        info = write(Path(tmp), records, last_offset=99, epoch=4)
        reader = read_snapshot(info.path)
        assert list(reader.records()) == records
        assert reader.info == info
        assert info.record_counts == {
            "AccessControlEntryRecord": sum(
                isinstance(r, AccessControlEntryRecord) for r in records
            ),
            "UserScramCredentialRecord": sum(
                isinstance(r, UserScramCredentialRecord) for r in records
            ),
        }


def test_empty_snapshot_round_trips(tmp_path: Path) -> None:
    info = write(tmp_path, [], last_offset=0, epoch=0)
    assert info.record_count == 0
    assert info.record_counts == {"AccessControlEntryRecord": 0, "UserScramCredentialRecord": 0}
    assert list(read_snapshot(info.path).records()) == []
    assert verify_snapshot(info.path) == info


def test_header_metadata_holds_provenance_counts_and_versions(tmp_path: Path) -> None:
    info = write_snapshot(
        tmp_path, SMALL, last_offset=41, epoch=3, timestamp_ms=1_234_567, fsync=True
    )
    assert info.path == tmp_path / "00000000000000000041-0000000003.snapshot.avro"
    assert (info.last_offset, info.epoch, info.timestamp_ms) == (41, 3, 1_234_567)
    assert info.size == info.path.stat().st_size
    with open(info.path, "rb") as file:
        metadata = fastavro.reader(file).metadata
    assert metadata["aclog.format"] == "2"
    assert metadata["aclog.last_offset"] == "41"
    assert metadata["aclog.epoch"] == "3"
    assert metadata["aclog.timestamp_ms"] == "1234567"
    assert json.loads(metadata["aclog.record_counts"]) == {
        "AccessControlEntryRecord": 9,
        "UserScramCredentialRecord": 2,
    }
    assert json.loads(metadata["aclog.schema_versions"]) == {
        "AccessControlEntryRecord": 0,
        "UserScramCredentialRecord": 0,
    }
    assert metadata["aclog.crc32c"] == f"{info.crc32c:08x}"
    assert metadata["avro.codec"] == "null"
    assert int(metadata["aclog.data_bytes"]) < info.size
    assert info.to_dict()["crc32c"] == metadata["aclog.crc32c"]


def test_a_plain_avro_reader_sees_named_fields(tmp_path: Path) -> None:
    info = write(tmp_path, SMALL, last_offset=5, rows=True)
    with open(info.path, "rb") as file:
        rows: list[Any] = list(fastavro.reader(file, return_record_name=True))
    assert [name for name, _ in rows] == ["aclog.records.AccessControlEntryRecord"] * 9 + [
        "aclog.records.UserScramCredentialRecord"
    ] * 2
    first = rows[0][1]
    assert first["resource_name"] == "orders-0"
    assert first["principal"] == "User:svc-0"
    assert first["id"] == acl(0).id.bytes
    assert rows[8][1]["resource_name"] == "tøpic-ß-日本-8"
    assert rows[10][1]["name"] == "bøb"
    assert rows[10][1]["iterations"] == 8192


def test_records_may_come_from_a_generator(tmp_path: Path) -> None:
    def generate() -> Iterator[Record]:
        yield from SMALL

    info = write(tmp_path, generate(), last_offset=7)  # type: ignore[arg-type]
    assert list(read_snapshot(info.path).records()) == SMALL


def test_records_can_be_read_more_than_once(tmp_path: Path) -> None:
    reader = read_snapshot(write(tmp_path, SMALL, last_offset=7).path)
    assert list(reader.records()) == list(reader.records()) == SMALL


def test_a_record_type_outside_snapshots_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    records: list[Record] = [acl(1), RemoveAccessControlEntryRecord(acl(1).id)]
    with pytest.raises(ValueError, match="not RemoveAccessControlEntryRecord"):
        write(tmp_path, records, last_offset=3)
    assert os.listdir(tmp_path) == []
    assert set(SNAPSHOT_RECORD_TYPES) == {AccessControlEntryRecord, UserScramCredentialRecord}


@pytest.mark.parametrize(
    ("last_offset", "epoch", "timestamp_ms"), [(-1, 0, 0), (0, -1, 0), (0, 0, -1)]
)
def test_negative_positions_are_refused(
    tmp_path: Path, last_offset: int, epoch: int, timestamp_ms: int
) -> None:
    with pytest.raises(ValueError, match=">= 0"):
        write_snapshot(
            tmp_path, [], last_offset=last_offset, epoch=epoch, timestamp_ms=timestamp_ms
        )
    assert os.listdir(tmp_path) == []


def test_rewriting_the_same_snapshot_replaces_it(tmp_path: Path) -> None:
    write(tmp_path, SMALL, last_offset=7)
    info = write(tmp_path, [scram("carol")], last_offset=7)
    assert [s.path for s in list_snapshots(tmp_path)] == [info.path]
    assert list(read_snapshot(info.path).records()) == [scram("carol")]


def test_a_copy_under_another_name_still_reads(tmp_path: Path) -> None:
    info = write(tmp_path, SMALL, last_offset=7)
    backup = tmp_path / "backup.avro"
    backup.write_bytes(info.path.read_bytes())
    assert list(read_snapshot(backup).records()) == SMALL


def test_a_name_that_disagrees_with_the_header_is_refused(tmp_path: Path) -> None:
    info = write(tmp_path, SMALL, last_offset=7, epoch=2)
    renamed = tmp_path / "00000000000000000009-0000000002.snapshot.avro"
    info.path.rename(renamed)
    with pytest.raises(SnapshotCorruptError, match="its name says offset 9 epoch 2, its header"):
        read_snapshot(renamed)


def test_a_newer_format_is_refused_with_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(header_module, "FORMAT_VERSION", "3")
    info = write(tmp_path, SMALL, last_offset=7)
    monkeypatch.undo()
    with pytest.raises(SnapshotCorruptError, match=r"unknown snapshot format '3'.*upgrade aclog"):
        read_snapshot(info.path)


def test_a_newer_schema_version_is_refused_with_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    versions = {"AccessControlEntryRecord": 3, "UserScramCredentialRecord": 0}
    monkeypatch.setattr(writer_module, "current_schema_versions", lambda: dict(versions))
    info = write(tmp_path, SMALL, last_offset=7)
    monkeypatch.undo()
    with pytest.raises(
        SnapshotCorruptError, match="AccessControlEntryRecord version 3, unknown to this build"
    ):
        read_snapshot(info.path)


def test_older_schema_versions_are_read_through_schema_resolution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pretend this build has moved on to ACL v1: the file's v0 records are then resolved
    # against the current union schema instead of being read as written.
    info = write(tmp_path, SMALL, last_offset=7)
    newer = {"AccessControlEntryRecord": 1, "UserScramCredentialRecord": 0}
    monkeypatch.setattr(reader_module, "current_schema_versions", lambda: dict(newer))
    assert list(read_snapshot(info.path).records()) == SMALL


def test_fsync_false_still_writes_a_complete_snapshot(tmp_path: Path) -> None:
    info = write(tmp_path, SMALL, last_offset=7)
    assert verify_snapshot(info.path) == info


def test_records_spanning_many_blocks_come_back_in_order(tmp_path: Path) -> None:
    """Blocks are decoded whole (one fastavro call each): order and counts hold across them."""
    records: list[Record] = [acl(i) if i % 7 else scram(f"user-{i}") for i in range(3000)]
    info = write(tmp_path, records, last_offset=5, epoch=1)
    assert list(read_snapshot(info.path).records()) == records


def test_a_file_of_other_schema_versions_is_resolved_to_the_current_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A header whose schema versions are not this build's makes the reader resolve the file's
    schema to the current one (the path an older snapshot takes)."""
    records: list[Record] = [acl(i) if i % 3 else scram(f"user-{i}") for i in range(600)]
    info = write(tmp_path, records, last_offset=5, epoch=1)
    monkeypatch.setattr(reader_module, "current_schema_versions", lambda: {"older": 0})
    assert list(read_snapshot(info.path).records()) == records
