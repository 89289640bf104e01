"""Mutation benchmarks (W5): Kafka's ``StandardAuthorizerUpdateBenchmark`` ported
(``reference/benchmarks.md`` §1.2): preload N ACLs from its 10,000 x 255 pool, then time the next
ACLs added one at a time, their removal one at a time, and one atomic batch of 10,000 adds (one
full CreateAcls request) and its removal, for aclog's ``Authorizer`` and the Kafka port.

No published result table exists for the Java benchmark (§1.2), so there is no anchor row.
aclog publishes a new immutable index per change (copy-on-write); the port mutates a sorted list
in place, unlike Kafka's persistent ``AclCache``, so its times flatter Kafka. Reader latency under
a concurrent writer is not measured.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence

from aclog.authorizer import Authorizer
from aclog.records.collector import call_paused
from aclog.records.types import AccessControlEntryRecord
from benchmarks import workloads
from benchmarks.bench_authorizer import ACLOG, KAFKA, current_scale
from benchmarks.harness import Latency, latency_rows, mismatch_row, overhead, release, timed_build
from benchmarks.kafka_port import KafkaPortAuthorizer
from benchmarks.report import Report, Row

BENCH = "mutation"


def run(report: Report, quick: bool) -> None:
    scale = current_scale(quick)
    sizes = scale.pick(
        full=[1_000, 10_000, 100_000, 1_000_000], quick=[1_000, 10_000], tiny=[1_000]
    )
    singles = scale.pick(full=2_000, quick=500, tiny=50)
    batch = scale.pick(full=10_000, quick=10_000, tiny=1_000)
    for n in sizes:
        _cell(report, n, singles, batch)
        release()


def _cell(report: Report, n: int, singles: int, batch: int) -> None:
    pool = workloads.update_pool()
    preload = list(itertools.islice(pool, n))
    extra = list(itertools.islice(pool, singles))
    bulk = list(itertools.islice(pool, batch))
    checks = [
        (a.principal, a.host, workloads.O.READ, a.resource_type, a.resource_name)
        for a in extra[:: max(1, len(extra) // 100)]
    ]
    label = f"W5 preload {n:,}"

    def make_aclog() -> Authorizer:
        authorizer = Authorizer()
        call_paused(authorizer.load, preload)  # as a broker's loader builds it (harness.py: GC)
        return authorizer

    def make_port() -> KafkaPortAuthorizer:
        port = KafkaPortAuthorizer()
        port.load(preload)
        return port

    seconds, aclog = timed_build(make_aclog)
    report.add(Row(BENCH, ACLOG, label, n, "build", seconds, "s", "load(): bulk build"))
    seconds, port = timed_build(make_port)
    report.add(Row(BENCH, KAFKA, label, n, "build", seconds, "s", "bulk build"))
    answers = {}
    for impl, target in ((ACLOG, aclog), (KAFKA, port)):
        _one_by_one(report, impl, f"{label} add one", n, target.add, extra)
        answers[impl] = [target.authorize(*r) for r in checks]
        _one_by_one(report, impl, f"{label} remove one", n, target.remove, [a.id for a in extra])
        answers[impl + " after"] = [target.authorize(*r) for r in checks]
    mismatch_row(
        report,
        BENCH,
        f"{ACLOG} vs {KAFKA}",
        f"{label} after adds",
        n,
        answers[ACLOG],
        answers[KAFKA],
        checks,
    )
    mismatch_row(
        report,
        BENCH,
        f"{ACLOG} vs {KAFKA}",
        f"{label} after removes",
        n,
        answers[ACLOG + " after"],
        answers[KAFKA + " after"],
        checks,
    )

    ids = [a.id for a in bulk]
    # A batch this big arrives in a loader thread's poll, which pauses the collector.
    took = _seconds(lambda: call_paused(aclog.apply, adds=bulk, removes=()))
    _batch_row(report, ACLOG, f"{label} batch add {batch:,}", n, took, batch, "one atomic apply()")
    took = _seconds(lambda: call_paused(aclog.apply, adds=(), removes=ids))
    _batch_row(
        report, ACLOG, f"{label} batch remove {batch:,}", n, took, batch, "one atomic apply()"
    )

    def add_all() -> None:
        for acl in bulk:
            port.add(acl)

    def remove_all() -> None:
        for acl_id in ids:
            port.remove(acl_id)

    took = _seconds(add_all)
    _batch_row(
        report,
        KAFKA,
        f"{label} batch add {batch:,}",
        n,
        took,
        batch,
        "one add per ACL, as AclPublisher applies a log delta",
    )
    took = _seconds(remove_all)
    _batch_row(
        report, KAFKA, f"{label} batch remove {batch:,}", n, took, batch, "one remove per ACL"
    )


def _one_by_one(
    report: Report,
    impl: str,
    workload: str,
    n: int,
    change: Callable[..., object],
    items: Sequence[AccessControlEntryRecord] | Sequence[object],
) -> None:
    now = time.perf_counter_ns
    cost = overhead()
    samples = []
    for item in items:
        start = now()
        change(item)
        samples.append(max(0, now() - start - cost))
    samples.sort()
    total = sum(samples) / 1e9
    latency_rows(report, BENCH, impl, workload, n, Latency(samples, len(samples) / total))


def _seconds(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _batch_row(
    report: Report, impl: str, workload: str, n: int, seconds: float, count: int, note: str
) -> None:
    report.add(Row(BENCH, impl, workload, n, "time", seconds * 1000, "ms", note))
    report.add(Row(BENCH, impl, workload, n, "per ACL", seconds * 1e6 / count, "µs"))
