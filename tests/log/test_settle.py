"""A shared writer settles each group after its fsync (README, "Epoch fencing"): without a claim
of the next epoch it is acknowledged; with a fence, the batches ending below it are committed,
the rest are refused and never part of the log, and the writer is deposed; with a claim but no
fence yet, the writer fences at its own end itself; a roll onto a newer leader's segment is
refused as a deposition, not a storage failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from aclog.log import DeposedError, FencedEpochError, SegmentedLog, StorageError
from aclog.log.appends import BatchSpec
from aclog.log.claims import Fence, claim_epoch, publish_fence, read_fence
from aclog.log.reader import read_batches
from aclog.log.recovery_point import read_recovery_point
from aclog.log.segment import segment_file_name


def _offsets(directory: Path) -> list[tuple[int, int]]:
    return [(b.base_offset, b.epoch) for b in read_batches(directory)]


def test_a_group_settles_as_leading_without_a_newer_claim(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, shared=True) as log:
        assert log.begin_epoch(1, 1) == 0
        log.append([b"a"], 1)
        log.append([b"b"], 1)
    assert _offsets(tmp_path) == [(0, 1), (1, 1)]
    assert read_recovery_point(tmp_path).offset == 2


def test_a_group_above_a_newer_fence_is_refused_and_never_part_of_the_log(
    tmp_path: Path,
) -> None:
    with SegmentedLog(tmp_path, shared=True) as log:
        assert log.begin_epoch(1, 1) == 0
        log.append([b"a"], 1)
        assert claim_epoch(tmp_path, 2, 2) and publish_fence(tmp_path, 2, 1) == Fence(2, 1)
        with pytest.raises(DeposedError, match="offsets 1 and after") as deposed:
            log.append_batches([BatchSpec([b"b"], 1), BatchSpec([b"c"], 1)])
        assert deposed.value.committed == 0
        assert read_recovery_point(tmp_path).offset == 1  # never moved over fenced bytes
        with pytest.raises(FencedEpochError):
            log.append([b"d"], 1)  # deposed: its epoch is refused from now on
    assert _offsets(tmp_path) == [(0, 1)]


def test_the_batches_of_a_group_below_the_fence_are_committed(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, shared=True) as log:
        assert log.begin_epoch(1, 1) == 0
        log.append([b"a"], 1)
        # The claimer read the log to offset 1 (the group's first batch) and fenced at 2.
        assert claim_epoch(tmp_path, 2, 2) and publish_fence(tmp_path, 2, 2) == Fence(2, 2)
        with pytest.raises(DeposedError) as deposed:
            log.append_batches([BatchSpec([b"b"], 1), BatchSpec([b"c"], 1)])
        assert deposed.value.committed == 1
        assert read_recovery_point(tmp_path).offset == 2
    assert _offsets(tmp_path) == [(0, 1), (1, 1)]


def test_a_claim_without_a_fence_is_fenced_by_the_writer_at_its_own_end(tmp_path: Path) -> None:
    """Race (a): the claimer froze between its claim and its fence; the writer does not wait
    for it: its group is committed, and the fence it publishes is where epoch 2 begins."""
    with SegmentedLog(tmp_path, shared=True) as log:
        assert log.begin_epoch(1, 1) == 0
        log.append([b"a"], 1)
        assert claim_epoch(tmp_path, 2, 2)
        with pytest.raises(DeposedError, match="is committed") as deposed:
            log.append_batches([BatchSpec([b"b"], 1), BatchSpec([b"c"], 1)])
        assert deposed.value.committed == 2
    assert read_fence(tmp_path, 2) == Fence(2, 3)
    assert _offsets(tmp_path) == [(0, 1), (1, 1), (2, 1)]
    assert read_recovery_point(tmp_path).offset == 3


def test_a_roll_onto_a_newer_leaders_segment_deposes_the_writer(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, shared=True, segment_bytes=100) as log:
        assert log.begin_epoch(1, 1) == 0
        log.append([b"a" * 60], 1)
        (tmp_path / segment_file_name(1)).touch(mode=0o600)
        with pytest.raises(DeposedError, match="newer leader's segment") as deposed:
            log.append([b"b" * 60], 1)
        assert deposed.value.committed == 0
    assert _offsets(tmp_path) == [(0, 1)]


def test_an_exclusive_writer_finding_its_next_segment_taken_reports_storage(
    tmp_path: Path,
) -> None:
    with SegmentedLog(tmp_path, segment_bytes=100) as log:
        log.append([b"a" * 60], 1)
        (tmp_path / segment_file_name(1)).touch(mode=0o600)
        with pytest.raises(StorageError, match="File exists"):
            log.append([b"b" * 60], 1)
