"""The failover rows of a real Kafka: :mod:`benchmarks.kafka_failover` on a three-node KRaft
quorum from ``$KAFKA_HOME``, in the shape of aclog's failover probe rows
(:func:`benchmarks.bench_failover_probe.failover_row`: the median time from the fault to the
first acknowledged CreateAcls, how many rounds within 3 s, the worst, lost acknowledged
writes), so the README's failover table shows them beside aclog's.

Rows: SIGKILL of the active controller (then restarted) and SIGSTOP of it (0.5-6 s, then
SIGCONT), :data:`ROUNDS` seeded rounds of each (1 with ``--quick``); each note adds how many
rounds the client wrote through the faulted node's broker and what it got instead of an
acknowledgement. Without a Kafka distribution or Java, one ``skipped`` row says why; a quorum
that does not start or serve gives one ``failed`` row with the reason.
"""

from __future__ import annotations

from benchmarks.bench_failover_probe import SEED, failover_row
from benchmarks.kafka_failover import KINDS, Probe, probe
from benchmarks.kraft_quorum import LABEL, why_missing
from benchmarks.report import Report, Row

ROUNDS = 3
EVERY_ROW = "(every Kafka failover row)"
TIMEOUTS = "Kafka's default quorum timeouts (fetch 2 s, election 1 s)"


def run(report: Report, quick: bool) -> None:
    problem = why_missing()
    if problem is not None:
        report.add(Row("failover", LABEL, EVERY_ROW, 0, "skipped", 0, "rows", problem))
        return
    try:
        measured = probe(1 if quick else ROUNDS, SEED)
    except (RuntimeError, OSError) as error:  # the quorum did not start or serve: say why
        report.add(Row("failover", LABEL, EVERY_ROW, 0, "failed", 0, "rows", str(error)))
        return
    for row in rows(measured):
        report.add(row)


def rows(measured: Probe) -> list[Row]:
    """One row per fault kind the probe ran."""
    out = []
    for kind in KINDS:
        results = measured.results.get(kind)
        if not results:
            continue
        failures = measured.failures[kind].most_common()
        saw = ", ".join(f"{n}x {name}" for name, n in failures) or "no failed write"
        more = (
            f"; client wrote through the faulted node in {measured.through_leader[kind]}"
            f" of {len(results)}; it saw: {saw}; {TIMEOUTS}"
        )
        out.append(failover_row(kind, results, LABEL, measured.lost[kind], more))
    return out
