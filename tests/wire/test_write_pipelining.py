"""Writes sent back to back on one connection: queued without waiting for each other's commits,
committed in order as one group, answered in request order; a read behind them sees them all;
a client that leaves before its answers does not undo its writes."""

from __future__ import annotations

import asyncio
import struct
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from kafka.protocol.admin import (
    CreateAclsRequest,
    CreateAclsResponse,
    DeleteAclsRequest,
    DeleteAclsResponse,
    DescribeAclsRequest,
    DescribeAclsResponse,
)

from aclog.controller.caller import Caller
from aclog.node import Node
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.replay.batches import CommittedBatch
from aclog.wire import Endpoint, SecurityProtocol, Server, ServerConfig
from aclog.wire.apis import describe_acls
from aclog.wire.context import Session
from aclog.wire.dispatch import process

TOPIC, LITERAL, ANY, READ, ALLOW = 2, 3, 1, 3, 3
WAIT_SECONDS = 10.0


def _framed(request: object, correlation_id: int) -> bytes:
    request.with_header(correlation_id=correlation_id, client_id="pipeline")  # type: ignore[attr-defined]
    return bytes(request.encode(header=True, framed=True))  # type: ignore[attr-defined]


def _create(topic: str, correlation_id: int) -> bytes:
    creation = CreateAclsRequest.AclCreation(
        resource_type=TOPIC,
        resource_name=topic,
        resource_pattern_type=LITERAL,
        principal="User:bob",
        host="*",
        operation=READ,
        permission_type=ALLOW,
    )
    return _framed(CreateAclsRequest(version=3, creations=[creation]), correlation_id)


def _delete(topic: str, correlation_id: int) -> bytes:
    condition = DeleteAclsRequest.DeleteAclsFilter(
        resource_type_filter=TOPIC,
        resource_name_filter=topic,
        pattern_type_filter=LITERAL,
        principal_filter=None,
        host_filter=None,
        operation=ANY,
        permission_type=ANY,
    )
    return _framed(DeleteAclsRequest(version=3, filters=[condition]), correlation_id)


def _describe_all(correlation_id: int) -> bytes:
    request = DescribeAclsRequest(
        version=3,
        resource_type_filter=ANY,
        resource_name_filter=None,
        pattern_type_filter=ANY,
        principal_filter=None,
        host_filter=None,
        operation=ANY,
        permission_type=ANY,
    )
    return _framed(request, correlation_id)


async def _queued(node: Node, count: int) -> None:
    """Wait (bounded) until ``count`` writes wait in the controller's commit queue."""
    deadline = time.monotonic() + WAIT_SECONDS
    while len(node.controller._queue._queue) < count:  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the writes were not queued behind each other"
        await asyncio.sleep(0.01)


async def _read_frames(reader: asyncio.StreamReader, count: int) -> list[bytes]:
    frames = []
    for _ in range(count):
        (size,) = struct.unpack(">i", await asyncio.wait_for(reader.readexactly(4), WAIT_SECONDS))
        frames.append(await asyncio.wait_for(reader.readexactly(size), WAIT_SECONDS))
    return frames


def _allowed(node: Node, topic: str) -> bool:
    return node.allows("User:bob", "h", AclOperation.READ, ResourceType.TOPIC, topic)


def _serve(node: Node, scenario: object) -> object:
    config = ServerConfig(data_dir=node.config.data_dir, listen=Endpoint("127.0.0.1", 0))

    async def run() -> object:
        with ThreadPoolExecutor(2) as executor:
            server = Server(config, node, executor)
            info = await server.start()
            try:
                return await scenario(info.bound.port)  # type: ignore[operator]
            finally:
                await server.stop()

    return asyncio.run(run())


def test_back_to_back_writes_commit_as_one_group_and_answer_in_order(node: Node) -> None:
    groups: list[int] = []

    def count(batches: Sequence[CommittedBatch]) -> None:
        groups.append(len(batches))

    node.controller.add_commit_listener(count)  # type: ignore[attr-defined]
    topics = [f"t{i}" for i in range(20)]
    frames = [_create(topic, i) for i, topic in enumerate(topics)]
    frames += [_delete("t5", 20), _describe_all(21)]

    async def scenario(port: int) -> list[bytes]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        with node.controller._lock:  # type: ignore[attr-defined]
            writer.write(b"".join(frames))
            await _queued(node, 21)  # every write queued while the first has not committed
            assert not reader._buffer  # type: ignore[attr-defined]  # nothing answered yet
        answers = await _read_frames(reader, len(frames))
        writer.close()
        return answers

    answers = _serve(node, scenario)
    assert isinstance(answers, list)
    creates = [CreateAclsResponse.decode(a, version=3, header=True) for a in answers[:20]]
    assert [r.header.correlation_id for r in creates] == list(range(20))
    assert all([result.error_code for result in r.results] == [0] for r in creates)
    deleted = DeleteAclsResponse.decode(answers[20], version=3, header=True)
    assert deleted.header.correlation_id == 20
    assert [a.resource_name for a in deleted.filter_results[0].matching_acls] == ["t5"]
    described = DescribeAclsResponse.decode(answers[21], version=3, header=True)
    assert described.header.correlation_id == 21
    listed = sorted(resource.resource_name for resource in described.resources)
    assert listed == sorted(t for t in topics if t != "t5")
    assert groups == [21]  # one fsync for the lot, in request order (the delete saw t5)


def test_a_client_that_leaves_before_its_answers_keeps_its_writes(node: Node) -> None:
    async def scenario(port: int) -> list[bytes]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        with node.controller._lock:  # type: ignore[attr-defined]
            writer.write(b"".join(_create(f"gone{i}", i) for i in range(5)))
            await _queued(node, 5)
            writer.transport.abort()
        deadline = time.monotonic() + WAIT_SECONDS
        while not all(_allowed(node, f"gone{i}") for i in range(5)):
            assert time.monotonic() < deadline, "the writes of a client that left were lost"
            await asyncio.sleep(0.01)
        # The server still answers others.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(_describe_all(9))
        answers = await _read_frames(reader, 1)
        writer.close()
        return answers

    answers = _serve(node, scenario)
    assert isinstance(answers, list)
    described = DescribeAclsResponse.decode(answers[0], version=3, header=True)
    assert sorted(r.resource_name for r in described.resources) == [f"gone{i}" for i in range(5)]
    assert len(node.controller.image.acls) == 5  # type: ignore[attr-defined]


def test_a_large_delete_is_rendered_off_the_event_loop(node: Node) -> None:
    """kafka-python renders about 10,000 entries a second: a big DeleteAcls (or CreateAcls)
    answer is built on a worker thread, so other connections are not stalled meanwhile; small
    ones stay on the loop."""
    many = describe_acls.ON_LOOP_MAX_ACLS + 1
    bindings = [
        AclBinding(
            ResourceType.TOPIC,
            "big",
            PatternType.LITERAL,
            f"User:u{i}",
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        )
        for i in range(many)
    ]
    bindings.append(replace(bindings[0], resource_name="small"))
    assert all(r.error.is_success for r in node.controller.create_acls(bindings, Caller()))
    node.wait_published()
    rendered_on: dict[str, str] = {}
    session = Session.start("t", "127.0.0.1", SecurityProtocol.PLAINTEXT)
    for topic in ("small", "big"):
        outcome = process(node, session, _delete(topic, 1)[4:], on_loop=True)
        assert outcome.pending is not None
        outcome.pending.commit.result(WAIT_SECONDS)
        rendered_on[topic] = "worker" if outcome.pending.heavy() else "loop"
    assert rendered_on == {"small": "loop", "big": "worker"}
    creations = _create("x", 2)[4:]  # one creation; then one past the loop's limit
    for count, where in ((1, "loop"), (many, "worker")):
        request = CreateAclsRequest.decode(creations, version=3, header=True)
        request = CreateAclsRequest(version=3, creations=request.creations * count)
        outcome = process(node, session, _framed(request, 3)[4:], on_loop=True)
        assert outcome.pending is not None
        outcome.pending.commit.result(WAIT_SECONDS)
        assert ("worker" if outcome.pending.heavy() else "loop") == where

    async def scenario(port: int) -> list[bytes]:
        # Through a connection: the worker renders the same answer the loop would have.
        node.controller.create_acls(bindings, Caller())  # type: ignore[attr-defined]
        node.wait_published()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(_delete("big", 5) + _describe_all(6))
        answers = await _read_frames(reader, 2)
        writer.close()
        return answers

    answers = _serve(node, scenario)
    assert isinstance(answers, list)
    deleted = DeleteAclsResponse.decode(answers[0], version=3, header=True)
    assert deleted.header.correlation_id == 5
    principals = [a.principal for a in deleted.filter_results[0].matching_acls]
    assert sorted(principals) == sorted(f"User:u{i}" for i in range(many))
    described = DescribeAclsResponse.decode(answers[1], version=3, header=True)
    assert sorted(r.resource_name for r in described.resources) == ["small", "x"]
