"""Two ``aclog serve --controller`` processes on one data directory: clients are sent to the
active one, a standby refuses writes with NOT_CONTROLLER, and when the active process is killed
the standby takes over and both admin clients keep working through it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AclBinding as CkAclBinding
from confluent_kafka.admin import AclOperation as CkAclOperation
from confluent_kafka.admin import AclPermissionType as CkAclPermissionType
from confluent_kafka.admin import ResourcePatternType, ResourceType
from kafka.admin import (
    ACL,
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ResourcePattern,
    ResourcePatternFilter,
)
from kafka.admin import ResourceType as KpResourceType
from kafka.protocol.admin import CreateAclsRequest, CreateAclsResponse
from kafka.protocol.metadata import MetadataRequest, MetadataResponse

from tests.wire.clients import confluent, kafka_python
from tests.wire.harness import RawClient, ServerProcess

QUORUM = ("--controller", "--heartbeat-ms", "200", "--election-timeout-ms", "1000")
ANONYMOUS = ("--super-users", "User:ANONYMOUS")


def _node(workdir: Path, node_id: int) -> ServerProcess:
    return ServerProcess(
        workdir, *QUORUM, *ANONYMOUS, "--node-id", str(node_id), name=f"n{node_id}"
    )


def _metadata(server: ServerProcess) -> tuple[list[tuple[int, str, int]], int]:
    with RawClient(server.host, server.port) as raw:
        response = raw.request(MetadataRequest(version=12, topics=[]), MetadataResponse)
    brokers = sorted((b.node_id, b.host, b.port) for b in response.brokers)
    return brokers, response.controller_id


def _until(check: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    first = _node(tmp_path, 1).start()
    second: ServerProcess | None = None
    try:
        _until(lambda: _metadata(first)[1] == 1, "node 1 to lead")
        second = _node(tmp_path, 2).start()
        yield first, second
    finally:
        for server in (first, second):
            if server is not None and server.alive():
                assert server.stop() == 0, server.stderr()[-3000:]


def _kp_acl(topic: str) -> ACL:
    return ACL(
        "User:failover",
        "*",
        ACLOperation.READ,
        ACLPermissionType.ALLOW,
        ResourcePattern(KpResourceType.TOPIC, topic),
    )


def _kp_topics(admin: Any) -> set[str]:
    found, error = admin.describe_acls(
        ACLFilter(
            "User:failover",
            None,
            ACLOperation.ANY,
            ACLPermissionType.ANY,
            ResourcePatternFilter(KpResourceType.ANY, None, ACLResourcePatternType.ANY),
        )
    )
    assert error.errno == 0
    return {acl.resource_pattern.resource_name for acl in found}


def test_the_standby_sends_clients_to_the_active_node(
    pair: tuple[ServerProcess, ServerProcess],
) -> None:
    first, second = pair
    assert first.info["controller"] == "shared"
    leader = [(1, first.host, first.port)]
    assert _metadata(first) == (leader, 1)
    assert _metadata(second) == (leader, 1)
    creation = CreateAclsRequest.AclCreation(
        resource_type=2,
        resource_name="raw",
        resource_pattern_type=3,
        principal="User:failover",
        host="*",
        operation=3,
        permission_type=3,
    )
    with RawClient(second.host, second.port) as raw:
        response = raw.request(
            CreateAclsRequest(version=3, creations=[creation]), CreateAclsResponse
        )
    assert [r.error_code for r in response.results] == [41]  # NOT_CONTROLLER
    with kafka_python(second) as admin:  # bootstrapped on the standby, served by the leader
        assert admin.create_acls([_kp_acl("via-standby")])["failed"] == []
        assert admin.describe_cluster()["controller_id"] == 1
        assert _kp_topics(admin) == {"via-standby"}


def test_killing_the_active_node_fails_over_to_the_standby(
    pair: tuple[ServerProcess, ServerProcess],
) -> None:
    first, second = pair
    with kafka_python(second) as admin:
        assert admin.create_acls([_kp_acl("before")])["failed"] == []
    assert first.process is not None
    first.process.kill()  # no shutdown, no last heartbeat
    first.process.wait(10)
    killed = time.monotonic()
    _until(lambda: _metadata(second)[1] == 2, "node 2 to take over")
    assert time.monotonic() - killed < 10
    assert _metadata(second) == ([(2, second.host, second.port)], 2)
    with kafka_python(second) as admin:
        assert admin.create_acls([_kp_acl("after")])["failed"] == []
        assert _kp_topics(admin) == {"before", "after"}
        assert admin.describe_cluster()["controller_id"] == 2
    ck = confluent(second)
    binding = CkAclBinding(
        ResourceType.TOPIC,
        "from-confluent",
        ResourcePatternType.LITERAL,
        "User:failover",
        "*",
        CkAclOperation.READ,
        CkAclPermissionType.ALLOW,
    )
    for future in ck.create_acls([binding], request_timeout=10).values():
        assert future.result(timeout=20) is None
    with kafka_python(second) as admin:
        assert _kp_topics(admin) == {"before", "after", "from-confluent"}
