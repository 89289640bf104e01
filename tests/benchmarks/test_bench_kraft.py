"""Smoke run of the KRaft-vs-aclog replay benchmark at tiny scale: both files hold the same
state (the images agree, removals included) and the ratio row is reported."""

from __future__ import annotations

from benchmarks import bench_kraft
from benchmarks.report import Report


def test_kraft_suite_replays_the_same_state_from_both_formats() -> None:
    report = Report()
    bench_kraft.measure(report, 300, 100)
    rows = {row.impl: row for row in report.rows}
    assert rows["kraft vs aclog image"].metric == "mismatches"
    assert rows["kraft vs aclog image"].value == 0
    assert rows["kraft / aclog"].value == rows["kraft format"].value / rows["aclog format"].value
    assert rows["aclog format"].value > 0 and rows["kraft format"].value > 0


def test_the_tail_removes_acls_of_the_snapshot() -> None:
    base, tail = bench_kraft.state(300, 100)
    removed = {r.id for r in tail if type(r).__name__ == "RemoveAccessControlEntryRecord"}
    assert len(removed) == 10 and removed <= {r.id for r in base}  # type: ignore[attr-defined]
