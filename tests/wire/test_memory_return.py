"""Issue 35 item 6: memory held for slow readers is given back once they leave.

Forty slow readers pipeline DescribeAcls requests whose answers (3,000 long ACLs each) they
never read; the server's RSS grows while they are attached. Once they disconnect, RSS returns
to within 10% of what it was before they came. Before the fix it stayed about 20% above: the
closed connections sat in a reference cycle through their error's traceback until a full
garbage collection, and glibc kept the freed pages in its per-thread heaps.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from kafka.admin import (
    ACL,
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ResourcePattern,
)
from kafka.admin import ResourceType as KpResourceType

from aclog.wire.memory import MemoryReturn
from tests.wire.clients import kafka_python
from tests.wire.harness import ServerProcess
from tests.wire.hostile import attached, bulk_principal

ACLS = 3000
SLOW_READERS = 40
MIB = 1024 * 1024
BACK_WITHIN = 0.10
WAIT_SECONDS = 20.0
GROWTH = 20 * MIB
"""What the slow readers must take at least, so that giving it back means something."""


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_trims_only_after_closes_and_at_most_once_per_interval() -> None:
    clock, trims = FakeClock(), []
    memory = MemoryReturn(interval=2.0, clock=clock, trim=lambda: trims.append(clock.now))
    clock.now = 5.0
    assert not memory.maybe_trim()  # nothing closed: nothing to give back
    memory.connection_closed()
    assert memory.maybe_trim()
    memory.connection_closed()
    clock.now = 6.0
    assert not memory.maybe_trim()  # within the interval of the last trim
    clock.now = 7.0
    assert memory.maybe_trim()
    clock.now = 20.0
    assert not memory.maybe_trim()  # no close since
    assert trims == [5.0, 7.0] and memory.trims == 2


def _topic_acl(principal: str) -> ACL:
    pattern = ResourcePattern(KpResourceType.TOPIC, "bulk", ACLResourcePatternType.LITERAL)
    return ACL(principal, "*", ACLOperation.READ, ACLPermissionType.ALLOW, pattern)


@pytest.fixture
def bulk_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server whose ``bulk`` topic has :data:`ACLS` long ACLs, each answer large, already
    answered a few times (so what the first answers build is in the baseline)."""
    server = ServerProcess(
        tmp_path, "--super-users", "User:ANONYMOUS", "--max-connections-per-ip", "1000"
    ).start()
    try:
        with kafka_python(server, None, None) as admin:
            assert not admin.create_acls([_topic_acl(bulk_principal(i)) for i in range(ACLS)])[
                "failed"
            ]
            pattern = _topic_acl("User:x").resource_pattern
            wanted = ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY, pattern)
            for _ in range(5):
                acls, _error = admin.describe_acls(wanted)
                assert len(acls) == ACLS
        yield server
    finally:
        assert server.stop() == 0, server.stderr()[-3000:]


def _waited(server: ServerProcess, reached: Callable[[int], bool]) -> int:
    """The server's RSS once ``reached`` holds for it, or after :data:`WAIT_SECONDS`."""
    deadline = time.monotonic() + WAIT_SECONDS
    rss = server.rss_bytes()
    while not reached(rss) and time.monotonic() < deadline:
        time.sleep(0.25)
        rss = server.rss_bytes()
    return rss


def test_rss_returns_after_slow_readers_leave(bulk_server: ServerProcess) -> None:
    time.sleep(1.0)
    before = bulk_server.rss_bytes()
    with attached(
        bulk_server.host, bulk_server.port, slow_readers=SLOW_READERS, topic="bulk"
    ) as hostile:
        during = _waited(bulk_server, lambda rss: rss > before + GROWTH)
        assert hostile.still_attached()
    assert during > before + GROWTH, f"the slow readers took only {(during - before) / MIB:.0f} MiB"
    after = _waited(bulk_server, lambda rss: rss <= before * (1 + BACK_WITHIN))
    assert after <= before * (1 + BACK_WITHIN), (
        f"RSS {before / MIB:.0f} MiB before, {during / MIB:.0f} with {SLOW_READERS} slow readers,"
        f" {after / MIB:.0f} {WAIT_SECONDS:.0f} s after they left"
    )
