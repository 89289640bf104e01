"""Smoke run of the CLI output suite at tiny scale: the start-up rows (wall and peak memory of
each start-up command), then each command as a whole process, text and JSON, and the text row
carries its ratio to JSON."""

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
    startup = [row for row in report.rows if row.workload == "start-up"]
    assert [(row.impl, row.metric) for row in startup[:6]] == [
        ("python -c pass", "wall median"),
        ("python -c pass", "peak RSS"),
        ("python -c pass", "cpu median"),
        ("aclog --help", "wall median"),
        ("aclog --help", "peak RSS"),
        ("aclog --help", "cpu median"),
    ]
    # python -c pass and six aclog commands, three rows each
    assert len(startup) == 21 and all(row.value > 0 for row in startup)
    report.rows = [row for row in report.rows if row not in startup]
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
