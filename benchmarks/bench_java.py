"""Kafka's own ``StandardAuthorizer`` (Java, from ``$KAFKA_HOME``) beside aclog's authorizer, on
the very ACL sets and requests of the authorizer suite (:mod:`benchmarks.workloads`), with
Kafka's metadata loading and live heap beside aclog's (:mod:`benchmarks.bench_java_load`).

Each cell writes its ACLs and request sets to a file that ``benchmarks/java/AuthorizeBench``
reads (one JVM per ACL set); both sides answer every request and a ``mismatches`` row counts
the decisions that differ (must be 0). Rows per request set, for each side: ``p50`` (warmed;
the lowest of 5 round medians, as in :mod:`benchmarks.harness`), ``p99``, ``throughput``, and
``cold p50``: aclog with its per-name memo emptied before every call, Java on the first call
of each distinct name after its JIT was warmed on other names (Java keeps no per-name state).
Java's warm-up runs until its rate stops improving (at least 200,000 calls and 5x the sample
budget's seconds, at most 40x): on the shared 2-core machine a fixed 20,000 calls left the
W2 1k cell at 8x its warmed p50.
Each pair is followed by a ``ratio`` row: for latencies Java ÷ aclog, for throughput
aclog ÷ Java, so above 1 always means aclog is faster (issue 36 §2: ≥ 1.5 in every cell).

Without a Kafka distribution or a JDK the suite prints one ``skipped`` row saying why.
Sizes: W1 at R = 100, 10k, 100k (1.2k to 1.2M ACLs), W2 at 1k, 100k and 1M ACLs, W3 at 1k
and 100k; ``--quick`` keeps the smallest of each.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from aclog.authorizer import Authorizer
from aclog.records.collector import call_paused
from aclog.records.types import AccessControlEntryRecord
from benchmarks import bench_java_load, workloads
from benchmarks.bench_authorizer import Budget, current_scale, memo_cold
from benchmarks.harness import Latency, Scale, measure, mismatch_row, release, timed_build
from benchmarks.java_harness import (
    ACLOG,
    BENCH,
    JAVA_IMPL,
    JavaHarness,
    JavaRunError,
    find_harness,
    pair,
)
from benchmarks.report import Report, Row

MIN_COLD_NAMES = 20
"""Cold rows only for request sets with at least this many distinct names."""


@dataclass
class Cell:
    """One ACL set and its named request sets."""

    label: str
    acls: list[AccessControlEntryRecord]
    sets: dict[str, list[workloads.Request]]
    allow_everyone: bool


def run(report: Report, quick: bool) -> None:
    harness = find_harness()
    if isinstance(harness, str):
        report.add(Row(BENCH, JAVA_IMPL, "(every Java row)", 0, "skipped", 0, "rows", harness))
        return
    scale = current_scale(quick)
    budget = Budget.of(scale)
    report.add(Row(BENCH, JAVA_IMPL, "(setup)", 0, "version", 0, "", harness.describe()))
    for make in _cells(scale):
        cell = make()
        try:
            compare(report, harness, cell, budget)
        except JavaRunError as error:
            n = len(cell.acls)
            report.add(Row(BENCH, JAVA_IMPL, cell.label, n, "failed", 0, "rows", str(error)))
        del cell
        release()
    bench_java_load.run(report, harness, scale)


def _cells(scale: Scale) -> list[Callable[[], Cell]]:
    """The cells to run, each made only when its turn comes (the big ones hold 1M+ ACLs)."""
    w1 = scale.pick(full=[100, 10_000, 100_000], quick=[100], tiny=[100])
    w2 = scale.pick(full=[1_000, 100_000, 1_000_000], quick=[1_000], tiny=[1_000])
    w3 = scale.pick(full=[1_000, 100_000], quick=[1_000], tiny=[1_000])
    hits = scale.pick(full=2000, quick=1000, tiny=100)
    zipf = scale.pick(full=5000, quick=2000, tiny=200)

    def kafka(resources: int) -> Cell:
        work = workloads.kafka_workload(resources, deny_percentage=20.0, hit_count=hits)
        sets = {"testAuthorizer": [work.test_authorizer], "hits": work.hits}
        return Cell(f"W1 R={resources:,} d=20", work.acls, sets, True)

    def tenants(target: int) -> Cell:
        work = workloads.tenant_workload(target, request_count=zipf)
        return Cell(f"W2 tenants {target:,}", work.acls, {"zipf": work.requests}, False)

    def adversarial(target: int) -> Cell:
        work = workloads.adversarial_workload(target)
        return Cell(
            f"W3 adversarial {target:,}", work.acls, {"mix": list(work.cases.values())}, False
        )

    return (
        [lambda r=r: kafka(r) for r in w1]
        + [lambda t=t: tenants(t) for t in w2]
        + [lambda t=t: adversarial(t) for t in w3]
    )


def write_input(path: Path, cell: Cell) -> None:
    """The cell as ``AuthorizeBench`` reads it (tab-separated lines)."""
    with open(path, "w", encoding="utf-8") as out:
        out.write(f"allow_everyone\t{str(cell.allow_everyone).lower()}\n")
        for a in cell.acls:
            fields = (a.resource_type.name, a.resource_name, a.pattern_type.name, a.principal)
            rest = (a.host, a.operation.name, a.permission_type.name)
            out.write("acl\t" + "\t".join((*fields, *rest)) + "\n")
        for name, requests in cell.sets.items():
            out.write(f"set\t{name}\n")
            for principal, host, op, rtype, resource in requests:
                out.write(f"req\t{principal}\t{host}\t{op.name}\t{rtype.name}\t{resource}\n")


def java_decisions(path: Path) -> dict[str, list[str]]:
    """The decisions ``AuthorizeBench`` wrote, by request set, in request order."""
    decided: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, decision = line.split("\t")
        decided.setdefault(name, []).append(decision)
    return decided


def run_java(harness: JavaHarness, cell: Cell, budget: Budget) -> tuple[dict, dict]:
    """``AuthorizeBench`` on ``cell``: its printed values and its decisions by request set."""
    with tempfile.TemporaryDirectory() as tmp:
        source, decisions = Path(tmp) / "cell.tsv", Path(tmp) / "decisions.tsv"
        write_input(source, cell)
        values = harness.run(
            "AuthorizeBench", str(source), str(decisions), str(budget.calls), str(budget.seconds)
        )
        return values, java_decisions(decisions)


def aclog_for(cell: Cell) -> Authorizer:
    """aclog's authorizer on the cell's ACLs, loaded as a broker's loader loads it."""
    authorizer = Authorizer(allow_everyone_if_no_acl_found=cell.allow_everyone)
    call_paused(authorizer.load, cell.acls)
    return authorizer


def compare(report: Report, harness: JavaHarness, cell: Cell, budget: Budget) -> None:
    """Both sides on one cell: build, decisions (a mismatches row per request set) and the
    latency, throughput and cold rows with their ratios."""
    n = len(cell.acls)
    seconds, authorizer = timed_build(lambda: aclog_for(cell))
    values, decided = run_java(harness, cell, budget)
    java_build, first = float(values["build_s"]), float(values["first_build_s"])
    note = f"aclog load(); Java loadSnapshot again (first, in a fresh JVM: {first:.2f} s)"
    pair(report, f"{cell.label} build", n, "build", (seconds, java_build), "s", note)
    for name, requests in cell.sets.items():
        workload = f"{cell.label} {name}"
        ours = [authorizer.authorize(*r).value for r in requests]
        mismatch_row(
            report, BENCH, f"{ACLOG} vs {JAVA_IMPL}", workload, n, ours, decided.get(name, []),
            requests, "decisions, request by request",
        )  # fmt: skip
        _latencies(report, authorizer, workload, n, requests, budget, values, name)


def _latencies(
    report: Report,
    authorizer: Authorizer,
    workload: str,
    n: int,
    requests: Sequence[workloads.Request],
    budget: Budget,
    values: dict,
    name: str,
) -> None:
    warm = measure(
        authorizer.authorize, requests, max_calls=budget.calls, max_seconds=budget.seconds
    )
    java = {k.split(".", 1)[1]: float(v) for k, v in values.items() if k.startswith(name + ".")}
    pair(report, workload, n, "p50", (warm.p50_us, java["p50_ns"] / 1000), "µs", "JIT-warmed")
    pair(report, workload, n, "p99", (_p99(warm), java["p99_ns"] / 1000), "µs", "", ratio=False)
    assert warm.ops is not None
    pair(report, workload, n, "throughput", (warm.ops, java["ops"]), "ops/s", "1,000-call batches")
    if java["cold_n"] >= MIN_COLD_NAMES:
        cold = measure(
            memo_cold(authorizer), requests, max_calls=budget.calls, max_seconds=budget.seconds,
            throughput=False,
        )  # fmt: skip
        note = (
            f"aclog: memo emptied before each call; Java: first call of {java['cold_n']:,.0f} names"
        )
        pair(report, workload, n, "cold p50", (cold.p50_us, java["cold_p50_ns"] / 1000), "µs", note)


def _p99(latency: Latency) -> float:
    samples = latency.samples
    return samples[min(len(samples) - 1, int(0.99 * len(samples)))] / 1000 if samples else 0.0
