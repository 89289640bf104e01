"""Snapshot formats: format 2 (ACLs in column chunks) is written, format 1 (one row per record)
is written on request, and both are read, including files written by earlier builds."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import fastavro
import pytest
from hypothesis import given, settings

from aclog.records import Record
from aclog.snapshot import SnapshotCorruptError, read_snapshot, verify_snapshot
from aclog.snapshot import reader as reader_module
from aclog.snapshot import writer as writer_module
from aclog.snapshot.acl_columns import CHUNK_ACLS, encode_chunk
from tests.snapshot.helpers import SMALL, acl, scram, snapshot_records, write

GOLDEN = Path(__file__).parent / "golden"
# SMALL written at offset 41, epoch 3 by the build before format 2 existed (format 1), and by
# the first build that wrote format 2. Neither may ever stop loading.
GOLDEN_FILES = {
    "1": GOLDEN / "format-1-small.snapshot.avro",
    "2": GOLDEN / "format-2-small.snapshot.avro",
}


@pytest.mark.parametrize("format_version", ["1", "2"])
def test_golden_snapshots_of_every_format_still_load(format_version: str, tmp_path: Path) -> None:
    path = tmp_path / "00000000000000000041-0000000003.snapshot.avro"
    shutil.copy(GOLDEN_FILES[format_version], path)
    reader = read_snapshot(path)
    assert reader.format_version == format_version
    assert list(reader.records()) == SMALL
    info = verify_snapshot(path)
    assert (info.last_offset, info.epoch, info.timestamp_ms) == (41, 3, 1_700_000_000_041)
    assert info.record_counts == {"AccessControlEntryRecord": 9, "UserScramCredentialRecord": 2}


def test_a_format_1_golden_snapshot_cut_anywhere_is_detected(tmp_path: Path) -> None:
    data = GOLDEN_FILES["1"].read_bytes()
    path = tmp_path / "cut.avro"
    for length in range(0, len(data), 7):
        path.write_bytes(data[:length])
        with pytest.raises(SnapshotCorruptError):
            verify_snapshot(path)


@settings(max_examples=40, deadline=None)
@given(records=snapshot_records)
def test_both_formats_round_trip_every_record_in_order(records: list[Record]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rows = write(Path(tmp), records, last_offset=1, rows=True)
        columns = write(Path(tmp), records, last_offset=2)
        assert read_snapshot(rows.path).format_version == "1"
        assert read_snapshot(columns.path).format_version == "2"
        assert list(read_snapshot(rows.path).records()) == records
        assert list(read_snapshot(columns.path).records()) == records
        assert read_snapshot(columns.path).read_all() == records
        assert rows.record_counts == columns.record_counts


def test_a_plain_avro_reader_sees_named_columns_per_chunk(tmp_path: Path) -> None:
    info = write(tmp_path, SMALL, last_offset=5)
    with open(info.path, "rb") as file:
        rows: list[Any] = list(fastavro.reader(file, return_record_name=True))
    assert [name for name, _ in rows] == [
        "aclog.snapshot.AclColumns",
        "aclog.records.UserScramCredentialRecord",
        "aclog.records.UserScramCredentialRecord",
    ]
    chunk = rows[0][1]
    assert chunk["count"] == 9
    assert chunk["id"][:16] == acl(0).id.bytes
    assert b"User:svc-0" in chunk["strings"]
    assert rows[2][1]["name"] == "bøb"


def test_long_runs_of_acls_are_cut_into_chunks_and_keep_their_order(tmp_path: Path) -> None:
    records: list[Record] = [
        *(acl(n) for n in range(2 * CHUNK_ACLS + 5)),
        scram("alice"),
        *(acl(n, "late") for n in range(3)),
    ]
    info = write(tmp_path, records, last_offset=9)
    with open(info.path, "rb") as file:
        rows: list[Any] = list(fastavro.reader(file, return_record_name=True))
    items = [(name, fields.get("count")) for name, fields in rows]
    assert items == [
        ("aclog.snapshot.AclColumns", CHUNK_ACLS),
        ("aclog.snapshot.AclColumns", CHUNK_ACLS),
        ("aclog.snapshot.AclColumns", 5),
        ("aclog.records.UserScramCredentialRecord", None),
        ("aclog.snapshot.AclColumns", 3),
    ]
    assert list(read_snapshot(info.path).records()) == records


def test_a_chunk_whose_columns_do_not_fit_is_reported_as_corrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The checksum is right (the writer itself wrote the bad chunk): decoding must catch it.
    def bad_chunk(acls: list[Any]) -> dict[str, Any]:
        fields = encode_chunk(acls)
        fields["id"] = fields["id"][:-1]
        return fields

    monkeypatch.setattr(writer_module, "encode_chunk", bad_chunk)
    info = write(tmp_path, SMALL, last_offset=7)
    monkeypatch.undo()
    with pytest.raises(SnapshotCorruptError, match=r"a record cannot be decoded.*column id"):
        verify_snapshot(info.path)


def test_a_chunk_that_disagrees_with_the_header_counts_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def short_chunk(acls: list[Any]) -> dict[str, Any]:
        return encode_chunk(acls[:-1])

    monkeypatch.setattr(writer_module, "encode_chunk", short_chunk)
    info = write(tmp_path, SMALL, last_offset=7)
    monkeypatch.undo()
    with pytest.raises(SnapshotCorruptError, match="holds 8 AccessControlEntryRecord records"):
        verify_snapshot(info.path)


def test_older_schema_versions_of_format_1_are_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records: list[Record] = [acl(i) if i % 3 else scram(f"user-{i}") for i in range(600)]
    info = write(tmp_path, records, last_offset=5, rows=True)
    monkeypatch.setattr(reader_module, "current_schema_versions", lambda: {"older": 0})
    assert list(read_snapshot(info.path).records()) == records
