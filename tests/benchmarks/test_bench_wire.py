"""Smoke run of the wire benchmark suite at tiny scale: a real ``aclog serve``, kafka-python
clients in spawned processes and the raw socket clients all run, and every workload gets a
positive request rate."""

from __future__ import annotations

from benchmarks import bench_wire, harness
from benchmarks import wire_clients as wc
from benchmarks.report import Report


def test_wire_suite_runs_at_tiny_scale() -> None:
    report = Report()
    harness.SCALE.name = "tiny"
    try:
        bench_wire.run(report, True)
    finally:
        harness.SCALE.name = "full"
    rates = {
        (row.impl, row.workload): row.value for row in report.rows if row.metric == "throughput"
    }
    workloads = {row.workload for row in report.rows}
    for workload in (wc.DESCRIBE_ONE, "DescribeAcls 200 matches", wc.CREATE):
        assert workload in workloads
        for impl in ("kafka-python", "raw serial", "raw pipelined"):
            assert rates[(impl, workload)] > 0, (impl, workload)
    assert rates[("raw pipelined", wc.API_VERSIONS)] > 0
    assert all(
        "target >= 2,000" in r.note
        for r in report.rows
        if r.metric == "throughput" and r.workload == wc.DESCRIBE_ONE
    )
