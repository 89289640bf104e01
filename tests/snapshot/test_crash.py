"""Crashes around a snapshot write leave a usable directory, and the old snapshots in use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aclog.records import Record
from aclog.snapshot import (
    list_snapshots,
    newest_valid_snapshot,
    read_snapshot,
    remove_stale_temp_files,
    verify_snapshot,
)
from aclog.snapshot.naming import temp_file_name
from tests.snapshot.helpers import SMALL, acl, write

_ROOT = Path(__file__).resolve().parents[2]
_OLDER_THEN_CRASH = """
import os, sys
from aclog.snapshot import write_snapshot
from aclog.snapshot import writer
from tests.snapshot.helpers import SMALL, acl

directory, where = sys.argv[1], sys.argv[2]
write_snapshot(directory, SMALL, last_offset=10, epoch=1, timestamp_ms=1)
if where == "before-rename":
    writer.os.replace = lambda src, dst: os._exit(17)
else:  # in the middle of the records
    original = writer._DataSink.write
    def write_then_die(self, data):
        if self.data_bytes > 20_000:
            os._exit(17)
        return original(self, data)
    writer._DataSink.write = write_then_die
newer = [acl(n) for n in range(2_000)]
write_snapshot(directory, newer, last_offset=20, epoch=2, timestamp_ms=2)
"""


def _crash_while_writing(directory: Path, where: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _OLDER_THEN_CRASH, str(directory), where],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 17, done.stderr


@pytest.mark.parametrize("where", ["before-rename", "mid-write"])
def test_a_crash_while_writing_leaves_the_older_snapshot_in_use(tmp_path: Path, where: str) -> None:
    _crash_while_writing(tmp_path, where)
    temp = tmp_path / temp_file_name(20, 2)
    assert temp.exists()
    [older] = list_snapshots(tmp_path)
    assert older.last_offset == 10
    found = newest_valid_snapshot(tmp_path, on_warning=pytest.fail)
    assert found is not None
    assert found[0].last_offset == 10
    assert found[1] == SMALL
    assert remove_stale_temp_files(tmp_path) == [temp]
    assert sorted(os.listdir(tmp_path)) == [older.path.name]


def test_a_temp_file_complete_but_not_renamed_is_still_never_loaded(tmp_path: Path) -> None:
    _crash_while_writing(tmp_path, "before-rename")
    temp = tmp_path / temp_file_name(20, 2)
    # The write had finished: the file verifies, but only a rename makes it a snapshot.
    assert verify_snapshot(temp).record_count == 2_000
    assert [s.last_offset for s in list_snapshots(tmp_path)] == [10]


def test_an_error_while_writing_removes_the_temp_file(tmp_path: Path) -> None:
    older = write(tmp_path, SMALL, last_offset=10)

    def failing() -> list[Record]:
        raise OSError("disk full")

    class Failing:
        def __iter__(self) -> object:
            yield acl(1)
            failing()

    with pytest.raises(OSError, match="disk full"):
        write(tmp_path, Failing(), last_offset=20)  # type: ignore[arg-type]
    assert os.listdir(tmp_path) == [older.path.name]
    assert list(read_snapshot(older.path).records()) == SMALL
