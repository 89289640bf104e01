"""Taking a shared log over without a lock (README, "Epoch fencing"): one winner per epoch among
racing processes; a takeover fences where the whole batches end, after the claim, so a write
the old leader made meanwhile is committed (race (a)); a claimer deposed while it took over
leaves its segment to the next (race (b)); an old leader's roll at the fence is set aside; a
shared writer that took nothing over appends nothing."""

from __future__ import annotations

import multiprocessing
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import pytest

from aclog.log import DeposedError, FencedEpochError, SegmentedLog
from aclog.log import log as log_module
from aclog.log import takeover as takeover_module
from aclog.log.claims import Fence, claim_epoch, read_claim, read_fence
from aclog.log.reader import read_batches
from aclog.log.segment import list_segments

_fork = multiprocessing.get_context("fork")


def _batches(directory: Path) -> list[tuple[int, int, tuple[bytes, ...]]]:
    return [(b.base_offset, b.epoch, b.values) for b in read_batches(directory, strict=True)]


def _begin_at(barrier: Barrier, directory: str, node: int, results: Any) -> None:
    with SegmentedLog(directory, shared=True) as log:
        barrier.wait(10)
        start = log.begin_epoch(1, node)
        if start is not None:
            log.append([b"leader %d" % node], 1)
        results.put((node, start))


def test_exactly_one_of_racing_processes_takes_an_epoch_over(tmp_path: Path) -> None:
    barrier, results = _fork.Barrier(4), _fork.Queue()
    racers = [
        _fork.Process(target=_begin_at, args=(barrier, str(tmp_path), node, results))
        for node in range(4)
    ]
    for racer in racers:
        racer.start()
    try:
        outcome = dict(results.get(timeout=30) for _ in racers)
    finally:
        for racer in racers:
            racer.join(10)
    winners = [node for node, start in outcome.items() if start is not None]
    assert len(winners) == 1 and outcome[winners[0]] == 0
    assert _batches(tmp_path) == [(0, 1, (b"leader %d" % winners[0],))]


def test_a_write_made_between_the_claim_and_the_read_is_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Race (a): the old leader writes after the claim; finding no fence, it publishes one at
    its own end, and the claimer begins there, not below its write."""
    with SegmentedLog(tmp_path, shared=True) as old, SegmentedLog(tmp_path, shared=True) as new:
        assert old.begin_epoch(1, 1) == 0
        old.append([b"a"], 1)
        real_end = takeover_module._scan_end

        def old_leader_writes_first(directory: Path) -> Any:
            if read_claim(directory, 2) is not None:  # the read after the claim
                with pytest.raises(DeposedError, match="is committed") as deposed:
                    old.append([b"b"], 1)
                assert deposed.value.committed == 1
            return real_end(directory)

        monkeypatch.setattr(takeover_module, "_scan_end", old_leader_writes_first)
        assert new.begin_epoch(2, 2) == 2
        assert read_fence(tmp_path, 2) == Fence(2, 2)
        new.append([b"c"], 2)
        with pytest.raises(FencedEpochError):
            old.append([b"d"], 1)
    assert _batches(tmp_path) == [(0, 1, (b"a",)), (1, 1, (b"b",)), (2, 2, (b"c",))]


def test_a_claimer_deposed_while_it_took_over_leaves_its_segment_to_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Race (b): epoch 3 is claimed while the claimer of 2 creates its segment; it appends
    nothing, and a later claimer begins at the same offset in a segment of its own."""
    with SegmentedLog(tmp_path, shared=True) as old:
        assert old.begin_epoch(1, 1) == 0
        old.append([b"a"], 1)
    real_segment = log_module.new_segment

    def claimed_meanwhile(directory: Path, fence: Fence, *, fsync: bool) -> Any:
        segment = real_segment(directory, fence, fsync=fsync)
        assert claim_epoch(directory, 3, 3)  # and its claimer froze for good
        return segment

    with SegmentedLog(tmp_path, shared=True) as late, SegmentedLog(tmp_path, shared=True) as new:
        monkeypatch.setattr(log_module, "new_segment", claimed_meanwhile)
        assert late.begin_epoch(2, 2) is None
        with pytest.raises(FencedEpochError):
            late.append([b"stale"], 2)
        monkeypatch.undo()
        assert new.begin_epoch(4, 4) == 1
        new.append([b"b"], 4)
    assert _batches(tmp_path) == [(0, 1, (b"a",)), (1, 4, (b"b",))]


def test_an_old_leaders_roll_at_the_fence_is_set_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old leader rolls at the fence and writes there before the claimer creates its
    segment: its batch is fenced (refused), and the claimer renames that file aside."""
    real_segment = log_module.new_segment
    with SegmentedLog(tmp_path, shared=True, segment_bytes=100) as old:
        assert old.begin_epoch(1, 1) == 0
        old.append([b"a" * 60], 1)

        def old_leader_rolls_first(directory: Path, fence: Fence, *, fsync: bool) -> Any:
            with pytest.raises(DeposedError, match="offsets 1 and after") as deposed:
                old.append([b"b" * 60], 1)  # rolls to segment 1 and writes there
            assert deposed.value.committed == 0
            return real_segment(directory, fence, fsync=fsync)

        with SegmentedLog(tmp_path, shared=True) as new:
            monkeypatch.setattr(log_module, "new_segment", old_leader_rolls_first)
            assert new.begin_epoch(2, 2) == 1
            new.append([b"c"], 2)
    aside = tmp_path / "00000000000000000001.log.fenced-by-epoch-0000000002"
    assert aside.stat().st_size > 0  # kept for an operator; no reader opens it
    assert [base for base, _ in list_segments(tmp_path)] == [0, 1]
    assert _batches(tmp_path) == [(0, 1, (b"a" * 60,)), (1, 2, (b"c",))]


def test_a_shared_writer_that_took_nothing_over_appends_nothing(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, shared=True) as log, pytest.raises(FencedEpochError):
        log.append([b"a"], 1)
    assert _batches(tmp_path) == []
