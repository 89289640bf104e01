"""Smoke run of the CLI output suite at tiny scale: each command runs as a whole process, text
and JSON, and the text row carries its ratio to JSON."""

from __future__ import annotations

from benchmarks import bench_cli, harness
from benchmarks.report import Report


def test_cli_suite_runs_at_tiny_scale() -> None:
    report = Report()
    harness.SCALE.name = "tiny"
    try:
        bench_cli.run(report, True)
    finally:
        harness.SCALE.name = "full"
    impls = [row.impl for row in report.rows]
    assert impls == [
        "aclog replay --json",
        "aclog replay",
        "aclog dump --json",
        "aclog dump",
        "aclog export --json",
        "aclog export",
    ]
    assert all(row.value > 0 and row.size == 2000 for row in report.rows)
    assert all("text/json" in row.note for row in report.rows if "--json" not in row.impl)
