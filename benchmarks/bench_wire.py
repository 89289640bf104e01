"""Admin requests over the Kafka protocol (issue 7): requests/s and p50/p99 latency of
DescribeAcls (1 and 10,000 matching ACLs) and CreateAcls against a real ``aclog serve``.

Setup: a fresh data directory, preloaded through the library (``Controller.create_acls`` in
batches of 1,000, not through the wire) with 10,000 ACLs of ``User:bench-many`` (one per topic)
and one ACL on topic ``bench-one``; then ``aclog serve`` as a subprocess on a free 127.0.0.1
port, PLAINTEXT, with ``User:ANONYMOUS`` as super user (so the cluster checks pass).

Rows, per workload:

- ``kafka-python``: N ``KafkaAdminClient`` s, each in its own spawned process (one Python
  process is GIL-bound and could not load the server), started together at a barrier, each
  calling ``describe_acls`` / ``create_acls`` in a loop for a fixed time, from one thread or
  from T threads sharing the client (kafka-python 3's clients are thread-safe; their requests
  share one connection with several in flight, as an application serving many users would).
  requests/s is the sum of the clients' rates; p50/p99 pool every call's latency
  (``perf_counter_ns`` around the call, so it includes the client's own encoding and decoding).
- ``raw serial``: one socket, one pre-encoded request at a time, the response counted but not
  decoded: the server's latency without kafka-python's cost.
- ``raw pipelined``: several sockets with several pre-encoded requests in flight each: the
  server's capacity. Its latencies include the wait behind the requests ahead on the same
  connection.
- ``client CPU`` / ``server CPU``: CPU time per request of the kafka-python client processes
  (``time.process_time`` around their loops) and of the ``aclog serve`` process (all threads,
  from ``/proc``). On a small machine the clients and the server share the cores, so the
  client's own cost bounds the kafka-python rows: the note gives the rate the cores would allow
  if the server cost nothing.
- ``ApiVersions`` (raw only): the cheapest request, the floor of the per-request cost
  (framing, dispatch, worker-thread hop, response encoding).

CreateAcls commits one ACL per request (each request names a new topic): a log append with its
fsync, shared by the requests that queue up meanwhile (group commit), and the publication of
the commit to the authorizer before the answer (read-your-writes).
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from benchmarks import wire_clients as wc
from benchmarks.harness import SCALE, percentile
from benchmarks.report import Report, Row
from benchmarks.servers import cpu_seconds, serve

PRELOAD_BATCH = 1000
TARGET = "target >= 2,000 requests/s"
SMALL = (wc.DESCRIBE_ONE, wc.CREATE, wc.API_VERSIONS)
PIPELINE_DEPTH = 8
SETTLE_SECONDS = 0.3


def run(report: Report, quick: bool) -> None:
    many = SCALE.pick(10_000, 10_000, 200)
    seconds = SCALE.pick(5.0, 2.0, 0.5)
    # (client processes, threads per client)
    client_counts = SCALE.pick(((1, 1), (4, 1), (2, 8)), ((1, 1), (4, 1), (2, 8)), ((2, 2),))
    with tempfile.TemporaryDirectory(prefix="aclog-bench-wire-") as tmp:
        data_dir = Path(tmp) / "data"
        _preload(data_dir, many)
        with serve(Path(tmp), data_dir) as server:
            port = server.port
            runs = iter(range(1, 1 << 30))
            for workload in (wc.API_VERSIONS, wc.DESCRIBE_ONE, wc.DESCRIBE_MANY, wc.CREATE):
                size = many if workload == wc.DESCRIBE_MANY else 1
                _raw_rows(report, server.process.pid, workload, size, seconds, runs, port)
                if workload == wc.API_VERSIONS:
                    continue  # KafkaAdminClient has no call that sends ApiVersions alone
                for clients, threads in client_counts:
                    bootstrap = f"127.0.0.1:{port}"
                    spec = wc.ClientSpec(bootstrap, workload, 0, next(runs), seconds, size, threads)
                    _admin_rows(report, spec, clients, size, server.process.pid)


# -- setup ---------------------------------------------------------------------------------------


def _preload(data_dir: Path, many: int) -> None:
    """``many`` ACLs of one principal plus one ACL on ``bench-one``, committed directly."""
    bindings = [wc.read_binding(f"bench-many-{i:05d}", wc.MANY_PRINCIPAL) for i in range(many)]
    bindings.append(wc.read_binding(wc.ONE_TOPIC, wc.ONE_PRINCIPAL))
    with Controller.open(data_dir, authorizer=LocalOperator()) as controller:
        for start in range(0, len(bindings), PRELOAD_BATCH):
            batch = bindings[start : start + PRELOAD_BATCH]
            results = controller.create_acls(batch, Caller(api="bench preload"))
            assert all(r.error.is_success for r in results), results[:1]


# -- measuring -----------------------------------------------------------------------------------


def _raw_rows(
    report: Report,
    pid: int,
    workload: str,
    size: int,
    seconds: float,
    runs: Iterator[int],
    port: int,
) -> None:
    # Two in flight per connection already keep the server busy with the large answers; more
    # would only queue (and leave more abandoned work when the window closes).
    depth = 2 if workload == wc.DESCRIBE_MANY else PIPELINE_DEPTH
    for impl, connections, in_flight in (("raw serial", 1, 1), ("raw pipelined", 4, depth)):
        run_id = next(runs)

        def frame(i: int, run_id: int = run_id) -> bytes:
            return wc.request_frame(workload, i, run_id)

        before = cpu_seconds(pid)
        result = wc.pipelined(
            port, frame, connections=connections, depth=in_flight, seconds=seconds
        )
        server_cpu = (cpu_seconds(pid) - before) / max(result.responses, 1)
        note = f"{connections} connection(s) x {in_flight} in flight"
        _rows(report, impl, workload, size, result.samples, result.responses / result.elapsed, note)
        _cpu_row(report, impl, workload, size, "server CPU", server_cpu, "aclog serve, all threads")
        time.sleep(SETTLE_SECONDS)  # the server finishes what the closed connections left


def _admin_rows(report: Report, base: wc.ClientSpec, clients: int, size: int, pid: int) -> None:
    before = cpu_seconds(pid)
    results = _run_clients(base, clients)
    failed = [r.failure for r in results if r.failure]
    if failed:
        raise RuntimeError(f"{base.workload}: a client failed: {failed[0]}")
    samples = sorted(s for r in results for s in r.samples)
    server_cpu = (cpu_seconds(pid) - before) / max(len(samples), 1)
    rate = sum(len(r.samples) / r.elapsed for r in results)
    errors = sum(r.errors for r in results)
    note = f"{clients} client process(es)"
    if base.threads > 1:
        note += f" x {base.threads} threads"
    if errors:
        note += f"; {errors} failed requests"
    _rows(report, "kafka-python", base.workload, size, samples, rate, note)
    client_cpu = sum(r.cpu for r in results) / max(len(samples), 1)
    cores = os.cpu_count() or 1
    ceiling = (
        f"kafka-python's own cost: {cores} cores allow at most {cores / client_cpu:,.0f} "
        "calls/s with a server that costs nothing"
        if client_cpu > 0
        else "kafka-python's own cost"
    )
    _cpu_row(report, "kafka-python", base.workload, size, "client CPU", client_cpu, ceiling)
    _cpu_row(report, "kafka-python", base.workload, size, "server CPU", server_cpu, "")


def _cpu_row(
    report: Report, impl: str, workload: str, size: int, metric: str, seconds: float, note: str
) -> None:
    label = workload.replace("many", f"{size:,}")
    report.add(Row("wire", impl, label, size, metric, seconds * 1e3, "ms/request", note))


def _run_clients(base: wc.ClientSpec, clients: int) -> list[wc.ClientResult]:
    """Start ``clients`` spawned processes, wait for every result, and never leave one behind."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(clients)
    results = context.Queue()
    specs = [
        wc.ClientSpec(
            base.bootstrap, base.workload, i, base.run, base.seconds, base.expected, base.threads
        )
        for i in range(clients)
    ]
    processes = [
        context.Process(target=wc.admin_client_main, args=(spec, barrier, results), daemon=True)
        for spec in specs
    ]
    try:
        for process in processes:
            process.start()
        limit = 2 * wc.TIMEOUT_SECONDS + base.seconds
        collected = [results.get(timeout=limit) for _ in processes]
        for process in processes:
            process.join(10)
        return collected
    finally:
        for process in processes:
            if process.is_alive():
                process.kill()
                process.join(5)


def _rows(
    report: Report,
    impl: str,
    workload: str,
    size: int,
    samples: list[int],
    rate: float,
    note: str,
) -> None:
    """requests/s, p50 and p99 (ms) for one measurement."""
    samples = sorted(samples)
    label = workload.replace("many", f"{size:,}")
    tag = f"{note}; {len(samples):,} requests"
    if workload in SMALL:
        tag += f"; {TARGET}"
    rows = (
        ("throughput", rate, "requests/s", tag),
        ("p50", percentile(samples, 0.5) / 1e6, "ms", ""),
        ("p99", percentile(samples, 0.99) / 1e6, "ms", ""),
    )
    for metric, value, unit, text in rows:
        report.add(Row("wire", impl, label, size, metric, value, unit, text))
