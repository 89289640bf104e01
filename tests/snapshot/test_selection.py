"""Choosing the snapshot to load: newest valid first, fallbacks with warnings, log start."""

from __future__ import annotations

from pathlib import Path

import pytest

from aclog.snapshot import NoUsableSnapshotError, newest_valid_snapshot
from tests.snapshot.helpers import NEW, OLD, damage, write


def test_the_newest_snapshot_is_loaded_without_warnings(tmp_path: Path) -> None:
    write(tmp_path, OLD, last_offset=10)
    newest = write(tmp_path, NEW, last_offset=20, epoch=2)
    warnings: list[str] = []
    found = newest_valid_snapshot(tmp_path, on_warning=warnings.append)
    assert found == (newest, NEW)
    assert warnings == []


def test_a_corrupt_newest_snapshot_falls_back_to_the_older_one(tmp_path: Path) -> None:
    older = write(tmp_path, OLD, last_offset=10)
    newest = write(tmp_path, NEW, last_offset=20, epoch=2)
    damage(newest.path)
    warnings: list[str] = []
    found = newest_valid_snapshot(tmp_path, on_warning=warnings.append)
    assert found == (older, OLD)
    assert len(warnings) == 1
    assert str(newest.path) in warnings[0]
    assert "checksum mismatch" in warnings[0]
    assert f"loading snapshot {older.path.name} instead" in warnings[0]


def test_when_every_snapshot_is_bad_the_full_log_is_replayed(tmp_path: Path) -> None:
    first = write(tmp_path, OLD, last_offset=10)
    second = write(tmp_path, NEW, last_offset=20)
    damage(second.path)
    first.path.write_bytes(first.path.read_bytes()[:-1])
    warnings: list[str] = []
    assert newest_valid_snapshot(tmp_path, on_warning=warnings.append) is None
    assert len(warnings) == 2
    assert str(second.path) in warnings[0] and "loading the full log instead" in warnings[0]
    assert str(first.path) in warnings[1] and "it is truncated" in warnings[1]
    assert "loading the full log instead" in warnings[1]


def test_no_snapshot_means_replay_the_full_log(tmp_path: Path) -> None:
    warnings: list[str] = []
    assert newest_valid_snapshot(tmp_path, on_warning=warnings.append) is None
    assert warnings == []


def test_at_or_below_picks_the_newest_snapshot_not_after_the_offset(tmp_path: Path) -> None:
    older = write(tmp_path, OLD, last_offset=10)
    write(tmp_path, NEW, last_offset=20)
    assert newest_valid_snapshot(tmp_path, at_or_below=19, on_warning=pytest.fail) == (
        older,
        OLD,
    )
    assert newest_valid_snapshot(tmp_path, at_or_below=10, on_warning=pytest.fail) == (
        older,
        OLD,
    )
    assert newest_valid_snapshot(tmp_path, at_or_below=9, on_warning=pytest.fail) is None


def test_snapshots_the_log_no_longer_continues_from_are_not_used(tmp_path: Path) -> None:
    write(tmp_path, OLD, last_offset=10)
    newest = write(tmp_path, NEW, last_offset=20)
    # The log was cut below the newest snapshot: it starts at 21, so only that one can work.
    found = newest_valid_snapshot(tmp_path, on_warning=pytest.fail, log_start_offset=21)
    assert found == (newest, NEW)
    damage(newest.path)
    with pytest.raises(NoUsableSnapshotError, match="its log starts at offset 21") as caught:
        newest_valid_snapshot(tmp_path, on_warning=pytest.fail, log_start_offset=21)
    assert "checksum mismatch" in str(caught.value)


def test_time_travel_below_the_log_start_is_refused(tmp_path: Path) -> None:
    write(tmp_path, NEW, last_offset=20)
    with pytest.raises(NoUsableSnapshotError, match="corrupt snapshots: none"):
        newest_valid_snapshot(tmp_path, at_or_below=15, on_warning=pytest.fail, log_start_offset=21)


def test_a_snapshot_exactly_at_the_log_start_is_usable(tmp_path: Path) -> None:
    info = write(tmp_path, OLD, last_offset=10)
    assert newest_valid_snapshot(tmp_path, on_warning=pytest.fail, log_start_offset=11) == (
        info,
        OLD,
    )
