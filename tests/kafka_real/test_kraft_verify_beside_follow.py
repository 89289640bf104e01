"""``aclog verify`` is a read, so it is safe beside a running writer: run again and again beside
an ``import --from-kraft --follow`` of a real broker's live metadata directory (which appends a
batch every time KRaft commits one: its NoOps every 500 ms and the ACL changes made meanwhile
with ``kafka-acls.sh``), it must report a consistent point every single time. On a large log
the two replays verify compares are seconds apart; a delay before each stands in for that."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import aclog.replay.verify
from tests.kafka_real.kraft_live import (
    Follower,
    acl_tool,
    caught_up,
    eventually,
    expected_exit,
)
from tests.real_kafka import KafkaBroker, unique
from tests.tools.harness import run_main

RUNS = 20  # each run is a chance for an append to land between verify's two replays
DEADLINE_S = 30.0
REPLAY_DELAY_S = 0.3  # KRaft commits a NoOp every 500 ms: most runs see one land meanwhile


def _changes(broker: KafkaBroker, seed: int, stop: threading.Event) -> None:
    """Add then remove a few ACLs with Kafka's own tool while verify runs."""
    rng = random.Random(seed)
    topic, principal = unique("verify-race"), f"User:{unique('racer')}"
    operations = rng.sample(["Read", "Write", "Describe", "Create", "Delete"], 3)
    for operation in operations:
        if stop.is_set():
            break
        acl_tool(broker, "--add", "--allow-principal", principal, "--operation", operation,
                 "--topic", topic)  # fmt: skip
    acl_tool(broker, "--remove", "--force", "--topic", topic)


def _slow_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    rebuild = aclog.replay.verify.rebuild_image

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(REPLAY_DELAY_S)
        return rebuild(*args, **kwargs)

    monkeypatch.setattr(aclog.replay.verify, "rebuild_image", slow)


def test_verify_beside_a_following_import_passes_every_time(
    kafka_broker: KafkaBroker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _slow_replays(monkeypatch)
    target = tmp_path / "aclog"
    follower = Follower(tmp_path, kafka_broker.metadata_dir, target, "--interval", "0.05s")
    stop = threading.Event()
    changer = threading.Thread(target=_changes, args=(kafka_broker, 34, stop), daemon=True)
    try:
        assert eventually(caught_up(follower)), follower.stderr()
        assert follower.process.poll() is None, follower.stderr()
        changer.start()
        failures, runs, deadline = [], 0, time.monotonic() + DEADLINE_S
        while runs < RUNS and time.monotonic() < deadline:
            verified = run_main("verify", "--data-dir", str(target))
            runs += 1
            if verified.code != 0:
                failures.append(verified.stderr)
        stop.set()
        changer.join(timeout=60)
    finally:
        code = follower.stop()
    assert code == expected_exit(follower.lines()[-1]), follower.stderr()
    assert runs >= 10 and failures == [], f"{len(failures)} of {runs} runs failed: {failures[:2]}"
    assert len(follower.lines()) > runs // 10  # the follower did append while verify ran
