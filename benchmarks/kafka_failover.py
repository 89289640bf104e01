"""The failover probe's Kafka twin: the faults of :mod:`benchmarks.failover_probe` injected
into a real three-node KRaft quorum (:class:`benchmarks.kraft_quorum.KRaftQuorum`) under the
same kind of write load, measured the same way.

:class:`KafkaLoad` is one client sending one-ACL CreateAcls (each naming a new topic, the
request aclog's probe sends, on a fresh connection with the same 2 s timeout) through one
broker until a write fails, then through the next, as a client given all three bootstrap
servers does; it records every answer and the error of every failure. :func:`run_round`
finds the active controller (DescribeQuorum), points the client at a seeded broker (the
faulted node's own in some rounds), SIGKILLs the controller (then restarts it) or SIGSTOPs it
for a seeded 0.5-6 s (then SIGCONT), and measures the time from the fault to the first
CreateAcls sent after it that was acknowledged. :func:`missing` then asks every node's broker
(DescribeAcls) for the probe's ACLs until each holds every acknowledged one, or a minute has
passed: what is still absent is lost.

Not thread-safe beyond what it says: one thread drives the quorum, the load runs in its own.
Cost: three JVMs; a round a few seconds, plus a node's restart after a kill.
"""

from __future__ import annotations

import random
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.failover_probe import REQUEST_TIMEOUT, RoundResult, create_acl_request
from benchmarks.kraft_quorum import NODES, KRaftQuorum
from benchmarks.load_thread import Writer
from benchmarks.servers import exchange

KINDS = ("kill-leader", "sigstop-leader")
PRINCIPAL = "User:probe"
NO_ANSWER, REFUSED, CLOSED = -1, -2, -3
"""Error codes of the client's own, for a write that got no Kafka error code."""
CONVERGE_SECONDS = 60.0
ANY, MATCH_ANY = 1, 1  # DescribeAcls filter values: any resource type / pattern / operation


@dataclass(frozen=True, slots=True)
class Answer:
    """One CreateAcls: when it was sent (monotonic seconds), its latency, the broker it went
    through, its error code (0: acknowledged) and the fault kind whose rounds it belongs to."""

    sent: float
    seconds: float
    node: int
    error: int
    topic: str
    kind: str


def error_name(code: int) -> str:
    """What the client saw: Kafka's name of an error code, or what happened to the socket."""
    local = {NO_ANSWER: f"no answer within {REQUEST_TIMEOUT:g} s", REFUSED: "connection refused"}
    if code in local:
        return local[code]
    if code == CLOSED:
        return "connection closed"
    from kafka.errors import for_code

    return str(for_code(code).message)


@dataclass
class KafkaLoad(Writer):
    """One client writing through ``broker`` until :meth:`stop`; thread-safe to read. The
    driver may set ``broker`` (the next write goes there) and ``kind`` (the answers' label)."""

    quorum: KRaftQuorum
    broker: int = NODES[0]
    kind: str = ""
    answers: list[Answer] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            i += 1
            answer = self._send(self.broker, f"kafka-probe-{i}")
            self.answers.append(answer)
            if answer.error != 0:  # the next broker, after a pause a client's backoff takes
                self.broker = NODES[(NODES.index(answer.node) + 1) % len(NODES)]
                time.sleep(0.02)

    def _send(self, node: int, topic: str) -> Answer:
        from kafka.protocol.admin import CreateAclsResponse

        request, kind = create_acl_request(topic, PRINCIPAL), self.kind
        sent = time.monotonic()
        try:
            port = self.quorum.ports[node]
            response = exchange(port, request, CreateAclsResponse, timeout=REQUEST_TIMEOUT)
            error = int(response.results[0].error_code)
        except TimeoutError:
            error = NO_ANSWER
        except ConnectionRefusedError:
            error = REFUSED
        except OSError:
            error = CLOSED
        return Answer(sent, time.monotonic() - sent, node, error, topic, kind)

    def point_at(self, node: int, timeout: float = 30.0) -> None:
        """Write through ``node`` from now on; returns once a write through it was
        acknowledged (a failed write in flight moves the client on, so it is set again)."""
        deadline = time.monotonic() + timeout
        since = time.monotonic()
        while time.monotonic() < deadline:
            self.broker = node
            recent = self.answers[-5:]  # a slice is taken whole under the GIL
            if any(a.sent >= since and a.node == node and a.error == 0 for a in recent):
                return
            time.sleep(0.01)
        raise RuntimeError(f"no write through broker {node} acknowledged in {timeout:.0f} s")

    def acknowledged(self) -> dict[str, str]:
        """Every acknowledged ACL's topic, with the kind of the rounds it was written in."""
        return {a.topic: a.kind for a in list(self.answers) if a.error == 0}

    def first_ack(self, since: float) -> float | None:
        """Seconds from ``since`` to the first acknowledgement of a write sent after it."""
        for answer in list(self.answers):
            if answer.sent >= since and answer.error == 0:
                return answer.sent + answer.seconds - since
        return None

    def failures(self, kind: str) -> Counter[str]:
        """What the client saw instead of an acknowledgement in ``kind`` 's rounds."""
        return Counter(
            error_name(a.error) for a in list(self.answers) if a.kind == kind and a.error
        )


def _await_leader(quorum: KRaftQuorum, load: KafkaLoad, timeout: float = 120.0) -> int:
    """The active controller, once all three nodes run and the latest write was acknowledged
    within the last half second."""
    deadline = time.monotonic() + timeout
    while True:
        recent = [a for a in load.answers[-20:] if a.error == 0]
        fresh = recent and recent[-1].sent > time.monotonic() - 0.5
        leader = quorum.leader() if fresh and len(quorum.live()) == len(NODES) else None
        if leader is not None:
            return leader
        if time.monotonic() > deadline:
            raise RuntimeError("the KRaft quorum acknowledged no write or named no leader")
        time.sleep(0.1)


def run_round(
    quorum: KRaftQuorum, load: KafkaLoad, kind: str, rng: random.Random
) -> tuple[RoundResult, bool]:
    """Inject one fault of ``kind``; the round's result and whether the client wrote through
    the faulted node's broker."""
    leader = _await_leader(quorum, load)
    frozen = rng.uniform(0.5, 6.0)  # drawn first: the same seed freezes aclog's leader as long
    broker = rng.choice(NODES)
    load.point_at(broker)
    through_leader = broker == leader
    fault = time.monotonic()
    if kind == "kill-leader":
        quorum.kill(leader)
        failover = _wait_ack(load, fault, 30.0)
        quorum.start(leader)
        return RoundResult(kind, 0.0, failover, [], []), through_leader
    quorum.pause(leader)
    during = _wait_ack(load, fault, frozen)
    quorum.resume(leader)
    if during is None:  # nobody took over while it was frozen: measured from the fault
        return RoundResult(kind, frozen, _wait_ack(load, fault, 30.0), [], []), through_leader
    return RoundResult(kind, frozen, during, [], [], True), through_leader


def _wait_ack(load: KafkaLoad, since: float, timeout: float) -> float | None:
    deadline = since + timeout
    while time.monotonic() < deadline:
        found = load.first_ack(since)
        if found is not None and found <= timeout:
            return found
        time.sleep(0.02)
    found = load.first_ack(since)
    return found if found is not None and found <= timeout else None


def described(port: int) -> set[str]:
    """The topics of the probe's ACLs one broker's DescribeAcls returns (empty on no answer)."""
    from kafka.protocol.admin import DescribeAclsRequest, DescribeAclsResponse

    request = DescribeAclsRequest(
        version=3, resource_type_filter=ANY, resource_name_filter=None,
        pattern_type_filter=MATCH_ANY, principal_filter=PRINCIPAL, host_filter=None,
        operation=ANY, permission_type=ANY,
    )  # fmt: skip
    try:
        response = exchange(port, request, DescribeAclsResponse, timeout=30.0)
    except OSError:
        return set()
    return {r.resource_name for r in response.resources} if response.error_code == 0 else set()


def missing(quorum: KRaftQuorum, acknowledged: set[str]) -> set[str]:
    """The acknowledged ACLs some node's broker still lacks after up to a minute."""
    deadline = time.monotonic() + CONVERGE_SECONDS
    while True:
        absent = {t for n in NODES for t in acknowledged - described(quorum.ports[n])}
        if not absent or time.monotonic() > deadline:
            return absent
        time.sleep(0.5)


@dataclass
class Probe:
    """What the rounds of each kind measured, lost and saw, and every pid the quorum started."""

    results: dict[str, list[RoundResult]]
    through_leader: dict[str, int]
    lost: dict[str, int]
    failures: dict[str, Counter[str]]
    acknowledged: int
    pids: list[int]


def probe(count: int, seed: int, kinds: tuple[str, ...] = KINDS) -> Probe:
    """``count`` seeded rounds of each of ``kinds`` on a fresh quorum, which is gone after."""
    results: dict[str, list[RoundResult]] = {kind: [] for kind in kinds}
    through = dict.fromkeys(kinds, 0)
    with tempfile.TemporaryDirectory(prefix="aclog-bench-kraft-") as tmp:
        quorum = KRaftQuorum(Path(tmp))
        with quorum:
            load = KafkaLoad(quorum).start()
            try:
                for kind in kinds:
                    load.kind = kind
                    for i in range(count):
                        result, on_leader = run_round(quorum, load, kind, random.Random(seed + i))
                        results[kind].append(result)
                        through[kind] += on_leader
            finally:
                load.stop()
            acknowledged = load.acknowledged()
            absent = missing(quorum, set(acknowledged))
    lost = {kind: sum(acknowledged[t] == kind for t in absent) for kind in kinds}
    failures = {kind: load.failures(kind) for kind in kinds}
    return Probe(results, through, lost, failures, len(acknowledged), quorum.started)
