"""SASL_SSL: both clients log in over TLS (self-signed certificate for 127.0.0.1) with both
SCRAM mechanisms; a wrong password fails; a plaintext client cannot talk to the listener."""

from __future__ import annotations

import socket
import struct
from pathlib import Path

import pytest
from confluent_kafka import KafkaException
from kafka.admin import ScramMechanism, UserScramCredentialUpsertion

from tests.wire.clients import confluent, kafka_python
from tests.wire.conftest import ADMIN, ADMIN_PASSWORD
from tests.wire.harness import RawClient, ServerProcess


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_both_clients_log_in_over_tls(
    ssl_server: ServerProcess, certificate: tuple[Path, Path], mechanism: str
) -> None:
    cert, _ = certificate
    user = f"tls-{mechanism.lower()}"
    with kafka_python(ssl_server, ADMIN, ADMIN_PASSWORD, mechanism, cafile=cert) as admin:
        assert admin.describe_cluster()["brokers"][0]["port"] == ssl_server.port
        result = admin.alter_user_scram_credentials(
            [UserScramCredentialUpsertion(user, ScramMechanism[mechanism.replace("-", "_")], "pw")]
        )
        assert result == {user: None}
    ck = confluent(ssl_server, user, "pw", mechanism, cafile=cert)
    assert ck.list_topics(timeout=10).controller_id == 1
    ck_admin = confluent(ssl_server, ADMIN, ADMIN_PASSWORD, mechanism, cafile=cert)
    described = ck_admin.describe_user_scram_credentials([user])[user].result(timeout=10)
    assert described.user == user

    with RawClient(ssl_server.host, ssl_server.port, cafile=cert) as raw:
        response = raw.login(ADMIN, "wrong", mechanism)
        assert response.error_code == 58
        assert raw.is_closed_by_server()
    wrong = confluent(ssl_server, ADMIN, "wrong", mechanism, cafile=cert)
    with pytest.raises(KafkaException):
        wrong.list_topics(timeout=2)


def test_plaintext_bytes_on_the_tls_listener_are_refused(
    ssl_server: ServerProcess, certificate: tuple[Path, Path]
) -> None:
    with socket.create_connection((ssl_server.host, ssl_server.port), timeout=10) as sock:
        sock.sendall(struct.pack(">ihhi", 10, 18, 0, 1) + b"\x00\x00")
        try:
            data = sock.recv(100)
        except ConnectionResetError:
            data = b""
        assert not data.startswith(b"\x00\x00")  # no Kafka response, only a TLS alert or EOF
    with RawClient(ssl_server.host, ssl_server.port, cafile=certificate[0]) as raw:
        assert raw.login(ADMIN, ADMIN_PASSWORD).error_code == 0  # the listener carries on
