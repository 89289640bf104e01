"""Clients that try to take a listener's shared resources (issue 19): slow-loris connections
that announce a large frame and send nothing more, and slow readers that pipeline requests and
never read the answers. Blocking sockets held open by the caller; used by the tests and by the
``listener-limits`` benchmark.
"""

from __future__ import annotations

import select
import socket
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from kafka.protocol.admin import DescribeAclsRequest

from tests.wire.harness import RawClient

SLOW_READER_BUFFERS = 4096
"""SO_RCVBUF and SO_SNDBUF of a slow reader: the server's writes to it stop soon."""
SLOW_READER_REQUESTS = 400
"""DescribeAcls requests each slow reader sends. With :data:`BULK_ACLS` long ACLs in each
answer (about 14 KB) that is more than 5 MB of answers per connection: more than the kernel's
socket buffers take (Linux grows a send buffer to 4 MiB), so the server's writes stall."""
BULK_ACLS = 60
"""ACLs on the slow readers' topic (at most 64, so their DescribeAcls is answered on the loop)."""
SEND_SECONDS = 10.0
"""Bound on sending one slow reader's requests."""


@dataclass(frozen=True)
class Login:
    """A SCRAM user the hostile clients log in as (on a SASL listener)."""

    user: str
    password: str


@dataclass
class Hostile:
    """The hostile connections attached to one listener, by kind."""

    slow_loris: list[RawClient] = field(default_factory=list)
    unauthenticated: list[RawClient] = field(default_factory=list)
    slow_readers: list[RawClient] = field(default_factory=list)

    def all(self) -> list[RawClient]:
        return self.slow_loris + self.unauthenticated + self.slow_readers

    def still_attached(self) -> bool:
        """Whether the server has closed none of them (a closed one reads as end of file)."""
        return all(_open(client.sock) for client in self.all())


def bulk_principal(i: int) -> str:
    """The principal of the ``i`` th ACL on the slow readers' topic: long, for large answers."""
    return f"User:bulk-{i:03d}-" + "x" * 200


def describe_topic(topic: str, correlation_id: int) -> bytes:
    """A framed DescribeAcls v3 for the ACLs of one LITERAL topic (answered on the loop)."""
    request = DescribeAclsRequest(
        version=3,
        resource_type_filter=2,
        resource_name_filter=topic,
        pattern_type_filter=3,
        principal_filter=None,
        host_filter=None,
        operation=1,
        permission_type=1,
    )
    request.with_header(correlation_id=correlation_id, client_id="slow-reader")
    return bytes(request.encode(header=True, framed=True))


@contextmanager
def attached(
    host: str,
    port: int,
    *,
    slow_loris: int = 0,
    slow_loris_bytes: int = 1024 * 1024,
    unauthenticated: int = 0,
    unauthenticated_bytes: int = 512 * 1024,
    slow_readers: int = 0,
    topic: str = "bulk",
    login: Login | None = None,
) -> Iterator[Hostile]:
    """Open the hostile connections, hold them while the body runs, then close them all.

    ``slow_loris`` connections (logged in when ``login`` is given) each send the size prefix of
    a ``slow_loris_bytes`` frame and nothing more; ``unauthenticated`` ones (for a SASL
    listener) do the same with ``unauthenticated_bytes`` before any login; ``slow_readers``
    (logged in when ``login`` is given) pipeline :data:`SLOW_READER_REQUESTS` DescribeAcls for
    ``topic`` and never read an answer.
    """
    hostile = Hostile()
    try:
        for _ in range(slow_loris):
            client = _connect(host, port, login)
            hostile.slow_loris.append(client)
            client.send_raw(struct.pack(">i", slow_loris_bytes))
        for _ in range(unauthenticated):
            client = RawClient(host, port)
            hostile.unauthenticated.append(client)
            client.send_raw(struct.pack(">i", unauthenticated_bytes))
        requests = b"".join(describe_topic(topic, i) for i in range(SLOW_READER_REQUESTS))
        for _ in range(slow_readers):
            client = _connect(host, port, login, SLOW_READER_BUFFERS)
            hostile.slow_readers.append(client)
            client.sock.settimeout(SEND_SECONDS)
            client.send_raw(requests)
        yield hostile
    finally:
        for client in hostile.all():
            client.close()


def _connect(host: str, port: int, login: Login | None, buffers: int | None = None) -> RawClient:
    client = RawClient(host, port, socket_buffers=buffers)
    if login is not None:
        answer = client.login(login.user, login.password)
        assert answer is not None and answer.error_code == 0, answer
    return client


def _open(sock: socket.socket) -> bool:
    # poll, not select: select() refuses descriptors above 1023, which a long test run
    # (hundreds of these sockets, and whatever earlier tests left open) reaches.
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    if not poller.poll(0):
        return True
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except OSError:
        return False
