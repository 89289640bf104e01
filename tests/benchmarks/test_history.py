"""The benchmark history: every run's rows kept per suite, with what was measured and when."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import history
from benchmarks.report import Report, Row

RESULTS = Path(__file__).parents[2] / "benchmarks" / "results"


def _report(*suites: str) -> Report:
    report = Report()
    for n, suite in enumerate(suites):
        report.rows.append(Row(suite, "aclog", "w", 10, "throughput", 100.0 + n, "records/s"))
    return report


def test_a_run_appends_its_rows_per_suite_with_their_provenance(tmp_path: Path) -> None:
    written = history.record(_report("log", "log", "commit"), tmp_path, "make bench", "full")
    history.record(_report("log"), tmp_path, "before abc1234", "quick")

    assert written == {"log": 2, "commit": 1}
    log = list(history.read(tmp_path, "log"))
    assert [(r["run"], r["scale"], r["value"]) for r in log] == [
        ("make bench", "full", 100.0),
        ("make bench", "full", 101.0),
        ("before abc1234", "quick", 100.0),
    ]
    assert all(len(r["load"]) == 2 and r["commit"] and r["recorded"] for r in log)
    assert [r["benchmark"] for r in history.read(tmp_path, "commit")] == ["commit"]
    assert list(history.read(tmp_path, "none")) == []


def test_the_run_header_names_kafka_and_the_load() -> None:
    text = _report("log").markdown().splitlines()[0]

    assert "Kafka " in text and "load " in text and "commit " in text and "other work" in text


def test_other_work_is_the_share_of_the_cores_outside_the_run() -> None:
    report = Report()
    sum(range(2_000_000))  # this run's own work does not count

    assert 0.0 <= report.other_work() <= 1.0


def test_results_hold_the_reference_run_and_the_history_only() -> None:
    # One-off experiment files go in the history (rows) or history/notes.md (prose), so the
    # results directory cannot fill up with them again.
    kept = {p.name for p in RESULTS.iterdir()}

    assert kept <= {"latest.md", "latest.jsonl", "history", "pipeline"}
    assert {p.name for p in (RESULTS / "pipeline").iterdir()} <= {"latest.md", "latest.jsonl"}


def test_every_history_line_says_where_it_came_from() -> None:
    for path in (RESULTS / "history").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            missing = {"run", "commit", "recorded", "scale", "benchmark", "metric", "value"} - set(
                row
            )
            assert not missing, f"{path.name}: {missing} in {line[:120]}"
            assert row["benchmark"] == path.stem
