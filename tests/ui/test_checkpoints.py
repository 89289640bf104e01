"""The states the UI keeps every so many records (:mod:`aclog.ui.checkpoints`): each is the
state replay gives at its offset, a step to a moment starts from the nearest one at or below
it (so it replays at most that many records, no rebuild from the log's start), a log that
did not only grow does not use them, and a slow request hands malloc's free pages back
(:mod:`aclog.ui.memory`), the warm thread works the Lint view's findings out first, and a
diff waits for it."""

from __future__ import annotations

import gc
import itertools
import threading
import time
from pathlib import Path

import pytest

from aclog.replay import Point, read_decoded, rebuild_image
from aclog.ui import checkpoints, memory, source
from aclog.ui.checkpoints import Checkpoints
from aclog.ui.memory import released_when_slow
from aclog.ui.source import LogSource
from tests.pipeline.logs import write_log


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("checkpoints")
    write_log(directory, seed=5, steps=60, snapshot_at=(30,))
    return directory


def test_each_kept_state_is_the_state_replay_gives_there(log_dir: Path) -> None:
    kept: Checkpoints[int] = Checkpoints(log_dir, every=7)
    end = rebuild_image(log_dir).image.provenance.last_offset
    kept.build(1, end)
    offsets = [batch.last_offset for batch in read_decoded(log_dir)]
    widest = max(b - a for a, b in itertools.pairwise(offsets))
    seen = []
    for at in range(end + 1):
        found = kept.nearest(at, lambda stamp: stamp == 1)
        if found is None:
            continue
        last = found.provenance.last_offset
        assert last <= at and at - last < 7 + widest
        assert found == rebuild_image(log_dir, at_offset=last).image
        seen.append(last)
    assert len(set(seen)) >= end // 7 - 1
    assert kept.nearest(end, lambda stamp: stamp == 2) is None  # another log's states


def test_a_step_starts_from_a_checkpoint_not_from_the_log_start(
    log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "EVERY", 5)
    logs = LogSource(log_dir)
    logs.warm()
    offsets = [batch.last_offset for batch in read_decoded(log_dir)]
    middle = offsets[len(offsets) // 2]
    expected = rebuild_image(log_dir, at_offset=middle).image

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("rebuilt from a snapshot or the log's start")

    monkeypatch.setattr(source, "rebuild_image", refused)
    assert logs.state(at_offset=middle) == expected


def test_a_slow_block_hands_free_pages_back_and_a_fast_one_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(memory, "release_freed_heap", lambda: calls.append("trim"))
    with released_when_slow():
        pass
    assert calls == []
    with released_when_slow():
        time.sleep(memory.SLOW_S * 1.5)
    assert calls == ["trim"]


def test_the_warm_thread_works_out_the_lint_of_the_end_state_first(
    log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = LogSource(log_dir)
    logs.warm()

    def refused(*args: object) -> None:
        raise AssertionError("the findings were worked out again")

    monkeypatch.setattr(source, "lint_image", refused)
    assert "findings" in logs.lint(None, None)


def test_a_diff_waits_for_the_warm_build_under_way(
    log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both make hundreds of MB of temporaries at 1M ACLs: run together, their peaks stack.
    release = threading.Event()
    monkeypatch.setattr(Checkpoints, "build", lambda *args: release.wait(30))
    logs = LogSource(log_dir)
    logs.warm_in_background()
    done: list[object] = []
    asking = threading.Thread(target=lambda: done.append(logs.diff(Point(0), Point())))
    asking.start()
    asking.join(0.5)
    assert not done  # still waiting for the build
    release.set()
    asking.join(30)
    assert done


def test_what_the_warm_thread_built_is_frozen(log_dir: Path) -> None:
    # The findings' and states' objects live as long as the log does not change: left to the
    # collector, each full pass would walk them again (a quarter second at 1M ACLs).
    logs = LogSource(log_dir)
    before = gc.get_freeze_count()
    try:
        logs.warm()
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()
