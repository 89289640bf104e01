"""Bad and unusual input against a running listener: every case either gets Kafka's error
response or closes only that connection, and the server keeps serving everyone else."""

from __future__ import annotations

import signal
import struct
import time
from pathlib import Path

from kafka.protocol.admin import (
    CreateAclsRequest,
    CreateAclsResponse,
    DescribeAclsRequest,
    DescribeAclsResponse,
    DescribeClusterRequest,
    DescribeClusterResponse,
)
from kafka.protocol.metadata import (
    ApiVersionsRequest,
    ApiVersionsResponse,
    MetadataRequest,
    MetadataResponse,
)
from kafka.protocol.sasl import (
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
)

from aclog.controller.controller import replay_log
from aclog.node.topics import topic_id_for
from tests.wire.harness import RawClient, ServerProcess


def header(api_key: int, version: int, correlation_id: int = 7, flexible: bool = False) -> bytes:
    """A request header with client id ``raw`` (v1, or v2 with an empty tag section)."""
    text = struct.pack(">hhih", api_key, version, correlation_id, 3) + b"raw"
    return text + (b"\x00" if flexible else b"")


def framed(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


def api_versions_ok(server: ServerProcess) -> bool:
    with RawClient(server.host, server.port) as raw:
        response = raw.request(ApiVersionsRequest(version=1), ApiVersionsResponse)
    return response is not None and response.error_code == 0


def describe_all(version: int = 2, operation: int = 1) -> DescribeAclsRequest:
    return DescribeAclsRequest(
        version=version,
        resource_type_filter=1,
        resource_name_filter=None,
        pattern_type_filter=1,
        principal_filter=None,
        host_filter=None,
        operation=operation,
        permission_type=1,
    )


def test_api_versions(fuzz_server: ServerProcess) -> None:
    with RawClient(fuzz_server.host, fuzz_server.port) as raw:
        # Newer than the listener: UNSUPPORTED_VERSION with a v0 body listing every API.
        raw.send_raw(framed(header(18, 9, flexible=True) + b"\x00\x00"))
        payload = raw.recv_frame()
        assert payload is not None
        response = ApiVersionsResponse.decode(payload, version=0, header=True)
        assert response.error_code == 35
        keys = {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}
        assert keys == {
            3: (0, 13),
            17: (0, 1),
            18: (0, 4),
            29: (1, 3),
            30: (1, 3),
            31: (1, 3),
            36: (0, 2),
            50: (0, 0),
            51: (0, 0),
            60: (0, 2),
        }
        ok = raw.request(
            ApiVersionsRequest(version=4, client_software_name="a", client_software_version="1"),
            ApiVersionsResponse,
        )
        assert ok.error_code == 0 and len(ok.api_keys) == 10
        # What Kafka cannot hold, said so a client need not guess (KIP-584 supported features).
        features = [(f.name, f.min_version, f.max_version) for f in ok.supported_features]
        assert features == [("aclog.glob.version", 1, 1)]
        # Kafka answers an invalid software name with INVALID_REQUEST in a body of the request's
        # version (kafka-python would read it as v0, so check the bytes).
        raw.send(
            ApiVersionsRequest(
                version=3, client_software_name="bad name!", client_software_version="1"
            )
        )
        payload = raw.recv_frame()
        assert payload is not None
        assert struct.unpack_from(">ih", payload) == (raw.correlation_id, 42)


def test_connection_closing_input(fuzz_server: ServerProcess) -> None:
    cases = {
        "unknown API key": framed(header(0, 3) + b"\x00" * 20),
        "unadvertised version": framed(header(30, 0) + b"\x00\x00\x00\x00"),
        "too new version": framed(header(29, 4, flexible=True) + b"\x00" * 10),
        "short header": framed(b"\x00\x12\x00"),
        "zero size": struct.pack(">i", 0),
        "negative size": struct.pack(">i", -5) + b"x" * 8,
        "oversized": struct.pack(">i", 65537) + b"x" * 16,
        "garbage body": framed(header(29, 1) + b"\xff" * 3),
        "string past the end": framed(header(29, 1) + b"\x02\x7f\xff" + b"abc"),
    }
    for name, data in cases.items():
        with RawClient(fuzz_server.host, fuzz_server.port) as raw:
            raw.send_raw(data)
            assert raw.is_closed_by_server(), name
    with RawClient(fuzz_server.host, fuzz_server.port) as raw:
        # Kafka's parser refuses code 0 (UNKNOWN) in an ACL filter: the connection closes.
        raw.send(describe_all(operation=0))
        assert raw.is_closed_by_server()
    with RawClient(fuzz_server.host, fuzz_server.port) as raw:
        creation = CreateAclsRequest.AclCreation(
            resource_type=2,
            resource_name=None,  # not nullable
            resource_pattern_type=3,
            principal="User:a",
            host="*",
            operation=3,
            permission_type=3,
        )
        raw.send(CreateAclsRequest(version=2, creations=[creation]))
        assert raw.is_closed_by_server()
    assert fuzz_server.alive() and api_versions_ok(fuzz_server)
    for reason in (
        "unknown API key 0",
        "CreateAcls v0 is not supported",
        "outside 1..65536 bytes",
        "non-nullable field creations[0].resource_name is null",
        "contains UNKNOWN (code 0) elements",
    ):
        assert fuzz_server.logged(reason), reason


def test_sasl_apis_on_a_plaintext_listener(fuzz_server: ServerProcess) -> None:
    with RawClient(fuzz_server.host, fuzz_server.port) as raw:
        handshake = raw.request(
            SaslHandshakeRequest(version=1, mechanism="SCRAM-SHA-256"), SaslHandshakeResponse
        )
        assert handshake.error_code == 34
        authenticate = raw.request(
            SaslAuthenticateRequest(version=1, auth_bytes=b"x"), SaslAuthenticateResponse
        )
        assert authenticate.error_code == 34
        assert raw.request(ApiVersionsRequest(version=0), ApiVersionsResponse).error_code == 0


def test_metadata_and_describe_cluster_details(plain_server: ServerProcess) -> None:
    with RawClient(plain_server.host, plain_server.port) as raw:
        v10 = raw.request(
            MetadataRequest(
                version=10,
                topics=[MetadataRequest.MetadataRequestTopic(name="orders", topic_id=None)],
                allow_auto_topic_creation=True,
                include_cluster_authorized_operations=True,
                include_topic_authorized_operations=False,
            ),
            MetadataResponse,
        )
        assert v10.authorized_operations == {5, 7, 8, 9, 10, 11, 12}
        [orders] = v10.topics
        assert orders.name == "orders" and orders.authorized_operations is None
        assert orders.topic_id == topic_id_for("orders")
        assert [p.leader_id for p in orders.partitions] == [1, 1, 1]

        by_id = raw.request(
            MetadataRequest(
                version=12,
                topics=[
                    MetadataRequest.MetadataRequestTopic(
                        name=None, topic_id=topic_id_for("payments.us")
                    ),
                    MetadataRequest.MetadataRequestTopic(name=None, topic_id=topic_id_for("nope")),
                    MetadataRequest.MetadataRequestTopic(name="nope", topic_id=None),
                ],
                allow_auto_topic_creation=False,
                include_topic_authorized_operations=True,
            ),
            MetadataResponse,
        )
        found = [(t.error_code, t.name, len(t.partitions)) for t in by_id.topics]
        assert found == [(0, "payments.us", 2), (100, None, 0), (3, "nope", 0)]
        assert len(by_id.topics[0].authorized_operations) == 8

        v0 = raw.request(MetadataRequest(version=0, topics=[]), MetadataResponse)
        assert {t.name for t in v0.topics} == {"orders", "payments.eu", "payments.us", "audit"}
        v1 = raw.request(MetadataRequest(version=1, topics=[]), MetadataResponse)
        assert v1.topics == [] and v1.controller_id == 1

        invalid = raw.request(
            MetadataRequest(
                version=11,
                topics=[MetadataRequest.MetadataRequestTopic(name=None, topic_id=None)],
                allow_auto_topic_creation=False,
                include_topic_authorized_operations=False,
            ),
            MetadataResponse,
        )
        assert [t.error_code for t in invalid.topics] == [42]

        for endpoint, code in ((1, 0), (2, 114), (9, 115)):
            cluster = raw.request(
                DescribeClusterRequest(
                    version=1,
                    include_cluster_authorized_operations=False,
                    endpoint_type=endpoint,
                ),
                DescribeClusterResponse,
            )
            assert cluster.error_code == code
        assert cluster.authorized_operations is None


def test_pipelined_requests_are_answered_in_order(fuzz_server: ServerProcess) -> None:
    with RawClient(fuzz_server.host, fuzz_server.port) as raw:
        requests = [
            ApiVersionsRequest(version=1),
            MetadataRequest(version=4, topics=None, allow_auto_topic_creation=False),
            describe_all(),
        ]
        raw.send_raw(b"".join(raw.frame(r) for r in requests))
        responses = [raw.recv_frame() for _ in requests]
        decoded = [
            cls.decode(payload, version=request.API_VERSION, header=True)
            for cls, request, payload in zip(
                (ApiVersionsResponse, MetadataResponse, DescribeAclsResponse),
                requests,
                responses,
                strict=True,
            )
        ]
        assert [r.header.correlation_id for r in decoded] == [1, 2, 3]
        assert decoded[2].error_code == 31  # no super user on this listener


def test_a_flood_is_held_back_without_hurting_others(fuzz_server: ServerProcess) -> None:
    """500 pipelined requests whose responses are not read: the server stops reading that
    socket once its in-flight bound is reached, serves other clients, then answers all 500."""
    count = 500
    with RawClient(fuzz_server.host, fuzz_server.port) as flood:
        data = b"".join(flood.frame(ApiVersionsRequest(version=1)) for _ in range(count))
        flood.sock.setblocking(False)
        sent = 0
        deadline = time.monotonic() + 5
        while sent < len(data) and time.monotonic() < deadline:
            try:
                sent += flood.sock.send(data[sent:])
            except BlockingIOError:
                time.sleep(0.01)
        assert api_versions_ok(fuzz_server)
        flood.sock.setblocking(True)
        flood.sock.sendall(data[sent:])
        ids = []
        for _ in range(count):
            payload = flood.recv_frame()
            assert payload is not None
            ids.append(struct.unpack_from(">i", payload)[0])
        assert ids == list(range(1, count + 1))


def test_slow_sender_is_closed_and_does_not_block_others(fuzz_server: ServerProcess) -> None:
    with RawClient(fuzz_server.host, fuzz_server.port) as slow:
        slow.send_raw(struct.pack(">i", 100) + b"\x00\x12")
        started = time.monotonic()
        assert api_versions_ok(fuzz_server)
        assert slow.is_closed_by_server()
        assert 1.5 < time.monotonic() - started < 10
    assert fuzz_server.logged("did not arrive within 2 s (slow sender)")


def test_graceful_shutdown_keeps_commits_and_releases_the_directory(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, "--super-users", "User:ANONYMOUS", name="shutdown").start()
    try:
        with RawClient(server.host, server.port) as raw:
            creation = CreateAclsRequest.AclCreation(
                resource_type=2,
                resource_name="kept",
                resource_pattern_type=3,
                principal="User:a",
                host="*",
                operation=3,
                permission_type=3,
            )
            created = raw.request(
                CreateAclsRequest(version=3, creations=[creation]), CreateAclsResponse
            )
            assert created.results[0].error_code == 0
            raw.send(describe_all(version=3))  # in flight when the signal arrives
            assert server.process is not None
            server.process.send_signal(signal.SIGTERM)
            raw.recv_frame()
        # Wait for that one signal to finish the shutdown: stop() would send a second SIGTERM,
        # which kills a server that has already removed its handlers on the way out.
        assert server.process.wait(30) == 0
    finally:
        server.stop()
    assert server.logged("SIGTERM: stopping") and server.logged("aclog: stopped")
    image = replay_log(server.data_dir)
    assert [acl.resource_name for acl in image.acls] == ["kept"]
    again = ServerProcess(tmp_path, name="restart").start()  # the writer lock was released
    try:
        assert api_versions_ok(again)
    finally:
        assert again.stop() == 0
