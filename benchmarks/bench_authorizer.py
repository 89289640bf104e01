"""Authorizer benchmarks: aclog's ``Authorizer`` beside a port of Kafka's algorithm, the naive
reference and a dict floor, in one process, on the same ACL objects and requests.

Implementations (``reference/benchmarks.md`` §7.2):

- ``aclog``: :class:`aclog.authorizer.Authorizer`, the subject;
- ``kafka-port``: :mod:`benchmarks.kafka_port`, Kafka's ``StandardAuthorizerData`` scan in Python
  (same runtime, so the difference is the algorithm); it counts the ACLs each call examines;
- ``reference``: ``tests/authorizer/reference.py``, a linear scan written from the spec; it runs
  up to about 120k ACLs on a time-bounded sample of the requests and every one of its answers is
  compared with aclog's and the port's;
- ``floor: dict``: a dict from the whole request tuple to aclog's precomputed decision, the
  physical floor of one lookup in CPython on this machine.

Workloads: W1 Kafka's ``AuthorizerBenchmark`` (its ``testAuthorizer`` request, its
``testAuthorizeByResourceType`` request, the full listing, and a mix of hit requests), W2 a
multi-tenant cluster with Zipf requests and the "metadata for all topics" request, W3 adversarial
prefixes (:mod:`benchmarks.workloads`). Every cell reports ``mismatches`` rows, which must be 0.
The suite ends with ``target`` rows comparing the measurements with the issue's targets.

Sizes (full run): W1 at R = 100, 1k, 10k, 100k resources with A = 10, d = 20 (1.2k to 1.2M ACLs),
R = 200k (2.4M ACLs: the cell of the "100x the Kafka algorithm at 200k resources" claim; the port
answers a time-bounded sample there) and R = 10k, d = 99 (the cell of Kafka's published 0.324 ms);
W2 at 1k to 1M ACLs; W3 at 1k to 100k. The reference is skipped above 130k ACLs and tracemalloc
above 130k ACLs (a ``skipped`` row says so). ``--quick`` keeps the 1k and 10k cells; ``--tiny``
the smallest.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aclog.authorizer import AclFilter, Authorizer, Decision
from aclog.records.collector import call_paused
from aclog.records.types import AccessControlEntryRecord
from benchmarks import published, workloads
from benchmarks.harness import (
    SCALE,
    Latency,
    Scale,
    latency_rows,
    measure,
    mismatch_row,
    release,
    time_once,
    timed_build,
    traced_bytes,
)
from benchmarks.kafka_port import KafkaPortAuthorizer
from benchmarks.report import Report, Row

BENCH = "authz"
ACLOG, KAFKA, REF, FLOOR = "aclog", "kafka-port", "reference", "floor: dict"
REFERENCE_LIMIT = 130_000
"""The reference runs on ACL sets up to this size (R=10k, d=20 is 121k ACLs)."""
LISTING_LIMIT = 130_000
MEMORY_LIMIT = 130_000
"""tracemalloc runs up to this size (it slows a build several times)."""


def reference_class() -> type:
    """The naive reference authorizer from the test suite (run from the repository root)."""
    from tests.authorizer.reference import ReferenceAuthorizer

    return ReferenceAuthorizer


def current_scale(quick: bool) -> Scale:
    if SCALE.name != "full":
        return SCALE
    return Scale("quick" if quick else "full")


@dataclass
class Budget:
    """Seconds and call counts for one scale."""

    calls: int
    seconds: float
    answer_seconds: float
    min_answers: int

    @classmethod
    def of(cls, scale: Scale) -> Budget:
        return scale.pick(
            full=cls(20_000, 0.6, 1.2, 20),
            quick=cls(5_000, 0.25, 0.5, 10),
            tiny=cls(300, 0.03, 0.05, 3),
        )


@dataclass
class Targets:
    """Measurements the issue states targets for, collected during the run."""

    values: dict[str, float] = field(default_factory=dict)

    def put(self, key: str, value: float) -> None:
        self.values[key] = value


@dataclass
class Built:
    aclog: Authorizer
    port: KafkaPortAuthorizer | None
    reference: Any


def run(report: Report, quick: bool) -> None:
    scale = current_scale(quick)
    budget = Budget.of(scale)
    targets = Targets()
    report.add(
        Row(
            BENCH,
            ACLOG,
            "(all workloads)",
            0,
            "examined",
            0,
            "ACLs/call",
            "not counted for aclog: it probes its index per name, it does not scan ACLs; "
            "see kafka-port and reference rows",
        )
    )
    _kafka(report, scale, budget, targets)
    _tenants(report, scale, budget, targets)
    _adversarial(report, scale, budget)
    _targets(report, targets)


# -- building -------------------------------------------------------------------------------


def build(
    report: Report,
    workload: str,
    acls: list[AccessControlEntryRecord],
    *,
    allow_everyone: bool,
    port: bool,
    reference: bool,
    memory: bool,
    bench: str = BENCH,
) -> Built:
    """Build every implementation on ``acls``, with build-time (and bytes/ACL) rows."""
    n = len(acls)

    def make_aclog() -> Authorizer:
        authorizer = Authorizer(allow_everyone_if_no_acl_found=allow_everyone)
        call_paused(authorizer.load, acls)  # as a broker's loader builds it (harness.py: GC)
        return authorizer

    def make_port() -> KafkaPortAuthorizer:
        kafka = KafkaPortAuthorizer(allow_everyone_if_no_acl_found=allow_everyone)
        kafka.load(acls)
        return kafka

    seconds, aclog = timed_build(make_aclog)
    report.add(Row(bench, ACLOG, workload, n, "build", seconds, "s", "load(): bulk build"))
    kafka = None
    if port:
        seconds, kafka = timed_build(make_port)
        note = "bulk build of the sorted sections (Kafka adds one at a time)"
        report.add(Row(bench, KAFKA, workload, n, "build", seconds, "s", note))
    if memory:
        note = "tracemalloc, the index alone (records excluded)"
        per_acl = traced_bytes(make_aclog) / max(1, n)
        report.add(Row(bench, ACLOG, workload, n, "memory", per_acl, "bytes/ACL", note))
        if port:
            per_acl = traced_bytes(make_port) / max(1, n)
            report.add(Row(bench, KAFKA, workload, n, "memory", per_acl, "bytes/ACL", note))
    elif n > MEMORY_LIMIT:
        report.add(
            Row(
                bench,
                ACLOG,
                workload,
                n,
                "skipped",
                0,
                "memory",
                "no tracemalloc at this size (too slow); see the smaller cells",
            )
        )
    ref = None
    if reference:
        ref = reference_class()((), allow_everyone)
        ref.load(acls)
    else:
        report.add(
            Row(
                bench,
                REF,
                workload,
                n,
                "skipped",
                0,
                "all",
                f"linear scan not run above {REFERENCE_LIMIT:,} ACLs (about 0.1 s a call)",
            )
        )
    return Built(aclog, kafka, ref)


# -- answering and timing ---------------------------------------------------------------------


def answers_within(
    fn: Callable[..., Any],
    requests: Sequence[tuple],
    seconds: float,
    minimum: int,
    after: Callable[[], None] | None = None,
) -> tuple[list[Any], list[int]]:
    """Answers to a prefix of ``requests`` (at least ``minimum``, until ``seconds`` pass) and the
    ns each call took; ``after`` runs after each call (to read a counter)."""
    now = time.perf_counter_ns
    deadline = now() + int(seconds * 1e9)
    answers: list[Any] = []
    took: list[int] = []
    for request in requests:
        start = now()
        answers.append(fn(*request))
        end = now()
        took.append(end - start)
        if after is not None:
            after()
        if end > deadline and len(answers) >= minimum:
            break
    return answers, sorted(took)


def floor_for(requests: Sequence[tuple], answers: Sequence[Decision]) -> Callable[..., Decision]:
    table = dict(zip(requests, answers, strict=True))

    def floor(principal: str, host: str, operation: Any, rtype: Any, name: str) -> Decision:
        return table[(principal, host, operation, rtype, name)]

    return floor


ACLOG_COLD = "aclog (memo cold)"
MEMO_COLD_NOTE = "memo emptied before each call: every name a first sight"


def memo_cold(authorizer: Authorizer) -> Callable[..., Decision]:
    """``authorize`` with the memo of the rules per name emptied first, so nothing is
    remembered from the previous call (the emptying, dict clears, is timed too). The memo is
    two dicts per resource type: ``memo`` (names asked more than once) and ``once`` (names
    asked once, with their rules); both are emptied."""
    memos = [
        memo for names in authorizer.index.by_type.values() for memo in (names.memo, names.once)
    ]

    def authorize(principal: str, host: str, operation: Any, rtype: Any, name: str) -> Decision:
        for memo in memos:
            memo.clear()
        return authorizer.authorize(principal, host, operation, rtype, name)

    return authorize


def compare(
    report: Report,
    built: Built,
    workload: str,
    size: int,
    requests: Sequence[tuple],
    budget: Budget,
    bench: str = BENCH,
) -> dict[str, Latency]:
    """Answer ``requests`` with every implementation, report mismatches, latencies and ACLs
    examined per call. Returns the latencies by implementation."""
    aclog_answers = [built.aclog.authorize(*r) for r in requests]
    allowed = sum(1 for a in aclog_answers if a == Decision.ALLOWED) / max(1, len(requests))
    latencies: dict[str, Latency] = {}
    latencies[ACLOG] = measure(
        built.aclog.authorize, requests, max_calls=budget.calls, max_seconds=budget.seconds
    )
    note = f"{allowed:.0%} of the requests allowed"
    latency_rows(report, bench, ACLOG, workload, size, latencies[ACLOG], note)
    cold = measure(
        memo_cold(built.aclog), requests, max_calls=budget.calls, max_seconds=budget.seconds
    )
    latency_rows(report, bench, ACLOG_COLD, workload, size, cold, MEMO_COLD_NOTE)
    latencies[ACLOG_COLD] = cold

    port_answers: list[Any] = []
    if built.port is not None:
        port = built.port
        examined: list[int] = []
        port_answers, _ = answers_within(
            port.authorize,
            requests,
            budget.answer_seconds,
            budget.min_answers,
            after=lambda: examined.append(port.examined),
        )
        subset = requests[: len(port_answers)]
        latencies[KAFKA] = measure(
            port.authorize, subset, max_calls=budget.calls, max_seconds=budget.seconds
        )
        latency_rows(report, bench, KAFKA, workload, size, latencies[KAFKA])
        mean = sum(examined) / len(examined)
        report.add(
            Row(
                bench,
                KAFKA,
                workload,
                size,
                "examined",
                mean,
                "ACLs/call",
                f"mean over {len(examined):,} calls; max {max(examined):,}",
            )
        )
        mismatch_row(
            report,
            bench,
            f"{ACLOG} vs {KAFKA}",
            workload,
            size,
            aclog_answers[: len(port_answers)],
            port_answers,
            subset,
        )

    if built.reference is not None:
        ref_answers, took = answers_within(
            built.reference.authorize, requests, budget.answer_seconds, budget.min_answers
        )
        latencies[REF] = Latency(took)
        latency_rows(
            report, bench, REF, workload, size, latencies[REF], "timed while cross-checking"
        )
        report.add(
            Row(
                bench,
                REF,
                workload,
                size,
                "examined",
                float(size),
                "ACLs/call",
                "every ACL by construction (twice when nothing matches)",
            )
        )
        subset = requests[: len(ref_answers)]
        mismatch_row(
            report,
            bench,
            f"{ACLOG} vs {REF}",
            workload,
            size,
            aclog_answers[: len(ref_answers)],
            ref_answers,
            subset,
        )
        if port_answers:
            k = min(len(port_answers), len(ref_answers))
            mismatch_row(
                report,
                bench,
                f"{KAFKA} vs {REF}",
                workload,
                size,
                port_answers[:k],
                ref_answers[:k],
                requests[:k],
            )

    floor = floor_for(requests, aclog_answers)
    latencies[FLOOR] = measure(floor, requests, max_calls=budget.calls, max_seconds=budget.seconds)
    latency_rows(
        report,
        bench,
        FLOOR,
        workload,
        size,
        latencies[FLOOR],
        "dict[(principal, host, op, type, name)] -> decision",
    )
    return latencies


# -- W1: Kafka's AuthorizerBenchmark ------------------------------------------------------------


def _kafka(report: Report, scale: Scale, budget: Budget, targets: Targets) -> None:
    cells = scale.pick(
        full=[
            (100, 20.0),
            (1_000, 20.0),
            (10_000, 20.0),
            (100_000, 20.0),
            (200_000, 20.0),
            (10_000, 99.0),
        ],
        quick=[(100, 20.0), (1_000, 20.0), (1_000, 99.0)],
        tiny=[(100, 20.0)],
    )
    resources = cells[-1][0] if scale.tiny else 1_000
    per_acl = traced_bytes(lambda: workloads.kafka_workload(resources).acls)
    n = len(workloads.kafka_workload(resources).acls)
    report.add(
        Row(
            BENCH,
            "input records",
            f"W1 R={resources:,} d=0",
            n,
            "memory",
            per_acl / n,
            "bytes/ACL",
            "AccessControlEntryRecord + UUID + strings, shared by all impls",
        )
    )
    for resources, deny in cells:
        _kafka_cell(report, scale, budget, targets, resources, deny, fix_host_bug=False)
        release()
    extra = scale.pick(full=(1_000, 20.0), quick=(100, 20.0), tiny=None)
    if extra is not None:
        _kafka_cell(report, scale, budget, targets, *extra, fix_host_bug=True)
        release()


def _listing(
    report: Report, built: Built, label: str, n: int, resources: int, deny: float, scale: Scale
) -> None:
    """acls(ANY): the whole listing in Kafka's order, aclog beside the port."""
    if n <= scale.pick(full=LISTING_LIMIT, quick=15_000, tiny=2_000):
        workload = f"{label} acls() listing"
        took, listed = time_once(lambda: built.aclog.acls(AclFilter()))
        note = "Kafka order; the first listing of this index sorts it"
        report.add(Row(BENCH, ACLOG, workload, n, "time", took * 1000, "ms", note))
        took, _ = time_once(lambda: built.aclog.acls(AclFilter()))
        note = "listed again, same index: walks the listing sorted by the first"
        report.add(Row(BENCH, f"{ACLOG} (again)", workload, n, "time", took * 1000, "ms", note))
        took, port_listed = time_once(built.port.acls)
        report.add(
            Row(BENCH, KAFKA, workload, n, "time", took * 1000, "ms", "walks the sorted collection")
        )
        published.add_published(
            report, "testAclsIterator", resources, deny, workload, n, nearest=False
        )
        mismatch_row(
            report,
            BENCH,
            f"{ACLOG} vs {KAFKA}",
            workload,
            n,
            [a.id for a in listed],
            [a.id for a in port_listed],
            [(i,) for i in range(len(listed))],
            "listing order, ACL by ACL",
        )
    else:
        note = f"not run above {LISTING_LIMIT:,} ACLs: aclog sorts the whole listing (O(n log n))"
        report.add(Row(BENCH, ACLOG, f"{label} acls() listing", n, "skipped", 0, "all", note))


def _kafka_cell(
    report: Report,
    scale: Scale,
    budget: Budget,
    targets: Targets,
    resources: int,
    deny: float,
    fix_host_bug: bool,
) -> None:
    hits = scale.pick(full=2000, quick=1000, tiny=100)
    work = workloads.kafka_workload(
        resources, deny_percentage=deny, fix_host_bug=fix_host_bug, hit_count=hits
    )
    n = len(work.acls)
    label = f"W1 R={resources:,} d={deny:g}" + (" host-fix" if fix_host_bug else "")
    memory = n <= scale.pick(full=MEMORY_LIMIT, quick=15_000, tiny=2_000)
    built = build(
        report,
        label,
        work.acls,
        allow_everyone=True,
        port=True,
        reference=n <= REFERENCE_LIMIT,
        memory=memory,
    )

    # (a) testAuthorizer: WRITE on "...-95" from 127.0.0.1, DENIED after the full scan.
    workload = f"{label} testAuthorizer"
    request = [work.test_authorizer]
    expected = [Decision.DENIED]
    latency = measure(
        built.aclog.authorize, request, max_calls=budget.calls, max_seconds=budget.seconds / 2
    )
    latency_rows(report, BENCH, ACLOG, workload, n, latency)
    answers = {ACLOG: built.aclog.authorize(*work.test_authorizer)}
    assert built.port is not None
    port_latency = measure(
        built.port.authorize, request, max_calls=budget.calls, max_seconds=budget.seconds / 2
    )
    latency_rows(report, BENCH, KAFKA, workload, n, port_latency)
    answers[KAFKA] = built.port.authorize(*work.test_authorizer)
    report.add(
        Row(
            BENCH,
            KAFKA,
            workload,
            n,
            "examined",
            built.port.examined,
            "ACLs/call",
            f"benchmarks.md §1.1 predicts {work.predicted_examined:,} for this ACL set",
        )
    )
    if built.reference is not None:
        took, answers[REF] = time_once(lambda: built.reference.authorize(*work.test_authorizer))
        report.add(Row(BENCH, REF, workload, n, "p50", took * 1e6, "µs", "1 call"))
    published.add_published(report, "testAuthorizer", resources, deny, workload, n)
    mismatch_row(
        report,
        BENCH,
        "all vs DENIED",
        workload,
        n,
        list(answers.values()),
        expected * len(answers),
        request * len(answers),
        " ".join(answers),
    )
    if not fix_host_bug and deny == 20.0:
        targets.put(f"kafka_test_aclog_p50@{resources}", latency.p50_us)
        targets.put(f"kafka_test_port_p50@{resources}", port_latency.p50_us)
        targets.put(f"kafka_test_size@{resources}", n)

    # (b) authorizeByResourceType: READ on TOPIC from 127.0.0.2, plus two more to cross-check.
    _by_type(report, built, work, label, n, resources, deny, scale)

    # (c) acls(ANY): the whole listing, in Kafka's order.
    _listing(report, built, label, n, resources, deny, scale)

    # (d) the hit mix.
    workload = f"{label} hits"
    latencies = compare(report, built, workload, n, work.hits, budget)
    if not fix_host_bug and deny == 20.0:
        targets.put(f"kafka_hits_aclog_p50@{resources}", latencies[ACLOG].p50_us)
        targets.put(f"kafka_hits_floor_p50@{resources}", latencies[FLOOR].p50_us)
        targets.put(f"kafka_hits_size@{resources}", n)
        targets.put(f"kafka_hits_cold_aclog_p50@{resources}", latencies[ACLOG_COLD].p50_us)
        targets.put(f"kafka_hits_cold_size@{resources}", n)
        if KAFKA in latencies:
            targets.put(f"kafka_hits_port_p50@{resources}", latencies[KAFKA].p50_us)


def _by_type(
    report: Report,
    built: Built,
    work: workloads.KafkaWorkload,
    label: str,
    n: int,
    resources: int,
    deny: float,
    scale: Scale,
) -> None:
    workload = f"{label} byResourceType"
    principal, _, _, _ = work.by_type
    asked = [
        work.by_type,
        (principal, "127.0.0.1", workloads.O.READ, workloads.GROUP),
        ("User:test-user3", "10.0.0.1", workloads.O.WRITE, workloads.TOPIC),
    ]
    repeat = scale.pick(full=3 if n < 500_000 else 1, quick=2, tiny=1)
    took, _ = time_once(lambda: built.aclog.authorize_by_resource_type(*work.by_type), repeat)
    report.add(Row(BENCH, ACLOG, workload, n, "time", took * 1000, "ms", f"best of {repeat}"))
    assert built.port is not None
    took, _ = time_once(lambda: built.port.authorize_by_resource_type(*work.by_type), repeat)
    report.add(
        Row(
            BENCH,
            KAFKA,
            workload,
            n,
            "time",
            took * 1000,
            "ms",
            "the interface default: scans every ACL of the type",
        )
    )
    published.add_published(report, "testAuthorizeByResourceType", resources, deny, workload, n)
    aclog_answers = [built.aclog.authorize_by_resource_type(*q) for q in asked]
    port_answers = [built.port.authorize_by_resource_type(*q) for q in asked]
    mismatch_row(
        report, BENCH, f"{ACLOG} vs {KAFKA}", workload, n, aclog_answers, port_answers, asked
    )
    if built.reference is not None:
        took, _ = time_once(lambda: built.reference.kafka_authorize_by_resource_type(*work.by_type))
        report.add(Row(BENCH, REF, workload, n, "time", took * 1000, "ms", "1 call"))
        ref_answers = [built.reference.kafka_authorize_by_resource_type(*q) for q in asked]
        mismatch_row(
            report, BENCH, f"{ACLOG} vs {REF}", workload, n, aclog_answers, ref_answers, asked
        )


# -- W2: multi-tenant ---------------------------------------------------------------------------


def _tenants(report: Report, scale: Scale, budget: Budget, targets: Targets) -> None:
    sizes = scale.pick(
        full=[1_000, 10_000, 100_000, 1_000_000], quick=[1_000, 10_000], tiny=[1_000]
    )
    for target in sizes:
        count = scale.pick(full=5000, quick=2000, tiny=200)
        work = workloads.tenant_workload(target, request_count=count)
        n = len(work.acls)
        label = f"W2 tenants {target:,}"
        memory = n <= scale.pick(full=MEMORY_LIMIT, quick=15_000, tiny=2_000)
        built = build(
            report,
            label,
            work.acls,
            allow_everyone=False,
            port=True,
            reference=n <= REFERENCE_LIMIT,
            memory=memory,
        )
        latencies = compare(report, built, f"{label} zipf", n, work.requests, budget)
        targets.put(f"tenant_aclog_p50@{target}", latencies[ACLOG].p50_us)
        targets.put(f"tenant_floor_p50@{target}", latencies[FLOOR].p50_us)
        targets.put(f"tenant_size@{target}", n)
        targets.put(f"tenant_cold_aclog_p50@{target}", latencies[ACLOG_COLD].p50_us)
        targets.put(f"tenant_cold_size@{target}", n)
        _metadata_all(report, built, work, f"{label} metadata all topics", n, budget)
        del built, work
        release()


def _metadata_all(
    report: Report,
    built: Built,
    work: workloads.TenantWorkload,
    workload: str,
    n: int,
    budget: Budget,
) -> None:
    """DESCRIBE on every topic for one principal (Redpanda's stall case). The port runs on the
    topics it gets through in the answer budget, and both report µs per topic."""
    principal = work.metadata_principal
    requests = [
        (principal, "10.1.0.1", workloads.O.DESCRIBE, workloads.TOPIC, t) for t in work.topics
    ]
    took, answers = time_once(lambda: [built.aclog.authorize(*r) for r in requests])
    allowed = sum(1 for a in answers if a == Decision.ALLOWED)
    note = f"{len(requests):,} topics, {allowed:,} allowed"
    report.add(Row(BENCH, ACLOG, workload, n, "time", took * 1000, "ms", note))
    report.add(Row(BENCH, ACLOG, workload, n, "per topic", took * 1e6 / len(requests), "µs"))
    if built.port is not None:
        start = time.perf_counter()
        port_answers, _ = answers_within(
            built.port.authorize, requests, budget.answer_seconds, budget.min_answers
        )
        took = time.perf_counter() - start
        done = len(port_answers)
        note = f"first {done:,} of {len(requests):,} topics" if done < len(requests) else note
        if done == len(requests):
            report.add(Row(BENCH, KAFKA, workload, n, "time", took * 1000, "ms", note))
        report.add(Row(BENCH, KAFKA, workload, n, "per topic", took * 1e6 / done, "µs", note))
        mismatch_row(
            report,
            BENCH,
            f"{ACLOG} vs {KAFKA}",
            workload,
            n,
            answers[:done],
            port_answers,
            requests[:done],
        )


# -- W3: adversarial prefixes -------------------------------------------------------------------


def _adversarial(report: Report, scale: Scale, budget: Budget) -> None:
    sizes = scale.pick(full=[1_000, 10_000, 100_000], quick=[1_000, 10_000], tiny=[1_000])
    for target in sizes:
        work = workloads.adversarial_workload(target)
        n = len(work.acls)
        label = f"W3 adversarial {target:,}"
        built = build(
            report,
            label,
            work.acls,
            allow_everyone=False,
            port=True,
            reference=n <= REFERENCE_LIMIT,
            memory=False,
        )
        requests = list(work.cases.values())
        compare(report, built, f"{label} mix", n, requests, budget)
        if target == sizes[-1]:
            small = Budget(budget.calls // 4, budget.seconds / 4, budget.answer_seconds, 1)
            for case, request in work.cases.items():
                for impl, fn in (
                    (ACLOG, built.aclog.authorize),
                    (KAFKA, built.port.authorize if built.port else None),
                ):
                    if fn is None:
                        continue
                    latency = measure(
                        fn,
                        [request],
                        max_calls=small.calls,
                        max_seconds=small.seconds,
                        throughput=False,
                    )
                    note = f"{len(latency.samples):,} calls"
                    if impl == KAFKA and built.port is not None:
                        note += f"; {built.port.examined:,} ACLs examined"
                    report.add(Row(BENCH, impl, f"W3 {case}", n, "p50", latency.p50_us, "µs", note))
        del built, work
        release()


# -- targets ------------------------------------------------------------------------------------


def _targets(report: Report, targets: Targets) -> None:
    """One row per target of the issue, with the measured value, the ratio and met / NOT met."""
    v = targets.values

    def add(name: str, size: float, metric: str, value: float, unit: str, met: bool, note: str):
        verdict = "met" if met else "NOT met"
        report.add(Row("target", ACLOG, name, int(size), metric, value, unit, f"{verdict}; {note}"))

    series = (
        ("kafka_test", "W1 testAuthorizer", 100, 100_000),
        ("kafka_hits", "W1 hits", 100, 100_000),
        ("tenant", "W2 zipf", 1_000, 1_000_000),
        ("kafka_hits_cold", "W1 hits (memo cold)", 100, 100_000),
        ("tenant_cold", "W2 zipf (memo cold)", 1_000, 1_000_000),
    )
    for prefix, name, small, large in series:
        p50 = v.get(f"{prefix}_aclog_p50@{large}")
        if p50 is None:
            continue
        size = v[f"{prefix}_size@{large}"]
        add(
            f"{name}: p50 <= 3 µs at 1M ACLs",
            size,
            "p50",
            p50,
            "µs",
            p50 <= 3,
            f"{p50 / 3:.2g}x the target",
        )
        first = v.get(f"{prefix}_aclog_p50@{small}")
        if first:
            growth = p50 / first
            add(
                f"{name}: growth 1k -> 1M ACLs < 2x",
                size,
                "ratio",
                growth,
                "x",
                growth < 2,
                f"p50 {first:.3g} µs at {v[f'{prefix}_size@{small}']:,.0f} ACLs -> {p50:.3g} µs",
            )
        floor = v.get(f"{prefix}_floor_p50@{large}")
        if floor:
            ratio = p50 / floor
            add(
                f"{name}: within 10x of the dict floor",
                size,
                "ratio",
                ratio,
                "x",
                ratio <= 10,
                f"floor p50 {floor:.3g} µs on the same requests",
            )
    for prefix, name in (("kafka_test", "W1 testAuthorizer"), ("kafka_hits", "W1 hits")):
        port, aclog = v.get(f"{prefix}_port_p50@200000"), v.get(f"{prefix}_aclog_p50@200000")
        if port is not None and aclog:
            speedup = port / aclog
            add(
                f"{name} at R=200,000: >= 100x the Kafka port",
                v[f"{prefix}_size@200000"],
                "speed-up",
                speedup,
                "x",
                speedup >= 100,
                f"port p50 {port:,.0f} µs, aclog p50 {aclog:.3g} µs",
            )
    memory = [
        r for r in report.rows if r.benchmark == BENCH and r.impl == ACLOG and r.metric == "memory"
    ]
    if memory:
        largest = max(memory, key=lambda r: r.size)
        add(
            "memory <= 1 KB per ACL",
            largest.size,
            "memory",
            largest.value,
            "bytes/ACL",
            largest.value <= 1024,
            f"largest traced build ({largest.workload}); the records themselves excluded",
        )
