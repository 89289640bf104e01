"""Failover time: from the active controller's death to the first committed write of the new
one, with the default heartbeat (500 ms) and election timeout (2 s), on a real clock.

Two measurements: ``ControllerNode`` s in this process (the active one is closed), and two
``aclog serve --controller`` processes on one data directory (the active one is SIGKILLed, then
CreateAcls is sent to the standby every 20 ms until one commits).
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from aclog.controller.caller import Caller
from aclog.controller.controller import LocalOperator
from aclog.controller.quorum import ControllerNode
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from benchmarks import bench_failover_probe
from benchmarks import wire_clients as wc
from benchmarks.failover_probe import create_acl_request
from benchmarks.report import Report, Row
from benchmarks.servers import Served, exchange, serve

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


def _controller_id(server: Served) -> int:
    from kafka.protocol.metadata import MetadataRequest, MetadataResponse

    response = exchange(server.port, MetadataRequest(version=12, topics=[]), MetadataResponse)
    return int(response.controller_id)


def _create(server: Served, i: int, trial: int) -> int:
    """The error code of a one-ACL CreateAcls sent to ``server``."""
    from kafka.protocol.admin import CreateAclsResponse

    request = create_acl_request(wc.create_topic(trial, 0, i), "User:bench")
    return int(exchange(server.port, request, CreateAclsResponse).results[0].error_code)


def _until(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(TICK_SECONDS)


def _serve_failover(trial: int) -> float:
    """Seconds from SIGKILL of the active ``aclog serve --controller`` to the standby's first
    acknowledged CreateAcls."""
    with tempfile.TemporaryDirectory(prefix="aclog-bench-failover-") as tmp:
        work, data = Path(tmp), Path(tmp) / "data"
        with serve(work, data, "--controller", "--node-id", "1", name="n1") as first:
            _until(lambda: _controller_id(first) == 1, "node 1 to lead")
            with serve(work, data, "--controller", "--node-id", "2", name="n2") as second:
                assert _create(first, 0, trial) == 0
                time.sleep(1.0)  # the standby follows the heartbeats
                first.process.kill()
                died = time.perf_counter()
                attempts = iter(range(1, 1 << 30))
                _until(lambda: _create(second, next(attempts), trial) == 0, "the standby")
                return time.perf_counter() - died


def _row(impl: str, workload: str, times: list[float]) -> Row:
    times = sorted(times)
    return Row(
        "failover",
        impl,
        workload,
        len(times),
        "median",
        times[len(times) // 2] * 1000,
        "ms",
        f"heartbeat 500 ms, election timeout 2000 ms; worst {times[-1] * 1000:,.0f} ms",
    )


def run(report: Report, quick: bool) -> None:
    trials = 1 if quick else 3
    times = [_one_failover(i) for i in range(trials)]
    report.add(_row("aclog quorum", "active dies -> first commit", times))
    served = [_serve_failover(i) for i in range(trials)]
    report.add(_row("aclog serve --controller", "SIGKILL active -> first CreateAcls", served))
    bench_failover_probe.run(report, quick)
