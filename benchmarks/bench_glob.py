"""GLOB benchmarks (W4, ``reference/benchmarks.md`` §7.3): aclog's ``Authorizer`` beside the
naive reference and the dict floor on GLOB-heavy ACL sets, and the multi-tenant workload (W2) with
1 % GLOB patterns. The Kafka port has no GLOB, so it does not run here.

W4 uses G GLOB ACLs, a quarter of each kind: leading ``*`` (``*-sfx<i>``, no literal prefix to
index by), middle ``*`` (``app<k>.*.ev<i>``), ``?``-heavy (``q<i>.??-????-??``) and
``*a*a*a*b<i>`` (the backtracking trap), against names of 20-200 characters including runs of
``a``. The ``growth`` rows compare latency across G and across name length: a matcher without
backtracking grows at most linearly in the name length.
"""

from __future__ import annotations

from benchmarks import workloads
from benchmarks.bench_authorizer import (
    ACLOG,
    REFERENCE_LIMIT,
    Budget,
    build,
    compare,
    current_scale,
)
from benchmarks.harness import release
from benchmarks.report import Report, Row

BENCH = "glob"


def run(report: Report, quick: bool) -> None:
    scale = current_scale(quick)
    budget = Budget.of(scale)
    counts = scale.pick(full=[10, 100, 1_000, 10_000], quick=[10, 100], tiny=[10])
    lengths = scale.pick(full=[20, 50, 200], quick=[20, 200], tiny=[20])
    requests = scale.pick(full=400, quick=200, tiny=40)
    p50: dict[tuple[int, int], float] = {}
    for globs in counts:
        acls = workloads.glob_workload(globs, lengths[0], request_count=1).acls
        n = len(acls)
        built = build(
            report,
            f"W4 G={globs:,}",
            acls,
            allow_everyone=False,
            port=False,
            reference=True,
            memory=False,
            bench=BENCH,
        )
        for length in lengths:
            asked = workloads.glob_workload(globs, length, request_count=requests).requests
            latencies = compare(
                report, built, f"W4 G={globs:,} name={length}", n, asked, budget, bench=BENCH
            )
            p50[(globs, length)] = latencies[ACLOG].p50_us
        del built
        release()
    for length in lengths if len(counts) > 1 else ():
        low, high = p50[(counts[0], length)], p50[(counts[-1], length)]
        report.add(
            Row(
                BENCH,
                ACLOG,
                f"W4 growth G {counts[0]} -> {counts[-1]}, name={length}",
                counts[-1],
                "ratio",
                high / low if low else float("nan"),
                "x",
                f"p50 {low:.3g} -> {high:.3g} µs for {counts[-1] // counts[0]:,}x the GLOBs",
            )
        )
    for globs in counts if len(lengths) > 1 else ():
        low, high = p50[(globs, lengths[0])], p50[(globs, lengths[-1])]
        report.add(
            Row(
                BENCH,
                ACLOG,
                f"W4 growth name {lengths[0]} -> {lengths[-1]}, G={globs:,}",
                globs,
                "ratio",
                high / low if low else float("nan"),
                "x",
                f"p50 {low:.3g} -> {high:.3g} µs for {lengths[-1] / lengths[0]:g}x the name length",
            )
        )

    target = scale.pick(full=100_000, quick=10_000, tiny=1_000)
    work = workloads.tenant_workload(
        target, globs=True, request_count=scale.pick(full=5000, quick=2000, tiny=200)
    )
    n = len(work.acls)
    label = f"W2+GLOB tenants {target:,}"
    built = build(
        report,
        label,
        work.acls,
        allow_everyone=False,
        port=False,
        reference=n <= REFERENCE_LIMIT,
        memory=n <= 130_000,
        bench=BENCH,
    )
    compare(report, built, f"{label} zipf", n, work.requests, budget, bench=BENCH)
    del built, work
    release()
