"""A well-behaved admin client beside hostile connections (issue 19): kafka-python DescribeAcls
(1 match) p50 and p99 against one ``aclog serve`` (SASL_PLAINTEXT), alone and then with 250
hostile connections attached, side by side in one run:

- 70 slow-loris connections, logged in, each sending the size prefix of a 1 MiB frame and
  nothing more (70 MiB announced: more than the 64 MiB pool);
- 140 unauthenticated connections announcing a 512 KiB frame (``sasl.server.max.receive.size``);
- 40 slow readers, logged in, pipelining 400 DescribeAcls each (answers of about 14 KB) and
  never reading an answer (more unanswered requests than 32 per connection x 40).

Before issue 19 the client's requests timed out with these attached (the test
``tests/wire/test_listener_limits.py`` shows it). The hostile clients are the test's
(:mod:`tests.wire.hostile`); the server runs with ``--max-connections-per-ip 1000`` so that all
of them are admitted and the budgets alone protect the client. Measuring starts once the server
is idle (it has answered what the slow readers' socket buffers take). The client runs in this
process; the hostile sockets sit idle in it.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from aclog.controller import upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.records import (
    ScramMechanism,
)
from benchmarks import wire_clients as wc
from benchmarks.harness import SCALE, percentile
from benchmarks.report import Report, Row
from benchmarks.servers import serve, settle
from tests.wire.hostile import BULK_ACLS, Login, attached, bulk_principal

ADMIN = Login("admin", "admin-secret")
BULK_TOPIC = "bulk"
HOSTILE = {"slow_loris": 70, "unauthenticated": 140, "slow_readers": 40}
MAX_FAILURES = 3
"""Stop a measurement after this many failed calls (each may take the request timeout)."""


def run(report: Report, quick: bool) -> None:
    calls = SCALE.pick(2000, 500, 100)
    with tempfile.TemporaryDirectory(prefix="aclog-bench-hostile-") as tmp:
        data_dir = Path(tmp) / "data"
        _preload(data_dir)
        args = ("--security-protocol", "SASL_PLAINTEXT", "--super-users", f"User:{ADMIN.user}")
        with serve(Path(tmp), data_dir, *args, "--max-connections-per-ip", "1000") as server:
            admin = _admin(f"127.0.0.1:{server.port}")
            try:
                alone = _describe(admin, calls)
                with attached("127.0.0.1", server.port, topic=BULK_TOPIC, login=ADMIN, **HOSTILE):
                    settled = settle(server.process.pid)
                    beside = _describe(admin, calls)
            finally:
                admin.close()
    count = sum(HOSTILE.values())
    hostile_note = (
        f"{HOSTILE['slow_loris']} slow-loris (1 MiB prefix), {HOSTILE['unauthenticated']} "
        f"unauthenticated (512 KiB prefix), {HOSTILE['slow_readers']} slow readers attached"
    )
    if not settled:
        hostile_note += "; the server was still busy when measuring started"
    _rows(report, "kafka-python alone", 0, alone, "SASL_PLAINTEXT, no other clients")
    _rows(report, f"kafka-python + {count} hostile", count, beside, hostile_note)


def _preload(data_dir: Path) -> None:
    """The admin user, one ACL on the client's topic and the slow readers' long ACLs."""
    bindings = [wc.read_binding(wc.ONE_TOPIC, wc.ONE_PRINCIPAL)]
    bindings += [wc.read_binding(BULK_TOPIC, bulk_principal(i)) for i in range(BULK_ACLS)]
    upsertion = upsertion_for_password(
        ADMIN.user, ScramMechanism.SCRAM_SHA_256, ADMIN.password, 4096
    )
    with Controller.open(data_dir, authorizer=LocalOperator()) as controller:
        caller = Caller(api="bench preload")
        results = [*controller.create_acls(bindings, caller)]
        results += controller.alter_scram([upsertion], [], caller)
        assert all(r.error.is_success for r in results), results[:1]


def _admin(bootstrap: str) -> Any:
    from kafka.admin import KafkaAdminClient

    return KafkaAdminClient(
        bootstrap_servers=bootstrap,
        client_id="bench-well-behaved",
        request_timeout_ms=int(wc.TIMEOUT_SECONDS * 1000),
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="SCRAM-SHA-256",
        sasl_plain_username=ADMIN.user,
        sasl_plain_password=ADMIN.password,
    )


def _describe(admin: Any, calls: int) -> tuple[list[int], int]:
    """Latencies (ns, sorted) of ``calls`` DescribeAcls for the one-ACL topic, and how many
    failed (a wrong answer or an error)."""
    from kafka.admin import (
        ACLFilter,
        ACLOperation,
        ACLPermissionType,
        ACLResourcePatternType,
        ResourcePattern,
        ResourceType,
    )

    pattern = ResourcePattern(ResourceType.TOPIC, wc.ONE_TOPIC, ACLResourcePatternType.LITERAL)
    wanted = ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY, pattern)
    samples: list[int] = []
    failures = 0
    for _ in range(calls):
        started = time.perf_counter_ns()
        try:
            acls, _error = admin.describe_acls(wanted)
            failures += len(acls) != 1
        except Exception:  # a timeout or a dropped connection: counted, not fatal
            failures += 1
        samples.append(time.perf_counter_ns() - started)
        if failures >= MAX_FAILURES:
            break
    return sorted(samples), failures


def _rows(report: Report, impl: str, size: int, result: tuple[list[int], int], note: str) -> None:
    samples, failures = result
    workload = "DescribeAcls 1 match"
    tag = f"{len(samples):,} calls; {note}"
    rows = (
        ("p50", percentile(samples, 0.5) / 1e6, "ms", tag),
        ("p99", percentile(samples, 0.99) / 1e6, "ms", ""),
        ("failed", failures, "requests", ""),
    )
    for metric, value, unit, text in rows:
        report.add(Row("hostile", impl, workload, size, metric, value, unit, text))
