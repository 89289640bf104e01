"""Failover time: from the active controller's death to the first committed write of the new
one, with the default heartbeat (500 ms) and election timeout (2 s), on a real clock."""

from __future__ import annotations

import tempfile
import threading
import time

from aclog.controller.controller import Caller, LocalOperator
from aclog.controller.quorum import ControllerNode
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from benchmarks.report import Report, Row

TICK_SECONDS = 0.01


def _binding(i: int) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC,
        f"t{i}",
        PatternType.LITERAL,
        "User:a",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def _one_failover(trial: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        first = ControllerNode(tmp, 1, authorizer=LocalOperator())
        deadline = time.monotonic() + 30
        while not first.is_active:  # the first node wins the first election alone
            assert time.monotonic() < deadline, "no controller became active"
            first.tick()
            time.sleep(TICK_SECONDS)
        first.create_acls([_binding(0)], Caller())
        second = ControllerNode(tmp, 2, authorizer=LocalOperator())
        stop = threading.Event()
        lock = threading.Lock()
        ticking = threading.Thread(target=_tick_forever, args=(second, stop, lock), daemon=True)
        ticking.start()
        for _ in range(50):  # the active heartbeats while the standby follows
            first.tick()
            time.sleep(TICK_SECONDS)
        first.close()  # the active controller dies
        died = time.perf_counter()
        while True:
            assert time.perf_counter() - died < 60, "the standby never took over"
            with lock:
                result = second.create_acls([_binding(trial + 1)], Caller())
            if result[0].error.is_success:
                elapsed = time.perf_counter() - died
                break
            time.sleep(TICK_SECONDS)
        stop.set()
        ticking.join()
        second.close()
        return elapsed


def _tick_forever(node: ControllerNode, stop: threading.Event, lock: threading.Lock) -> None:
    # ControllerNode is single-threaded: ticks and operations take turns under one lock.
    while not stop.is_set():
        with lock:
            node.tick()
        time.sleep(TICK_SECONDS)


def run(report: Report, quick: bool) -> None:
    trials = 1 if quick else 3
    times = sorted(_one_failover(i) for i in range(trials))
    report.add(
        Row(
            "failover",
            "aclog quorum",
            "active dies -> first commit",
            trials,
            "median",
            times[len(times) // 2] * 1000,
            "ms",
            "heartbeat 500 ms, election timeout 2000 ms",
        )
    )
