"""A failover probe: three ``aclog serve --controller`` processes on one data directory under a
steady write load, and seeded faults an operator meets: the leader SIGSTOPped for a random time
(then SIGCONT), the leader SIGSTOPped inside an append (before its bytes reach the segment,
where it used to hold the append lock), a standby SIGSTOPped, the leader killed with SIGKILL
(then restarted), the leader's disk stalled for a random time (every fsync it makes waits,
:mod:`benchmarks.stall`).

:class:`Cluster` runs the nodes; :class:`Load` is one client that sends one-ACL CreateAcls to
whichever node says it is the active controller, each naming a new topic, and records every
answer (when, how long it took, which node, the error code); :func:`run_round` injects one fault
and measures the time from the fault to the first write a *different* node acknowledged (the
failover time), or, for a frozen standby, the leader's write latencies while it is frozen;
:func:`check_log` then proves the safety: every acknowledged ACL is in the log, which reads
whole and in epoch order. The test suite runs a few rounds; ``bench_failover`` runs twenty of
each kind.

Not thread-safe beyond what it says: one thread drives a cluster, the load runs in its own.
Cost: three server processes, one client thread; each round a few seconds of wall time.
"""

from __future__ import annotations

import random
import signal
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aclog.log import read_batches
from aclog.log.claims import load_fences
from aclog.replay.rebuild import rebuild_image
from benchmarks.load_thread import Writer
from benchmarks.servers import Served, exchange, serve
from benchmarks.stall import LAUNCHER

KINDS = ("sigstop-leader", "sigstop-standby", "kill-leader", "stall-leader", "freeze-in-append")
REQUEST_TIMEOUT = 2.0


@dataclass(frozen=True, slots=True)
class Answer:
    """One CreateAcls: when it was sent (monotonic seconds), its latency, the node that answered
    and its error code (-1: no answer within the timeout or a closed connection)."""

    sent: float
    seconds: float
    node: int
    error: int
    topic: str


class Cluster:
    """Three ``aclog serve --controller`` nodes (ids 1..3) on ``workdir/data``."""

    def __init__(self, workdir: Path, *extra: str) -> None:
        self.workdir, self.data, self.extra = workdir, workdir / "data", extra
        self.nodes: dict[int, Served] = {}
        self.stopped: set[int] = set()
        self.stalled: set[int] = set()
        self._stack = ExitStack()
        self._starts = 0

    def __enter__(self) -> Cluster:
        for node_id in (1, 2, 3):
            self.start(node_id)
        return self

    def __exit__(self, *exc: object) -> None:
        for node_id in list(self.stopped):
            self.resume(node_id)
        for node_id in list(self.stalled):
            self.unstall(node_id)
        self._stack.close()

    def start(self, node_id: int) -> None:
        self._starts += 1
        args = ("--controller", "--node-id", str(node_id), *self.extra)
        name = f"n{node_id}-{self._starts}"
        stall = {
            "ACLOG_PROBE_STALL": str(self._marker(node_id)),
            "ACLOG_PROBE_FREEZE": str(self._marker(node_id, "freeze")),
        }
        self.nodes[node_id] = self._stack.enter_context(
            serve(self.workdir, self.data, *args, name=name, launcher=LAUNCHER, environment=stall)
        )

    def _marker(self, node_id: int, kind: str = "stall") -> Path:
        return self.workdir / f"{kind}-n{node_id}"

    def freeze_in_append(self, node_id: int, timeout: float = 10.0) -> bool:
        """Stop the node inside its next append, before its bytes reach the segment
        (:mod:`benchmarks.stall`); False when it made none within ``timeout``."""
        self._marker(node_id, "freeze").touch()
        pid = self.nodes[node_id].process.pid
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _state(pid) == "T":
                self.stopped.add(node_id)
                return True
            time.sleep(0.002)
        self._marker(node_id, "freeze").unlink(missing_ok=True)
        return False

    def stall(self, node_id: int) -> None:
        """Stall the node's disk: every fsync it makes waits (:mod:`benchmarks.stall`)."""
        self._marker(node_id).touch()
        self.stalled.add(node_id)

    def unstall(self, node_id: int) -> None:
        self._marker(node_id).unlink(missing_ok=True)
        self.stalled.discard(node_id)

    def pause(self, node_id: int) -> None:
        self.nodes[node_id].process.send_signal(signal.SIGSTOP)
        self.stopped.add(node_id)

    def resume(self, node_id: int) -> None:
        self.nodes[node_id].process.send_signal(signal.SIGCONT)
        self.stopped.discard(node_id)

    def kill(self, node_id: int) -> None:
        self.nodes[node_id].process.kill()
        self.nodes[node_id].process.wait(10)

    def leader(self) -> int | None:
        """The node that names itself the active controller, asking the running nodes."""
        from kafka.protocol.metadata import MetadataRequest, MetadataResponse

        for node_id, served in self.nodes.items():
            if node_id in self.stopped or served.process.poll() is not None:
                continue
            try:
                request = MetadataRequest(version=12, topics=[])
                answer = exchange(served.port, request, MetadataResponse, timeout=0.5)
            except OSError:
                continue
            if int(answer.controller_id) == node_id:
                return node_id
        return None


@dataclass
class Load(Writer):
    """One client writing to the active node until :meth:`stop`; thread-safe to read."""

    cluster: Cluster
    answers: list[Answer] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def _run(self) -> None:
        leader, i = None, 0
        while not self._stop.is_set():
            if leader is None:
                leader = self.cluster.leader()
                if leader is None:
                    time.sleep(0.05)
                    continue
            i += 1
            answer = self._send(leader, f"probe-{i}")
            self.answers.append(answer)
            if answer.error != 0:
                leader = None

    def _send(self, node_id: int, topic: str) -> Answer:
        from kafka.protocol.admin import CreateAclsResponse

        request = create_acl_request(topic, "User:probe")
        sent = time.monotonic()
        try:
            port = self.cluster.nodes[node_id].port
            response = exchange(port, request, CreateAclsResponse, timeout=REQUEST_TIMEOUT)
            error = int(response.results[0].error_code)
        except (OSError, KeyError):
            error = -1
        return Answer(sent, time.monotonic() - sent, node_id, error, topic)

    def acknowledged(self) -> set[str]:
        return {a.topic for a in list(self.answers) if a.error == 0}

    def first_ack(self, since: float, *, not_by: int | None = None) -> float | None:
        """Seconds from ``since`` to the first acknowledgement sent after it (by a node other
        than ``not_by``), or ``None``."""
        for answer in list(self.answers):
            if answer.sent >= since and answer.error == 0 and answer.node != not_by:
                return answer.sent + answer.seconds - since
        return None

    def latencies(self, start: float, end: float) -> list[float]:
        """Seconds each write acknowledged in ``[start, end)`` took."""
        return [a.seconds for a in list(self.answers) if start <= a.sent < end and a.error == 0]


def create_acl_request(topic: str, principal: str) -> Any:
    """A CreateAcls (v3) of one LITERAL ACL allowing ``principal`` to READ ``topic``."""
    from kafka.protocol.admin import CreateAclsRequest

    creation = CreateAclsRequest.AclCreation(
        resource_type=2,
        resource_name=topic,
        resource_pattern_type=3,
        principal=principal,
        host="*",
        operation=3,
        permission_type=3,
    )
    return CreateAclsRequest(version=3, creations=[creation])


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else float("nan")


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One fault: its kind, how long a node was frozen, the failover time (``None``: no node
    acknowledged a write within the wait), the leader's write latencies during a standby's
    freeze and just before it, and whether another node took over from a frozen leader (a
    short freeze ends before the election timeout, and the leader itself serves again)."""

    kind: str
    frozen: float
    failover: float | None
    during: list[float]
    before: list[float]
    taken_over: bool = False


def _await_leader(cluster: Cluster, load: Load, timeout: float = 60.0) -> int:
    """The node that acknowledged the latest write (within the last half second) and names
    itself the active controller: a deposed node may still name itself for a heartbeat
    interval after it wakes, so its word alone is not enough."""
    deadline = time.monotonic() + timeout
    while True:
        recent = [a for a in list(load.answers)[-20:] if a.error == 0]
        fresh = recent and recent[-1].sent > time.monotonic() - 0.5
        if fresh and cluster.leader() == recent[-1].node:
            return recent[-1].node
        if time.monotonic() > deadline:
            raise RuntimeError("no node acknowledged writes")
        time.sleep(0.1)


def run_round(cluster: Cluster, load: Load, kind: str, rng: random.Random) -> RoundResult:
    """Inject one fault of ``kind`` into a cluster whose ``load`` runs, wait for the cluster to
    serve again, and return what was measured."""
    leader = _await_leader(cluster, load)
    frozen = rng.uniform(0.5, 6.0)
    fault = time.monotonic()
    if kind == "kill-leader":
        cluster.kill(leader)
        failover = _wait_ack(load, fault, leader, 15.0)
        cluster.start(leader)
        return RoundResult(kind, 0.0, failover, [], [])
    if kind in ("sigstop-leader", "stall-leader", "freeze-in-append"):
        return _frozen_leader(cluster, load, kind, leader, frozen, fault)
    standby = rng.choice([n for n in cluster.nodes if n != leader])
    cluster.pause(standby)
    time.sleep(frozen)
    cluster.resume(standby)
    during = load.latencies(fault, fault + frozen)
    return RoundResult(kind, frozen, None, during, load.latencies(fault - frozen, fault))


def _frozen_leader(
    cluster: Cluster, load: Load, kind: str, leader: int, frozen: float, fault: float
) -> RoundResult:
    """The leader SIGSTOPped, or its disk stalled, for ``frozen`` seconds, then let go."""
    stall = kind == "stall-leader"
    if stall:
        cluster.stall(leader)
    elif kind == "freeze-in-append":
        if not cluster.freeze_in_append(leader):
            raise RuntimeError(f"node {leader} made no append to freeze in")
        fault = time.monotonic()
    else:
        cluster.pause(leader)
    failover = _wait_ack(load, fault, leader, frozen)
    if stall:
        cluster.unstall(leader)
    else:
        cluster.resume(leader)
    if failover is None:  # nobody took over while it was frozen: measured from the fault
        return RoundResult(kind, frozen, _wait_ack(load, fault, None, 15.0), [], [], False)
    return RoundResult(kind, frozen, failover, [], [], True)


def _wait_ack(load: Load, since: float, not_by: int | None, timeout: float) -> float | None:
    deadline = since + timeout
    while time.monotonic() < deadline:
        found = load.first_ack(since, not_by=not_by)
        if found is not None:
            return found
        time.sleep(0.02)
    return load.first_ack(since, not_by=not_by)


def check_log(data: Path, acknowledged: set[str]) -> list[str]:
    """What is wrong with the log after a probe (nothing: ``[]``): an acknowledged ACL missing,
    a batch that does not read, an epoch older than one before it, or a batch of a stale
    epoch (at or above a newer epoch's fence) read as part of the log."""
    problems: list[str] = []
    epoch = -1
    fences = load_fences(data)
    try:
        for batch in read_batches(data):
            if batch.epoch < epoch:
                problems.append(f"offset {batch.base_offset}: epoch {batch.epoch} after {epoch}")
            if fences.fenced(batch.epoch, batch.base_offset):
                problems.append(f"offset {batch.base_offset}: a fenced batch of {batch.epoch}")
            epoch = max(epoch, batch.epoch)
        image = rebuild_image(data).image
    except Exception as error:  # any failure to read is the finding
        return [f"the log does not read: {error}"]
    present = {acl.resource_name for acl in image.acls.acls.values()}
    missing = sorted(acknowledged - present)
    if missing:
        problems.append(f"{len(missing)} acknowledged ACLs missing, e.g. {missing[:3]}")
    return problems


def _state(pid: int) -> str:
    """The process's state letter from ``/proc`` (``T``: stopped)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().rpartition(")")[2].split()[0]
