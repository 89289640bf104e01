"""Smoke run of the hostile-connections benchmark at tiny scale: a real ``aclog serve``, the
250 hostile connections and a kafka-python client; both rows are there and no call failed."""

from __future__ import annotations

from benchmarks import bench_hostile, harness
from benchmarks.report import Report


def test_hostile_suite_runs_at_tiny_scale() -> None:
    report = Report()
    harness.SCALE.name = "tiny"
    try:
        bench_hostile.run(report, True)
    finally:
        harness.SCALE.name = "full"
    values = {(row.impl, row.metric): row.value for row in report.rows}
    for impl in ("kafka-python alone", "kafka-python + 250 hostile"):
        assert values[(impl, "failed")] == 0, impl
        assert 0 < values[(impl, "p50")] <= values[(impl, "p99")], impl
