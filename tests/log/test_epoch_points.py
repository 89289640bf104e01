"""Each epoch's leader keeps a recovery point of its own (README, "Epoch fencing"): a deposed
leader moving its point over its last committed group, in the same instant as the new leader
moves the directory's point past it, never moves the point back; an exclusive writer folds
the epochs' points back into the directory's own file as it opens."""

from __future__ import annotations

import multiprocessing
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

from aclog.log import SegmentedLog, files
from aclog.log.recovery_point import (
    FILE_NAME,
    committed_end,
    point_epochs,
    read_recovery_point,
)

_fork = multiprocessing.get_context("fork")


def _old_leader(directory: str, pipe: Connection) -> None:
    """Lead epoch 1, commit two groups, and freeze just before writing the recovery point
    over the second (after its settle found no newer claim), until the parent says go."""
    real_pwrite = files.pwrite
    armed = [False]

    def frozen_before_the_point(fd: int, data: Any, offset: int, path: Any) -> Any:
        if armed[0] and Path(path).name.startswith("recovery-point"):
            armed[0] = False
            pipe.send("frozen")
            pipe.recv()  # the new leader has taken over and committed meanwhile
        return real_pwrite(fd, data, offset, path)

    with SegmentedLog(directory, shared=True) as log, pytest.MonkeyPatch.context() as patch:
        assert log.begin_epoch(1, 1) == 0
        log.append([b"a"], 1)
        patch.setattr(files, "pwrite", frozen_before_the_point)
        armed[0] = True
        log.append([b"b"], 1)  # committed: whole before the claim
        pipe.send(read_recovery_point(Path(directory)).offset)


def test_a_deposed_leaders_late_point_never_moves_the_directorys_point_back(
    tmp_path: Path,
) -> None:
    parent, child = _fork.Pipe()
    old = _fork.Process(target=_old_leader, args=(str(tmp_path), child))
    old.start()
    try:
        assert parent.poll(30) and parent.recv() == "frozen"
        with SegmentedLog(tmp_path, shared=True) as new:
            assert new.begin_epoch(2, 2) == 2  # fenced after the old leader's second group
            new.append([b"c"], 2)
            new.append([b"d"], 2)
            assert read_recovery_point(tmp_path).offset == 4
            parent.send("go")
            assert parent.poll(30)
            seen_by_the_old_leader = parent.recv()
            assert read_recovery_point(tmp_path).offset == 4  # not 2: never back
            assert committed_end(tmp_path) == 4
            assert seen_by_the_old_leader == 4
    finally:
        old.join(10)
    assert old.exitcode == 0


def test_a_takeover_starts_its_point_at_the_fence_and_removes_older_ones(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, shared=True) as old:
        assert old.begin_epoch(1, 1) == 0
        old.append([b"a"], 1)
        assert point_epochs(tmp_path) == [1]
        with SegmentedLog(tmp_path, shared=True) as new:
            assert new.begin_epoch(2, 2) == 1
            assert point_epochs(tmp_path) == [2]
            point = read_recovery_point(tmp_path)
            assert (point.offset, point.epoch, point.problem) == (1, 1, None)


def test_an_exclusive_writer_folds_the_epochs_points_into_its_own(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, shared=True) as shared:
        assert shared.begin_epoch(1, 1) == 0
        shared.append([b"a"], 1)
        shared.append([b"b"], 1)
    with SegmentedLog(tmp_path) as alone:
        assert point_epochs(tmp_path) == []
        assert read_recovery_point(tmp_path).offset == 2
        alone.append([b"c"], 1)
    assert read_recovery_point(tmp_path).offset == 3
    assert (tmp_path / FILE_NAME).exists()


def test_a_torn_newest_point_reads_as_offset_zero_with_its_name(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, shared=True) as log:
        assert log.begin_epoch(1, 1) == 0
        log.append([b"a"], 1)
    (tmp_path / "recovery-point-epoch-0000000001").write_bytes(b"torn")
    point = read_recovery_point(tmp_path)
    assert point.offset == 0
    assert point.problem is not None and "recovery-point-epoch-0000000001" in point.problem
