"""The failover probe's Kafka twin (:mod:`benchmarks.kafka_failover`): one seeded round of each
fault (SIGKILL and SIGSTOP of the active controller) on a real three-node KRaft quorum from
``KAFKA_HOME`` gives sane rows with nothing lost, and leaves no process behind; without Kafka or
Java the suite is one row saying why; the README cell renders each case."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks import bench_failover_kafka, readme_sections
from benchmarks.bench_failover_probe import SEED
from benchmarks.figures import MissingFigure, Run
from benchmarks.kafka_failover import KINDS, probe
from benchmarks.kraft_quorum import LABEL, why_missing
from benchmarks.report import Report
from tests.gates import unavailable
from tests.real_kafka import kafka_home_or_fail

KILL, STOP = (f"{kind} -> another node acks" for kind in KINDS)


def test_one_round_of_each_fault_on_a_real_quorum_loses_nothing() -> None:
    kafka_home_or_fail()
    problem = why_missing()
    if problem is not None:
        unavailable(problem)
    measured = probe(1, SEED)
    rows = bench_failover_kafka.rows(measured)

    assert [(r.impl, r.workload, r.metric, r.size) for r in rows] == [
        (LABEL, KILL, "median", 1),
        (LABEL, STOP, "median", 1),
    ]
    assert measured.acknowledged > 10
    assert measured.lost == dict.fromkeys(KINDS, 0)
    kill, stop = (measured.results[kind][0] for kind in KINDS)
    # Kafka's fetch timeout (2 s), an election and the client's 2 s request timeout, with room
    # for a shared machine.
    assert kill.failover is not None and 0.05 < kill.failover < 15, kill
    assert stop.failover is not None and 0.05 < stop.failover < stop.frozen + 15, stop
    for row in rows:
        assert "; 0 lost" in row.note and "it saw: " in row.note, row.note
    assert len(measured.pids) == 4  # three nodes and the killed one's restart
    assert [pid for pid in measured.pids if Path(f"/proc/{pid}").exists()] == []


def test_without_a_kafka_distribution_the_suite_is_one_row_saying_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KAFKA_HOME", str(tmp_path / "no-kafka"))
    report = Report()
    bench_failover_kafka.run(report, quick=True)

    [row] = report.rows
    assert (row.impl, row.metric) == (LABEL, "skipped")
    assert f"no Kafka distribution at {tmp_path / 'no-kafka'}" in row.note


def test_without_java_the_suite_is_one_row_saying_why(monkeypatch: pytest.MonkeyPatch) -> None:
    if why_missing() is not None:
        unavailable(str(why_missing()))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", os.devnull)
    report = Report()
    bench_failover_kafka.run(report, quick=True)

    [row] = report.rows
    assert (row.metric, row.note) == ("skipped", why_missing())
    assert "no Java" in row.note


def test_a_quorum_that_does_not_serve_is_one_failed_row_saying_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_quorum(count: int, seed: int) -> None:
        raise RuntimeError("Kafka node 2 did not start within 180 s")

    monkeypatch.setattr(bench_failover_kafka, "why_missing", lambda: None)
    monkeypatch.setattr(bench_failover_kafka, "probe", no_quorum)
    report = Report()
    bench_failover_kafka.run(report, quick=True)

    [row] = report.rows
    assert (row.impl, row.metric, row.note) == (
        LABEL,
        "failed",
        "Kafka node 2 did not start within 180 s",
    )


def _cell(rows: list[dict[str, object]]) -> str:
    run = Run({"commit": "abc1234"}, rows)
    [kill] = [
        cell
        for label, cell in readme_sections.FAILOVER.lines
        if str(label).startswith(f"{LABEL}: SIGKILL") and not isinstance(cell, str)
    ]
    return kill(run)


def test_the_readme_cell_says_why_a_run_has_no_kafka_figure() -> None:
    failover = {"benchmark": "failover", "impl": LABEL}
    median = {**failover, "workload": KILL, "metric": "median", "value": 4321, "note": "n"}
    skipped = {**failover, "workload": "(every Kafka failover row)", "metric": "skipped"}

    assert "committed run (on abc1234) predates the Kafka probe" in _cell([])
    assert _cell([{**skipped, "note": "no Java"}]) == "not measured (skipped): no Java"
    assert _cell([median]) == "median 4.32 s; n"
    with pytest.raises(MissingFigure):
        _cell([{**median, "workload": STOP}])
