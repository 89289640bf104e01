"""In-process checks: settings, the topics file, strict decoding, the dispatcher's failure
paths, the listener's connection limit, and the CLI's error exits."""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from kafka.protocol.admin import (
    CreateAclsRequest,
    CreateAclsResponse,
    DescribeAclsRequest,
    DescribeAclsResponse,
)
from kafka.protocol.metadata import ApiVersionsRequest, MetadataRequest
from kafka.protocol.sasl import SaslAuthenticateRequest
from typer.testing import CliRunner

import aclog.tools.serve  # noqa: F401  (registers the command)
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller
from aclog.node import Node, PublishedOffset
from aclog.node.login_secret import SECRET_FILE
from aclog.node.topics import TopicInventory, topic_id_for
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.tools.console import app
from aclog.wire import (
    ConfigError,
    Endpoint,
    Limits,
    SecurityProtocol,
    Server,
    ServerConfig,
    TopicsFileError,
    load_topics,
    parse_endpoint,
)
from aclog.wire.apis import describe_acls
from aclog.wire.context import Session
from aclog.wire.dispatch import FAILURES, process
from aclog.wire.errors import CloseConnection, Offload
from aclog.wire.protocol import decode_request


def test_parse_endpoint() -> None:
    assert parse_endpoint("127.0.0.1:9093") == Endpoint("127.0.0.1", 9093)
    assert parse_endpoint("localhost") == Endpoint("localhost", 9092)
    assert parse_endpoint("[::1]:0") == Endpoint("::1", 0)
    assert str(Endpoint("::1", 9092)) == "[::1]:9092"
    for bad in ("::1:9092", ":9092", "host:port", "host:70000", "[::1"):
        with pytest.raises(ConfigError):
            parse_endpoint(bad)


def test_config_validation(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs --tls-cert"):
        ServerConfig(security_protocol=SecurityProtocol.SASL_SSL)
    with pytest.raises(ConfigError, match="needs --advertised"):
        ServerConfig(listen=Endpoint("0.0.0.0", 9092))
    with pytest.raises(ConfigError, match="not reachable"):
        ServerConfig(advertised=Endpoint("127.0.0.1", 0))
    with pytest.raises(ConfigError):
        Limits(max_frame_bytes=8 * 2**20, max_connection_buffered_bytes=2**20)
    limits = Limits(max_frame_bytes=32 * 2**20)
    assert limits.connection_buffered_bytes == 64 * 2**20
    assert limits.total_buffered_bytes == 128 * 2**20


def test_topics_file(tmp_path: Path) -> None:
    path = tmp_path / "topics"
    path.write_text("orders 3\nTOPIC:audit\ngroup:billing\n\n# note\npay.eu\n")
    inventory = load_topics(path)
    assert [(t.name, t.partitions) for t in inventory.topics] == [
        ("orders", 3),
        ("audit", 1),
        ("pay.eu", 1),
    ]
    assert inventory.by_id[topic_id_for("audit")].name == "audit"
    for bad, message in (
        ("bad name\n", "partition count"),
        ("a b c\n", "optional partition count"),
        ("bad/name\n", "not a legal topic name"),
        ("orders 0\n", "partition count"),
        ("FOO:x\n", "unknown resource type"),
    ):
        path.write_text(bad)
        with pytest.raises(TopicsFileError, match=message):
            load_topics(path)
    with pytest.raises(TopicsFileError, match="cannot read"):
        load_topics(tmp_path / "missing")


def test_strict_decoding() -> None:
    request = ApiVersionsRequest(version=3, client_software_name="a", client_software_version="1")
    request.with_header(correlation_id=5, client_id="c")
    payload = bytes(request.encode(header=True))
    header, body = decode_request(ApiVersionsRequest, payload, 3)
    assert (header.correlation_id, header.client_id, body.client_software_name) == (5, "c", "a")
    decode_request(ApiVersionsRequest, payload + b"\x00", 3)  # trailing bytes are ignored
    sasl = SaslAuthenticateRequest(version=0, auth_bytes=b"abc")
    sasl.with_header(correlation_id=1, client_id="c")
    sasl_payload = bytes(sasl.encode(header=True))
    overrun = sasl_payload[:-7] + struct.pack(">i", 50) + b"abc"
    with pytest.raises(CloseConnection, match="runs past the end"):
        decode_request(SaslAuthenticateRequest, overrun, 0)
    with pytest.raises(CloseConnection, match="non-nullable field client_software_name"):
        decode_request(ApiVersionsRequest, payload[:-5] + b"\x00\x021\x00", 3)


def test_published_offset_waits() -> None:
    published = PublishedOffset()
    assert published.wait_for(-1, 0.01)
    assert not published.wait_for(3, 0.01)


def test_a_failing_handler_answers_unknown_server_error(
    node: Node, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(node.authorizer, "acls", broken)
    request = DescribeAclsRequest(
        version=3,
        resource_type_filter=1,
        resource_name_filter=None,
        pattern_type_filter=1,
        principal_filter=None,
        host_filter=None,
        operation=1,
        permission_type=1,
    )
    request.with_header(correlation_id=9, client_id="t")
    session = Session.start("t", "127.0.0.1", SecurityProtocol.PLAINTEXT)
    outcome = process(node, session, bytes(request.encode(header=True)))
    assert outcome.close_reason is None and outcome.data is not None
    response = DescribeAclsResponse.decode(outcome.data[4:], version=3, header=True)
    assert (response.header.correlation_id, response.error_code) == (9, -1)
    assert response.error_message is None


def test_connections_over_the_limit_are_closed(node: Node) -> None:
    config = ServerConfig(
        data_dir=node.config.data_dir,
        listen=Endpoint("127.0.0.1", 0),
        limits=Limits(max_connections=1),
    )

    async def scenario() -> tuple[bytes, bytes]:
        with ThreadPoolExecutor(2) as executor:
            server = Server(config, node, executor)
            info = await server.start()
            first = await asyncio.open_connection("127.0.0.1", info.bound.port)
            await asyncio.sleep(0.1)
            second = await asyncio.open_connection("127.0.0.1", info.bound.port)
            refused = await asyncio.wait_for(second[0].read(), 5)
            request = ApiVersionsRequest(version=1)
            request.with_header(correlation_id=1, client_id="t")
            first[1].write(bytes(request.encode(header=True, framed=True)))
            size = struct.unpack(">i", await first[0].readexactly(4))[0]
            answer = await first[0].readexactly(size)
            first[1].close()
            second[1].close()
            await server.stop()
            return refused, answer

    refused, answer = asyncio.run(scenario())
    assert refused == b""
    assert struct.unpack_from(">ih", answer) == (1, 0)


runner = CliRunner()


def test_cli_usage_errors(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    for args, message in (
        (["--security-protocol", "SSL"], "unknown security protocol"),
        (["--security-protocol", "SASL_SSL"], "needs --tls-cert"),
        (["--listen", "nowhere:x"], "port must be a number"),
        (["--super-users", "admin"], "not a principal"),
        (["--topics", str(tmp_path / "none")], "cannot read the topics file"),
        (["--max-connections-per-ip", "0"], "max_connections_per_ip must be at least 1"),
        (["--max-pre-auth-requests", "2"], "two SaslAuthenticate requests make a SCRAM login"),
        (
            [
                "--security-protocol",
                "SASL_SSL",
                "--tls-cert",
                str(tmp_path / "c"),
                "--tls-key",
                str(tmp_path / "k"),
            ],
            "cannot load the TLS certificate",
        ),
    ):
        result = runner.invoke(app, ["serve", "--data-dir", data, *args])
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output, (args, result.output)


def test_cli_refuses_a_locked_data_directory(tmp_path: Path) -> None:
    with Controller.open(tmp_path / "data"):
        result = runner.invoke(
            app, ["serve", "--data-dir", str(tmp_path / "data"), "--listen", "127.0.0.1:0"]
        )
    assert result.exit_code == 3, result.output
    assert "locked" in result.output


def test_cli_refuses_a_login_secret_of_the_wrong_size(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / SECRET_FILE).write_bytes(b"short")
    result = runner.invoke(app, ["serve", "--data-dir", str(data), "--listen", "127.0.0.1:0"])
    assert result.exit_code == 1, result.output
    assert f"{SECRET_FILE} is 5 bytes, not 32" in result.output
    with Controller.open(data):
        pass  # the failed start released the data directory


def test_slow_readers_and_silent_sasl_clients_are_closed(
    node: Node, caplog: pytest.LogCaptureFixture
) -> None:
    node.topics = TopicInventory.of({"big": 10_000})  # about 300 KB per Metadata response
    config = ServerConfig(
        data_dir=node.config.data_dir,
        listen=Endpoint("127.0.0.1", 0),
        limits=Limits(write_timeout=0.5, authentication_timeout=0.3),
    )
    sasl_config = ServerConfig(
        data_dir=node.config.data_dir,
        listen=Endpoint("127.0.0.1", 0),
        security_protocol=SecurityProtocol.SASL_PLAINTEXT,
        limits=Limits(authentication_timeout=0.3),
    )
    request = MetadataRequest(version=9, topics=None, allow_auto_topic_creation=False)
    request.with_header(correlation_id=1, client_id="t")
    frame = bytes(request.encode(header=True, framed=True))

    async def scenario() -> tuple[float, bytes]:
        with ThreadPoolExecutor(2) as executor:
            server = Server(config, node, executor)
            info = await server.start()
            client = socket.socket()
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a tiny window
            client.connect(("127.0.0.1", info.bound.port))
            _reader, writer = await asyncio.open_connection(sock=client, limit=1024)
            writer.transport.pause_reading()  # type: ignore[attr-defined]
            writer.write(frame * 32)  # about 8 MB of answers that are never read
            for _ in range(100):
                await asyncio.sleep(0.1)
                if server.connections == 0:
                    break
            writer.close()
            await server.stop()

            sasl = Server(sasl_config, node, executor)
            sasl_info = await sasl.start()
            started = asyncio.get_running_loop().time()
            silent_reader, silent_writer = await asyncio.open_connection(
                "127.0.0.1", sasl_info.bound.port
            )
            data = await asyncio.wait_for(silent_reader.read(), 5)
            elapsed = asyncio.get_running_loop().time() - started
            silent_writer.close()
            await sasl.stop()
            return elapsed, data

    with caplog.at_level(logging.INFO, logger="aclog.wire"):
        elapsed, data = asyncio.run(scenario())
    assert "the client did not read its responses (slow reader)" in caplog.text
    assert data == b"" and elapsed < 3
    assert "no SASL login within 0.3 s of connecting" in caplog.text


def test_cli_reports_an_address_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(
            app, ["serve", "--data-dir", str(tmp_path / "data"), "--listen", f"127.0.0.1:{port}"]
        )
    assert result.exit_code == 3, result.output
    assert "cannot serve on" in result.output
    with Controller.open(tmp_path / "data"):
        pass  # the failed start released the data directory


def _describe(name: str | None, correlation_id: int = 3) -> bytes:
    request = DescribeAclsRequest(
        version=3,
        resource_type_filter=2,
        resource_name_filter=name,
        pattern_type_filter=3 if name else 1,
        principal_filter=None,
        host_filter=None,
        operation=1,
        permission_type=1,
    )
    request.with_header(correlation_id=correlation_id, client_id="t")
    return bytes(request.encode(header=True))


def test_only_small_reads_are_answered_on_the_event_loop(node: Node) -> None:
    bindings = [
        AclBinding(
            ResourceType.TOPIC,
            "big" if i else "small",
            PatternType.LITERAL,
            f"User:u{i}",
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        )
        for i in range(describe_acls.ON_LOOP_MAX_ACLS + 2)
    ]
    assert all(r.error.is_success for r in node.controller.create_acls(bindings, Caller()))
    node.wait_published()
    session = Session.start("t", "127.0.0.1", SecurityProtocol.PLAINTEXT)
    small = process(node, session, _describe("small"), on_loop=True)
    assert small == process(node, session, _describe("small"))  # same bytes either way
    response = DescribeAclsResponse.decode(small.data[4:], version=3, header=True)  # type: ignore[index]
    assert [acl.principal for r in response.resources for acl in r.acls] == ["User:u0"]
    for offloaded in (_describe("big"), _describe(None)):
        with pytest.raises(Offload):
            process(node, session, offloaded, on_loop=True)
        assert process(node, session, offloaded).data is not None
    metadata = MetadataRequest(version=12, topics=[], allow_auto_topic_creation=False)
    metadata.with_header(correlation_id=4, client_id="t")
    with pytest.raises(Offload):  # not an on-loop API
        process(node, session, bytes(metadata.encode(header=True)), on_loop=True)


def _create(topic: str) -> bytes:
    request = CreateAclsRequest(
        version=3,
        creations=[
            CreateAclsRequest.AclCreation(
                resource_type=2,
                resource_name=topic,
                resource_pattern_type=3,
                principal="User:bob",
                host="*",
                operation=3,
                permission_type=3,
            )
        ],
    )
    request.with_header(correlation_id=11, client_id="t")
    return bytes(request.encode(header=True))


def test_a_write_is_queued_from_the_event_loop_and_answered_once_committed(
    node: Node, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = Session.start("t", "127.0.0.1", SecurityProtocol.PLAINTEXT)
    outcome = process(node, session, _create("orders"), on_loop=True)  # no Offload
    assert outcome.data is None and outcome.pending is not None
    done = outcome.pending.finish(outcome.pending.commit)
    response = CreateAclsResponse.decode(done.data[4:], version=3, header=True)  # type: ignore[index]
    assert response.header.correlation_id == 11
    assert [r.error_code for r in response.results] == [0]
    # Published before the answer: the ACL is in force for the next request.
    assert node.allows("User:bob", "h", AclOperation.READ, ResourceType.TOPIC, "orders")

    def failed(*args: object) -> Future[object]:
        future: Future[object] = Future()
        future.set_exception(RuntimeError("the commit thread failed"))
        return future

    monkeypatch.setattr(node, "create_acls", failed)
    outcome = process(node, session, _create("pay"), on_loop=True)
    assert outcome.pending is not None
    done = outcome.pending.finish(outcome.pending.commit)  # UNKNOWN_SERVER_ERROR, as Kafka
    response = CreateAclsResponse.decode(done.data[4:], version=3, header=True)  # type: ignore[index]
    assert [r.error_code for r in response.results] == [-1]


def test_failures_of_the_servers_own_code_are_logged_within_a_bound(
    node: Node, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A client that can make the server fail, again and again, gets a few tracebacks and a
    count, not a traceback per request (issue 35.4)."""

    def failed(*args: object) -> Future[object]:
        future: Future[object] = Future()
        future.set_exception(RuntimeError("the commit thread failed"))
        return future

    monkeypatch.setattr(node, "create_acls", failed)
    session = Session.start("t", "10.9.8.7", SecurityProtocol.PLAINTEXT)
    FAILURES.flush(final=True)  # a fresh window for this address
    with caplog.at_level(logging.ERROR, logger="aclog.wire.dispatch"):
        for i in range(30):
            outcome = process(node, session, _create(f"t{i}"), on_loop=True)
            assert outcome.pending is not None
            outcome.pending.finish(outcome.pending.commit)
        FAILURES.flush(final=True)
    lines = [r for r in caplog.records if "10.9.8.7" in r.getMessage() or r.exc_info]
    tracebacks = [r for r in lines if r.exc_info]
    assert 1 <= len(tracebacks) <= 5
    [summary] = [r.getMessage() for r in lines if "more connection events" in r.getMessage()]
    assert summary.startswith(f"{30 - len(tracebacks)} more connection events from 10.9.8.7")
    assert "CreateAcls failed; answered UNKNOWN_SERVER_ERROR" in summary
