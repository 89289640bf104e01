"""Epoch claims and fences (issue 35, item 2: leadership a frozen process cannot hold): one
winner per epoch among racing processes, one fence per epoch whoever publishes it, and no
acknowledged write fenced in any order of a leader's writes and acknowledgements and a
claimer's claim and fence, a claimer frozen between the two included."""

from __future__ import annotations

import multiprocessing
import os
import signal
import tempfile
import time
from collections.abc import Callable
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.log import CorruptLogError
from aclog.log.claims import (
    Fence,
    Outcome,
    claim_epoch,
    claim_path,
    claimed_after,
    load_fences,
    newest_claim,
    publish_fence,
    read_claim,
    read_fence,
    settle,
)

_fork = multiprocessing.get_context("fork")


def _claim_at(barrier: Barrier, directory: str, node: int, results: Any) -> None:
    barrier.wait(10)
    results.put((node, claim_epoch(Path(directory), 1, node)))


def _fence_at(barrier: Barrier, directory: str, node: int, results: Any) -> None:
    barrier.wait(10)
    results.put((node, publish_fence(Path(directory), 1, 100 + node)))


def _race(tmp_path: Path, target: Callable[..., None], n: int = 6) -> dict[int, Any]:
    """Run ``target`` in ``n`` processes released together; each one's result by node."""
    barrier, results = _fork.Barrier(n), _fork.Queue()
    racers = [
        _fork.Process(target=target, args=(barrier, str(tmp_path), node, results))
        for node in range(n)
    ]
    for racer in racers:
        racer.start()
    try:
        return dict(results.get(timeout=30) for _ in racers)
    finally:
        for racer in racers:
            racer.join(10)


def test_exactly_one_of_racing_processes_wins_an_epoch(tmp_path: Path) -> None:
    won = _race(tmp_path, _claim_at)
    winners = [node for node, claimed in won.items() if claimed]
    assert len(winners) == 1
    assert read_claim(tmp_path, 1) == newest_claim(tmp_path)
    claim = read_claim(tmp_path, 1)
    assert claim is not None and claim.node_id == winners[0]
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())  # no leftovers


def test_racing_publishers_of_a_fence_all_get_the_first_one(tmp_path: Path) -> None:
    assert claim_epoch(tmp_path, 1, 0)
    fences = _race(tmp_path, _fence_at)
    assert len(set(fences.values())) == 1
    (fence,) = set(fences.values())
    assert fence == read_fence(tmp_path, 1) and fence.offset in range(100, 106)


def _frozen_claimer(directory: str, seen_end: int, results: Any) -> None:
    """Claim epoch 2, freeze (as SIGSTOP would catch it) before fencing, then fence."""
    assert claim_epoch(Path(directory), 2, 7)
    os.kill(os.getpid(), signal.SIGSTOP)
    results.put(publish_fence(Path(directory), 2, seen_end))


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def test_a_claimer_frozen_between_claim_and_fence_leaves_no_write_undecided(
    tmp_path: Path,
) -> None:
    """Race (a): the leader of epoch 1 fsynced a write ending at offset 10 (after the claimer
    saw the log end at 6). It settles the write without waiting for the frozen claimer: it
    publishes the fence from its own end, so the write is committed, and the claimer, thawed,
    begins epoch 2 at that fence rather than its stale end."""
    results = _fork.Queue()
    claimer = _fork.Process(target=_frozen_claimer, args=(str(tmp_path), 6, results))
    claimer.start()
    try:
        deadline = time.monotonic() + 10
        while _state(claimer.pid or 0) != "T":
            assert time.monotonic() < deadline, "the claimer never froze"
            time.sleep(0.01)
        assert claimed_after(tmp_path, 1)
        assert settle(tmp_path, 1, 10) is Outcome.UNDECIDED
        assert publish_fence(tmp_path, 2, 11) == Fence(2, 11)
        assert settle(tmp_path, 1, 10) is Outcome.COMMITTED
        assert settle(tmp_path, 1, 11) is Outcome.FENCED
    finally:
        os.kill(claimer.pid or 0, signal.SIGCONT)
        claimer.join(10)
    assert results.get(timeout=10) == Fence(2, 11)
    fences = load_fences(tmp_path)
    assert not fences.fenced(1, 10) and fences.fenced(1, 11) and not fences.fenced(2, 11)


def test_a_claimer_deposed_while_frozen_learns_it_with_one_stat(tmp_path: Path) -> None:
    """Race (b): a claimer of epoch 2 that wakes after epoch 3 was claimed must abandon its
    segment; the look it makes after creating the segment is :func:`claimed_after`."""
    assert claim_epoch(tmp_path, 1, 1) and claim_epoch(tmp_path, 2, 2)
    assert not claimed_after(tmp_path, 2)
    assert claim_epoch(tmp_path, 3, 3) and not claim_epoch(tmp_path, 3, 2)
    assert claimed_after(tmp_path, 2) and claimed_after(tmp_path, 1)


def test_a_damaged_claim_is_refused_naming_it(tmp_path: Path) -> None:
    assert claim_epoch(tmp_path, 4, 1)
    path = claim_path(tmp_path, 4)
    path.write_bytes(path.read_bytes().replace(b"+", b"-"))
    with pytest.raises(CorruptLogError, match="not a whole claim of epoch 4") as refused:
        read_claim(tmp_path, 4)
    assert str(path) in str(refused.value)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["write", "ack", "claim", "read", "fence"]), max_size=24))
def test_no_order_of_writes_acks_claim_and_fence_fences_an_acknowledged_write(
    steps: list[str],
) -> None:
    """The leader of epoch 1 writes batches (whole in the page cache at once, as a write under
    one ``write`` call is to other processes) and acknowledges each after :func:`settle`; a
    claimer of epoch 2 claims, reads where the log ends, and later (it may freeze in between)
    fences there. In every order, every acknowledged write ends below the fence and every
    refused one is at or above it."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        end, pending, acked, refused = 0, list[int](), list[int](), list[int]()
        seen: int | None = None  # where the claimer read the log's end, after its claim

        def acknowledge() -> None:
            offset = pending.pop(0)
            outcome = settle(directory, 1, offset)
            if outcome is Outcome.UNDECIDED:  # the leader fences from its own end
                publish_fence(directory, 2, end)
                outcome = settle(directory, 1, offset)
            (refused if outcome is Outcome.FENCED else acked).append(offset)

        for step in [*steps, "claim", "read", "fence"]:
            if step == "write":  # a deposed leader writes on, unaware, until it settles
                pending.append(end)
                end += 1
            elif step == "ack" and pending:
                acknowledge()
            elif step == "claim":
                claim_epoch(directory, 2, 2)
            elif step == "read" and read_claim(directory, 2) is not None and seen is None:
                seen = end
            elif step == "fence" and seen is not None:
                publish_fence(directory, 2, seen)
        while pending:
            acknowledge()
        fence = read_fence(directory, 2)
        assert fence is not None
        assert all(offset < fence.offset for offset in acked), (acked, fence)
        assert all(offset >= fence.offset for offset in refused), (refused, fence)
