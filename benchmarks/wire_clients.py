"""The clients of the wire benchmark (:mod:`benchmarks.bench_wire`): kafka-python admin clients
in their own processes, and a raw pipelined socket client.

Kept free of ``aclog`` imports: every kafka-python client runs in a spawned process that imports
this module, and a lighter import makes the processes start sooner.

- :func:`admin_client_main` is one spawned process: a ``KafkaAdminClient`` warms up (its
  bootstrap and one request, checked), waits at a barrier with the others, then loops for a fixed
  time on one or more threads (kafka-python 3's clients are thread-safe: the threads' requests
  share the client's connection, several in flight) and sends back its per-request latencies.
- :func:`pipelined` drives the server from one process over plain sockets with pre-encoded
  requests, several in flight per connection; responses are split into frames and counted, never
  decoded, so the client costs almost nothing per request and the rate is the server's.
"""

from __future__ import annotations

import selectors
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType

SIZE = struct.Struct(">i")
TIMEOUT_SECONDS = 30.0
"""Bound on any one request, connection or barrier wait."""

ONE_TOPIC = "bench-one"
ONE_PRINCIPAL = "User:bench-one"
MANY_PRINCIPAL = "User:bench-many"


def read_binding(topic: str, principal: str) -> AclBinding:
    """The ACL the wire benchmarks preload: ``principal`` may READ the LITERAL ``topic``."""
    return AclBinding(
        ResourceType.TOPIC,
        topic,
        PatternType.LITERAL,
        principal,
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


# Kafka wire codes (kafka-python's enums hold the same values).
TOPIC, ANY, LITERAL, MATCH = 2, 1, 3, 2
READ, WRITE, ALLOW = 3, 4, 3

DESCRIBE_ONE = "DescribeAcls 1 match"
DESCRIBE_MANY = "DescribeAcls many matches"
CREATE = "CreateAcls 1 ACL"
API_VERSIONS = "ApiVersions"


@dataclass(frozen=True)
class ClientSpec:
    """What one admin-client process does."""

    bootstrap: str
    workload: str
    index: int
    run: int
    seconds: float
    expected: int
    """How many ACLs a DescribeAcls must return (checked once, in the warm-up)."""
    threads: int = 1
    """Threads calling the one client concurrently."""


@dataclass(frozen=True)
class ClientResult:
    """One client's latencies (ns, in call order), how long it ran, and its failures."""

    index: int
    samples: list[int]
    elapsed: float
    errors: int = 0
    failure: str = ""
    cpu: float = 0.0
    """CPU seconds the client process used during the loop (kafka-python's own cost)."""


def create_topic(run: int, client: int, i: int) -> str:
    """A topic no other CreateAcls in the benchmark uses: every request commits a new ACL."""
    return f"bench-create-{run}-{client}-{i}"


# -- kafka-python admin clients, one per process ------------------------------------------------


def admin_client_main(spec: ClientSpec, barrier: Any, results: Any) -> None:
    """Entry point of one spawned client process: warm up, wait for the others, loop, report."""
    admin = None
    try:
        from kafka.admin import KafkaAdminClient

        admin = KafkaAdminClient(
            bootstrap_servers=spec.bootstrap,
            client_id=f"bench-{spec.index}",
            request_timeout_ms=int(TIMEOUT_SECONDS * 1000),
            # Every thread may have a request in flight (kafka-python refuses a send past it).
            max_in_flight_requests_per_connection=max(5, spec.threads),
        )
        calls = [
            _admin_call(admin, spec, spec.index * spec.threads + t) for t in range(spec.threads)
        ]
        calls[0](-1)
        barrier.wait(TIMEOUT_SECONDS)
        results.put(_threaded_loop(calls, spec))
    except Exception as error:  # report it: the parent must not wait for a dead client
        results.put(ClientResult(spec.index, [], 0.0, 1, f"{type(error).__name__}: {error}"))
    finally:
        if admin is not None:
            admin.close()


def _threaded_loop(calls: list[Callable[[int], int]], spec: ClientSpec) -> ClientResult:
    """:func:`_loop` on one thread per call, together; CPU is the whole process's."""
    if len(calls) == 1:
        return _loop(calls[0], spec)
    done: list[ClientResult] = []
    failures: list[BaseException] = []

    def work(call: Callable[[int], int]) -> None:
        try:
            done.append(_loop(call, spec))
        except Exception as error:  # reported by the process, below
            failures.append(error)

    cpu = time.process_time()
    threads = [threading.Thread(target=work, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(spec.seconds + TIMEOUT_SECONDS)
    if failures:
        raise failures[0]
    if len(done) != len(calls):
        raise TimeoutError(f"{len(calls) - len(done)} client threads did not finish")
    samples = [s for result in done for s in result.samples]
    elapsed = max(result.elapsed for result in done)
    errors = sum(result.errors for result in done)
    return ClientResult(spec.index, samples, elapsed, errors, cpu=time.process_time() - cpu)


def _loop(call: Callable[[int], int], spec: ClientSpec) -> ClientResult:
    now = time.perf_counter_ns
    samples: list[int] = []
    errors = 0
    cpu = time.process_time()
    start = now()
    deadline = start + int(spec.seconds * 1e9)
    i = 0
    while True:
        before = now()
        errors += call(i)
        after = now()
        samples.append(after - before)
        i += 1
        if after >= deadline:
            break
    elapsed = (now() - start) / 1e9
    return ClientResult(spec.index, samples, elapsed, errors, cpu=time.process_time() - cpu)


def _admin_call(admin: Any, spec: ClientSpec, worker: int) -> Callable[[int], int]:
    """A function doing request ``i`` of the workload and returning how many errors it got
    (``worker`` keeps the topics of concurrent CreateAcls apart)."""
    from kafka.admin import (
        ACL,
        ACLFilter,
        ACLOperation,
        ACLPermissionType,
        ACLResourcePatternType,
        ResourcePattern,
        ResourcePatternFilter,
        ResourceType,
    )

    if spec.workload == CREATE:

        def create(i: int) -> int:
            topic = create_topic(spec.run, worker, i)
            pattern = ResourcePattern(ResourceType.TOPIC, topic, ACLResourcePatternType.LITERAL)
            acl = ACL("User:bench", "*", ACLOperation.WRITE, ACLPermissionType.ALLOW, pattern)
            return len(admin.create_acls([acl])["failed"])

        return create
    pattern: ResourcePatternFilter
    if spec.workload == DESCRIBE_ONE:
        pattern = ResourcePattern(ResourceType.TOPIC, ONE_TOPIC, ACLResourcePatternType.LITERAL)
        principal = None
    else:
        pattern = ResourcePatternFilter(ResourceType.ANY, None, ACLResourcePatternType.ANY)
        principal = MANY_PRINCIPAL
    acl_filter = ACLFilter(principal, None, ACLOperation.ANY, ACLPermissionType.ANY, pattern)

    def describe(i: int) -> int:
        acls, _ = admin.describe_acls(acl_filter)
        if i < 0 and len(acls) != spec.expected:
            raise AssertionError(f"{spec.workload}: {len(acls)} ACLs, expected {spec.expected}")
        return 0

    return describe


# -- raw requests -------------------------------------------------------------------------------


def request_frame(workload: str, i: int, run: int) -> bytes:
    """Request ``i`` of a workload, framed and encoded at the version kafka-python sends."""
    from kafka.protocol.admin import CreateAclsRequest, DescribeAclsRequest
    from kafka.protocol.metadata import ApiVersionsRequest

    request: Any
    if workload == API_VERSIONS:
        request = ApiVersionsRequest(
            version=3, client_software_name="bench", client_software_version="1"
        )
    elif workload == CREATE:
        creation = CreateAclsRequest.AclCreation(
            resource_type=TOPIC,
            resource_name=create_topic(run, 0, i),
            resource_pattern_type=LITERAL,
            principal="User:bench",
            host="*",
            operation=WRITE,
            permission_type=ALLOW,
        )
        request = CreateAclsRequest(version=3, creations=[creation])
    else:
        one = workload == DESCRIBE_ONE
        request = DescribeAclsRequest(
            version=3,
            resource_type_filter=TOPIC if one else ANY,
            resource_name_filter=ONE_TOPIC if one else None,
            pattern_type_filter=LITERAL if one else ANY,
            principal_filter=None if one else MANY_PRINCIPAL,
            host_filter=None,
            operation=ANY,
            permission_type=ANY,
        )
    request.with_header(correlation_id=i & 0x7FFFFFFF, client_id="bench-raw")
    return bytes(request.encode(header=True, framed=True))


@dataclass
class _Conn:
    sock: socket.socket
    sent: deque[int]
    buffer: bytearray


@dataclass(frozen=True)
class PipelineResult:
    """Responses received, over how many seconds, with each one's latency (ns, from send)."""

    responses: int
    elapsed: float
    samples: list[int]


def pipelined(
    port: int,
    frame: Callable[[int], bytes],
    *,
    connections: int,
    depth: int,
    seconds: float,
) -> PipelineResult:
    """Keep ``depth`` requests in flight on each of ``connections`` sockets for ``seconds``;
    ``frame(i)`` is the i-th request's bytes. Latency includes the wait behind the requests
    ahead of it on the same connection."""
    selector = selectors.DefaultSelector()
    conns = [_connect(port, selector) for _ in range(connections)]
    counter = iter(range(1 << 62))
    try:
        for conn in conns:
            for _ in range(depth):
                _send(conn, frame(next(counter)))
        return _drive(selector, frame, counter, seconds)
    finally:
        selector.close()
        for conn in conns:
            conn.sock.close()


def _connect(port: int, selector: selectors.BaseSelector) -> _Conn:
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_SECONDS)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn = _Conn(sock, deque(), bytearray())
    selector.register(sock, selectors.EVENT_READ, conn)
    return conn


def _send(conn: _Conn, data: bytes) -> None:
    conn.sent.append(time.perf_counter_ns())
    conn.sock.sendall(data)


def _drive(
    selector: selectors.BaseSelector,
    frame: Callable[[int], bytes],
    counter: Any,
    seconds: float,
) -> PipelineResult:
    samples: list[int] = []
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        events = selector.select(TIMEOUT_SECONDS)
        if not events:
            raise TimeoutError(f"no response within {TIMEOUT_SECONDS:g} s")
        for key, _ in events:
            conn: _Conn = key.data
            for _ in range(_receive(conn, samples)):
                if time.perf_counter() < deadline:
                    _send(conn, frame(next(counter)))
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return PipelineResult(len(samples), elapsed, samples)


def _receive(conn: _Conn, samples: list[int]) -> int:
    """Read what is there; record each complete response frame; return how many."""
    data = conn.sock.recv(1 << 20)
    if not data:
        raise ConnectionError("the server closed the connection")
    buffer = conn.buffer
    buffer += data
    done, position = 0, 0
    while len(buffer) - position >= SIZE.size:
        (size,) = SIZE.unpack_from(buffer, position)
        if len(buffer) - position - SIZE.size < size:
            break
        position += SIZE.size + size
        samples.append(time.perf_counter_ns() - conn.sent.popleft())
        done += 1
    del buffer[:position]
    return done
