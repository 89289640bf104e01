"""The Java harness of the benchmarks (``benchmarks/java/``) runs Kafka's own classes on aclog's
workloads: it compiles against ``$KAFKA_HOME/libs``, its ``StandardAuthorizer`` decides every
request as aclog does, its loader reads the same ACLs and SCRAM credentials from the KRaft
files, and without a Kafka distribution or a JDK the suite is one row saying why."""

from __future__ import annotations

from pathlib import Path

import pytest

from aclog.kraft.encoding import encode_record
from aclog.kraft.writer import write_checkpoint
from benchmarks import bench_java, bench_java_load, workloads
from benchmarks.bench_authorizer import Budget
from benchmarks.java_harness import JAVA_IMPL, JavaHarness, find_harness
from benchmarks.report import Report
from tests.gates import unavailable

TINY = Budget(300, 0.03, 0.05, 3)


@pytest.fixture(scope="module")
def harness() -> JavaHarness:
    found = find_harness()
    if isinstance(found, str):
        unavailable(found)
    return found


def _cell(allow_everyone: bool = True) -> bench_java.Cell:
    kafka = workloads.kafka_workload(100, deny_percentage=20.0, hit_count=300)
    sets = {"testAuthorizer": [kafka.test_authorizer], "hits": kafka.hits}
    return bench_java.Cell("W1 R=100 d=20", kafka.acls, sets, allow_everyone)


def test_kafkas_authorizer_decides_every_request_as_aclog_does(harness: JavaHarness) -> None:
    report = Report()
    bench_java.compare(report, harness, _cell(), TINY)
    mismatches = [r for r in report.rows if r.metric == "mismatches"]
    assert [(r.workload, r.value) for r in mismatches] == [
        ("W1 R=100 d=20 testAuthorizer", 0),
        ("W1 R=100 d=20 hits", 0),
    ]
    assert "300 answers compared" in mismatches[1].note
    java_p50 = [r for r in report.rows if r.impl == JAVA_IMPL and r.metric == "p50"]
    assert len(java_p50) == 2 and all(r.value > 0 for r in java_p50)


def test_the_decision_check_sees_a_different_answer(harness: JavaHarness) -> None:
    """Java configured without allow.everyone.if.no.acl.found denies the GROUP names nobody has
    ACLs on, which aclog (configured with it) allows: the comparison must count them."""
    cell = _cell()
    _, decided = bench_java.run_java(harness, _cell(allow_everyone=False), TINY)
    authorizer = bench_java.aclog_for(cell)
    ours = [authorizer.authorize(*r).value for r in cell.sets["hits"]]
    assert len(decided["hits"]) == len(ours)
    assert sum(k != o for k, o in zip(decided["hits"], ours, strict=True)) > 0


def test_kafkas_loader_reads_the_same_acls_and_credentials(harness: JavaHarness) -> None:
    report = Report()
    bench_java_load.coldstart(report, harness, 300, 100)
    bench_java_load.memory(report, harness, 100)
    counted = [r for r in report.rows if r.metric == "mismatches"]
    assert [r.value for r in counted] == [0, 0]
    # 3 SCRAM users (one per 100 snapshot ACLs), one removed by the tail, on both sides.
    assert "2 credentials, Java 380 + 2" in counted[0].note
    heap = [r for r in report.rows if r.impl == JAVA_IMPL and r.metric == "memory"]
    assert len(heap) == 1 and heap[0].value > 0
    cpu = [r for r in report.rows if r.metric == "cpu seconds"]
    assert {r.impl for r in cpu} == {"aclog", JAVA_IMPL} and all(r.value > 0 for r in cpu)


def test_without_a_kafka_distribution_the_suite_is_one_row_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KAFKA_HOME", str(tmp_path / "no-kafka-here"))
    report = Report()
    bench_java.run(report, quick=True)
    assert [(r.impl, r.metric) for r in report.rows] == [(JAVA_IMPL, "skipped")]
    assert "no Kafka distribution at" in report.rows[0].note
    assert "KAFKA_HOME" in report.rows[0].note


def test_without_a_jdk_the_suite_is_one_row_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "libs").mkdir()
    (tmp_path / "libs" / "kafka.jar").write_bytes(b"")
    monkeypatch.setenv("KAFKA_HOME", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    report = Report()
    bench_java.run(report, quick=True)
    assert [(r.impl, r.metric) for r in report.rows] == [(JAVA_IMPL, "skipped")]
    assert report.rows[0].note.startswith("no JDK")


def test_the_rss_probe_measures_a_fresh_process_loading_the_checkpoint(tmp_path: Path) -> None:
    """121k ACLs take about 18 MB of objects (tracemalloc): the resident set grows by at least
    that much less what the interpreter had free, and by far less than a gigabyte."""
    acls = workloads.kafka_workload(10_000, deny_percentage=20.0, hit_count=1).acls
    values = [encode_record(a) for a in acls]
    write_checkpoint(tmp_path, len(acls), 1, values, 0, batch_size=10_000)
    grown = bench_java_load.rss_growth(tmp_path)
    assert grown is not None and 10 * 2**20 < grown < 2**30
