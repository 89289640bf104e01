"""Snapshot file names, listing, and the clean-up of temporary files."""

from __future__ import annotations

from pathlib import Path

import pytest

from aclog.snapshot import (
    SnapshotId,
    list_snapshots,
    parse_snapshot_name,
    remove_stale_temp_files,
    snapshot_file_name,
)
from tests.snapshot.helpers import SMALL, write


def test_names_encode_last_offset_and_epoch() -> None:
    assert snapshot_file_name(41, 3) == "00000000000000000041-0000000003.snapshot.avro"
    assert parse_snapshot_name("00000000000000000041-0000000003.snapshot.avro") == (41, 3)
    biggest = snapshot_file_name(2**63 - 1, 2**31 - 1)
    assert parse_snapshot_name(biggest) == (2**63 - 1, 2**31 - 1)


@pytest.mark.parametrize(
    "name",
    [
        "00000000000000000041-0000000003.snapshot.avro.tmp",
        "00000000000000000041.log",
        "0000000000000000041-0000000003.snapshot.avro",
        "00000000000000000041-0000000003.snapshot.avro.bak",
        "x00000000000000000041-0000000003.snapshot.avro",
        "00000000000000000041-0000000003.checkpoint",
    ],
)
def test_other_names_are_not_snapshots(name: str) -> None:
    assert parse_snapshot_name(name) is None


def test_listing_is_by_offset_and_ignores_everything_else(tmp_path: Path) -> None:
    late = write(tmp_path, SMALL, last_offset=200, epoch=2)
    early = write(tmp_path, SMALL, last_offset=9, epoch=1)
    middle = write(tmp_path, [], last_offset=100, epoch=2)
    (tmp_path / "00000000000000000300-0000000002.snapshot.avro.tmp").write_bytes(b"partial")
    (tmp_path / "00000000000000000000.log").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "00000000000000000400-0000000002.snapshot.avro").mkdir()
    assert list_snapshots(tmp_path) == [
        SnapshotId(9, 1, early.path),
        SnapshotId(100, 2, middle.path),
        SnapshotId(200, 2, late.path),
    ]


def test_an_empty_directory_has_no_snapshots(tmp_path: Path) -> None:
    assert list_snapshots(tmp_path) == []


def test_stale_temp_files_are_removed_and_nothing_else(tmp_path: Path) -> None:
    kept = write(tmp_path, SMALL, last_offset=9)
    stale = [
        tmp_path / "00000000000000000020-0000000001.snapshot.avro.tmp",
        tmp_path / "00000000000000000030-0000000002.snapshot.avro.tmp",
    ]
    for path in stale:
        path.write_bytes(b"half a snapshot")
    other = tmp_path / "something.tmp"
    other.write_bytes(b"not ours")
    assert remove_stale_temp_files(tmp_path) == stale
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([kept.path.name, other.name])
    assert remove_stale_temp_files(tmp_path) == []
