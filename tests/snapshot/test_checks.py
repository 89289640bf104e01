"""Each snapshot of a directory verified once, for ``aclog snapshot list`` and ``verify``: a
good one with its info, a damaged one with the error naming it, oldest first, and the rows
``snapshot list --json`` prints from them."""

from __future__ import annotations

from pathlib import Path

from aclog.snapshot import SnapshotCorruptError, check_snapshots
from tests.snapshot.helpers import SMALL, write


def test_each_snapshot_is_verified_oldest_first(tmp_path: Path) -> None:
    newer = write(tmp_path, SMALL, last_offset=41, epoch=3)
    older = write(tmp_path, SMALL, last_offset=7, epoch=1)
    data = newer.path.read_bytes()
    newer.path.write_bytes(data[: len(data) // 2])  # torn: the newest does not verify
    (tmp_path / "00000000000000000050-0000000003.snapshot.avro.tmp").write_bytes(b"partial")

    checks = check_snapshots(tmp_path)

    assert [c.snapshot.path for c in checks] == [older.path, newer.path]
    good, bad = checks
    assert (good.valid, good.error, good.to_dict()) == (
        True,
        None,
        {**older.to_dict(), "valid": True},
    )
    assert not bad.valid and bad.info is None
    assert isinstance(bad.error, SnapshotCorruptError)
    assert str(newer.path) in str(bad.error)
    assert bad.to_dict() == {
        "path": str(newer.path),
        "last_offset": 41,
        "epoch": 3,
        "valid": False,
        "error": str(bad.error),
    }


def test_a_directory_without_snapshots_has_nothing_to_check(tmp_path: Path) -> None:
    assert check_snapshots(tmp_path) == []
