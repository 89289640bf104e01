"""Random and mutated frames: the dispatcher never raises, and a running listener stays up,
keeps serving its other connections and keeps its memory bounded."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.protocol.metadata import (
    ApiVersionsRequest,
    ApiVersionsResponse,
    MetadataRequest,
    MetadataResponse,
)

from aclog.node import Node
from aclog.wire import SecurityProtocol, ServerConfig
from aclog.wire.apis import APIS
from aclog.wire.context import Session
from aclog.wire.dispatch import process
from tests.wire.corpus import valid_requests
from tests.wire.harness import RawClient, ServerProcess

CORPUS = valid_requests()
MUTATIONS = ("flip", "set", "cut", "insert", "truncate")


def framed(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


@st.composite
def payloads(draw: st.DrawFn) -> bytes:
    """A frame's payload: random bytes, a random header, or a mutated valid request."""
    kind = draw(st.sampled_from(("random", "header", "mutated", "mutated", "mutated")))
    if kind == "random":
        return draw(st.binary(max_size=200))
    if kind == "header":
        api_key = draw(st.sampled_from([*APIS, 0, 1, 42, 99, -1, 32767]))
        version = draw(st.integers(-2, 20))
        client_id = draw(st.binary(max_size=8))
        head = struct.pack(">hhih", api_key, version, 1, len(client_id)) + client_id
        return head + draw(st.binary(max_size=120))
    data = bytearray(draw(st.sampled_from(CORPUS))[4:])
    steps = draw(
        st.lists(
            st.tuples(st.sampled_from(MUTATIONS), st.integers(0, 1 << 16), st.integers(0, 255)),
            min_size=1,
            max_size=5,
        )
    )
    for mutation, position, value in steps:
        at = position % (len(data) + 1)
        if mutation == "flip" and data:
            data[at % len(data)] ^= 1 << (value % 8)
        elif mutation == "set" and data:
            data[at % len(data)] = value
        elif mutation == "cut":
            del data[at : at + 1 + value % 8]
        elif mutation == "insert":
            data[at:at] = bytes([value]) * (1 + value % 4)
        elif mutation == "truncate":
            del data[at:]
    return bytes(data)


@st.composite
def frames(draw: st.DrawFn) -> bytes:
    """A payload behind its size, or (sometimes) behind a wrong size."""
    payload = draw(payloads())
    if draw(st.integers(0, 9)) == 0:
        return struct.pack(">i", draw(st.integers(-(2**31), 2**31 - 1))) + payload
    return framed(payload)


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Node]:
    directory: Path = tmp_path_factory.mktemp("fuzz-node")
    opened = Node.open(ServerConfig(data_dir=directory / "data"))
    try:
        yield opened
    finally:
        opened.close()


@settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(payload=payloads(), sasl=st.booleans())
def test_dispatch_never_raises(node: Node, payload: bytes, sasl: bool) -> None:
    protocol = SecurityProtocol.SASL_PLAINTEXT if sasl else SecurityProtocol.PLAINTEXT
    session = Session.start("fuzz", "127.0.0.1", protocol)
    outcome = process(node, session, payload)
    if outcome.pending is not None:  # a write: its answer once the commit completes
        outcome = outcome.pending.finish(outcome.pending.commit)
        assert outcome.pending is None
    if outcome.data is not None:
        (size,) = struct.unpack_from(">i", outcome.data)
        assert size == len(outcome.data) - 4
    else:
        assert outcome.close_reason
    assert len(node.controller.image.acls) == 0  # nobody may change anything here


def _exchange(server: ServerProcess, batch: list[bytes]) -> None:
    """Send the frames, half-close, and read until the server closes (bounded)."""
    with socket.create_connection((server.host, server.port), timeout=5) as sock:
        try:
            sock.sendall(b"".join(batch))
            sock.shutdown(socket.SHUT_WR)
            while sock.recv(65536):
                pass
        except (ConnectionResetError, BrokenPipeError):
            pass


def _canary_works(canary: RawClient) -> bool:
    versions = canary.request(ApiVersionsRequest(version=2), ApiVersionsResponse)
    metadata = canary.request(
        MetadataRequest(version=9, topics=None, allow_auto_topic_creation=False), MetadataResponse
    )
    return versions.error_code == 0 and metadata.controller_id == 1


def test_listener_survives_fuzzing(fuzz_server: ServerProcess) -> None:
    canary = RawClient(fuzz_server.host, fuzz_server.port)
    try:
        assert _canary_works(canary)
        baseline = fuzz_server.rss_bytes()

        @settings(
            max_examples=250,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
            database=None,
        )
        @given(batch=st.lists(frames(), min_size=1, max_size=3))
        def attack(batch: list[bytes]) -> None:
            _exchange(fuzz_server, batch)

        attack()

        # Largest-allowed frames that decode into thousands of objects each, on 8 connections.
        creation = bytes([2, 1, 3, 1, 1, 3, 3, 0])  # TOPIC "" LITERAL "" "" READ ALLOW, no tags
        head = struct.pack(">hhih", 30, 2, 1, 3) + b"big" + b"\x00"
        count = (65536 - len(head) - 8) // len(creation)
        body = bytes([0x80 | ((count + 1) & 0x7F), (count + 1) >> 7]) + creation * count + b"\x00"
        big = framed(head + body)
        assert len(big) - 4 <= 65536
        for _ in range(8):
            _exchange(fuzz_server, [big] * 5)

        assert fuzz_server.alive()
        assert _canary_works(canary)  # a connection opened before the attack still works
        grown = fuzz_server.rss_bytes() - baseline
        assert grown < 96 * 1024 * 1024, f"RSS grew by {grown / 2**20:.0f} MiB"
    finally:
        canary.close()
    log = fuzz_server.stderr()
    assert "Traceback" not in log, log[-3000:]
