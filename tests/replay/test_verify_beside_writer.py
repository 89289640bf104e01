"""``verify`` beside a writer: a batch half-written when verify reads the end of the log is a
write in progress, not a torn tail, once it completes within the settle time; a tail that
stays torn is still a problem."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from aclog.log import SegmentedLog
from aclog.records import NoOpRecord, encode
from aclog.replay.verify import verify_directory


def _segment(directory: Path) -> Path:
    return next(directory.glob("*.log"))


def _half_written(tmp_path: Path) -> tuple[Path, bytes]:
    """A log of one committed batch whose segment ends with the first half of a second one
    (as a writer leaves it mid-append); the missing half."""
    whole, target = tmp_path / "whole", tmp_path / "log"
    with SegmentedLog(target, fsync=False) as log:
        log.append([encode(NoOpRecord())], epoch=1, timestamp_ms=1_000)
    shutil.copytree(target, whole)
    with SegmentedLog(whole, fsync=False) as log:
        log.append([encode(NoOpRecord()), encode(NoOpRecord())], epoch=1, timestamp_ms=2_000)
    committed = _segment(target).stat().st_size
    second = _segment(whole).read_bytes()[committed:]
    with open(_segment(target), "ab") as file:
        file.write(second[: len(second) // 2])
    return target, second[len(second) // 2 :]


def test_a_write_completed_while_verify_waits_is_no_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target, rest = _half_written(tmp_path)

    def writer_finishes(seconds: float) -> None:
        with open(_segment(target), "ab") as file:
            file.write(rest)

    monkeypatch.setattr(time, "sleep", writer_finishes)  # the writer completes meanwhile
    report = verify_directory(target)
    assert report.ok, report.problems
    assert (report.batches, report.records) == (2, 3)


def test_a_tail_that_stays_torn_is_a_problem(tmp_path: Path) -> None:
    target, _ = _half_written(tmp_path)
    report = verify_directory(target)
    assert not report.ok
    assert any("not a whole batch" in p for p in report.problems)
    assert report.batches == 1
