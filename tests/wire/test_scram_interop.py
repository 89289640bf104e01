"""SCRAM users through the listener: upsert, describe and delete with both admin clients,
per-user errors, and SASL/SCRAM logins (right and wrong passwords, both mechanisms, across
clients)."""

from __future__ import annotations

import base64
import re
import struct
import time
from typing import Any

import pytest
import scramp
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import ScramCredentialInfo
from confluent_kafka.admin import ScramMechanism as CkMechanism
from confluent_kafka.admin import UserScramCredentialDeletion as CkDeletion
from confluent_kafka.admin import UserScramCredentialUpsertion as CkUpsertion
from kafka.admin import ScramMechanism, UserScramCredentialDeletion, UserScramCredentialUpsertion
from kafka.errors import KafkaError as KpError
from kafka.net.sasl.scram import ScramClient as KpScramClient
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
from typer.testing import CliRunner

from aclog.controller import DEFAULT_ITERATIONS
from aclog.tools.main import app
from tests.real_kafka import KafkaBroker, KafkaTarget
from tests.wire.clients import Target, confluent, kafka_python, settled, settled_when
from tests.wire.conftest import ADMIN, ADMIN_PASSWORD
from tests.wire.harness import RawClient, ServerProcess

FAILED = (
    "Authentication failed during authentication due to invalid credentials with SASL mechanism {}"
)


def can_log_in(server: Target, user: str, password: str, mechanism: str) -> bool:
    with RawClient(server.host, server.port) as raw:
        response = raw.login(user, password, mechanism)
    return response is not None and response.error_code == 0


def _result_or_none(future: Any) -> Any:
    """A confluent future's result, or None when it failed (a user not there yet)."""
    try:
        return future.result(timeout=10)
    except KafkaException:
        return None


def test_kafka_python_manages_users_and_confluent_logs_in(scram_target: Target) -> None:
    with kafka_python(scram_target, ADMIN, ADMIN_PASSWORD) as admin:
        result = admin.alter_user_scram_credentials(
            [
                UserScramCredentialUpsertion(
                    "kp-made", ScramMechanism.SCRAM_SHA_512, "s3cret", 8192
                ),
                UserScramCredentialUpsertion("kp-other", ScramMechanism.SCRAM_SHA_256, "pw", 4096),
            ]
        )
        assert result == {"kp-made": None, "kp-other": None}
        described = settled_when(
            scram_target,
            lambda: admin.describe_user_scram_credentials(["kp-made", "kp-other"]),
            lambda d: all(d[u]["error"] is None for u in ("kp-made", "kp-other")),
        )
        assert described["kp-made"] == {
            "error": None,
            "credential_infos": [{"mechanism": ScramMechanism.SCRAM_SHA_512, "iterations": 8192}],
        }
        everyone = admin.describe_user_scram_credentials()
        assert {"admin", "kp-made", "kp-other"} <= set(everyone)
        assert {info["mechanism"] for info in everyone["admin"]["credential_infos"]} == {
            ScramMechanism.SCRAM_SHA_256,
            ScramMechanism.SCRAM_SHA_512,
        }

    # Created by kafka-python, logs in with librdkafka at once.
    user = confluent(scram_target, "kp-made", "s3cret", "SCRAM-SHA-512")
    metadata = user.list_topics(timeout=10)
    assert set(metadata.topics) == set()  # no ACLs: kp-made may describe no topic
    assert metadata.controller_id == 1

    with kafka_python(scram_target, ADMIN, ADMIN_PASSWORD) as admin:
        result = admin.alter_user_scram_credentials(
            [UserScramCredentialDeletion("kp-other", ScramMechanism.SCRAM_SHA_256)]
        )
        assert result == {"kp-other": None}
        gone = settled_when(
            scram_target,
            lambda: admin.describe_user_scram_credentials(["kp-other"])["kp-other"],
            lambda g: g["error"] is not None,
        )
        assert (
            gone["error"] == "Attempt to describe a user credential that does not exist: kp-other"
        )
    assert not settled(
        scram_target, lambda: can_log_in(scram_target, "kp-other", "pw", "SCRAM-SHA-256"), False
    )


def test_confluent_manages_users_and_kafka_python_logs_in(scram_target: Target) -> None:
    admin = confluent(scram_target, ADMIN, ADMIN_PASSWORD, "SCRAM-SHA-512")
    info = ScramCredentialInfo(CkMechanism.SCRAM_SHA_256, 4096)
    futures = admin.alter_user_scram_credentials([CkUpsertion("ck-made", info, b"pa55")])
    assert futures["ck-made"].result(timeout=10) is None
    described = settled_when(
        scram_target,
        lambda: _result_or_none(admin.describe_user_scram_credentials(["ck-made"])["ck-made"]),
        lambda d: d is not None,
    )
    assert described is not None
    assert [(c.mechanism, c.iterations) for c in described.scram_credential_infos] == [
        (CkMechanism.SCRAM_SHA_256, 4096)
    ]
    everyone = admin.describe_user_scram_credentials().result(timeout=10)  # users=[] on the wire
    assert {"admin", "ck-made"} <= set(everyone)

    # Created by librdkafka, logs in with kafka-python at once.
    with kafka_python(scram_target, "ck-made", "pa55", "SCRAM-SHA-256") as user:
        cluster = user.describe_cluster()
        assert cluster["controller_id"] == 1 and cluster["authorized_operations"] == []

    deletion = admin.alter_user_scram_credentials(
        [CkDeletion("ck-made", CkMechanism.SCRAM_SHA_256)]
    )
    assert deletion["ck-made"].result(timeout=10) is None
    assert not settled(
        scram_target, lambda: can_log_in(scram_target, "ck-made", "pa55", "SCRAM-SHA-256"), False
    )


def test_per_user_errors(scram_target: Target) -> None:
    with kafka_python(scram_target, ADMIN, ADMIN_PASSWORD) as admin:
        result = admin.alter_user_scram_credentials(
            [
                UserScramCredentialDeletion("ghost", ScramMechanism.SCRAM_SHA_256),
                UserScramCredentialDeletion("weird", ScramMechanism.UNKNOWN),
                UserScramCredentialUpsertion("few", ScramMechanism.SCRAM_SHA_256, "pw", 1000),
                UserScramCredentialUpsertion("many", ScramMechanism.SCRAM_SHA_256, "pw", 20000),
                UserScramCredentialUpsertion("twice", ScramMechanism.SCRAM_SHA_256, "pw"),
                UserScramCredentialUpsertion("twice", ScramMechanism.SCRAM_SHA_512, "pw"),
                UserScramCredentialUpsertion("fine", ScramMechanism.SCRAM_SHA_256, "pw"),
            ]
        )
        assert result == {
            "ghost": "Attempt to delete a user credential that does not exist",
            "weird": "Unknown SCRAM mechanism",
            "few": "Too few iterations",
            "many": "Too many iterations",
            "twice": "A user credential cannot be altered twice in the same request",
            "fine": None,
        }
        described = admin.describe_user_scram_credentials(["fine", "twice", "fine"])
        assert described["fine"]["error"].startswith(
            "Cannot describe SCRAM credentials for the same user twice"
        )
        assert described["twice"]["error"].startswith("Attempt to describe a user credential")

    admin_ck = confluent(scram_target, ADMIN, ADMIN_PASSWORD)
    futures = admin_ck.alter_user_scram_credentials(
        [
            CkDeletion("ghost2", CkMechanism.SCRAM_SHA_512),
            CkUpsertion("low", ScramCredentialInfo(CkMechanism.SCRAM_SHA_256, 100), b"pw"),
        ]
    )
    for user, code in (
        ("ghost2", KafkaError.RESOURCE_NOT_FOUND),
        ("low", KafkaError.UNACCEPTABLE_CREDENTIAL),
    ):
        with pytest.raises(KafkaException) as raised:
            futures[user].result(timeout=10)
        assert raised.value.args[0].code() == code
    missing = admin_ck.describe_user_scram_credentials(["nobody-here"])["nobody-here"]
    with pytest.raises(KafkaException) as raised:
        missing.result(timeout=10)
    assert raised.value.args[0].code() == KafkaError.RESOURCE_NOT_FOUND


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_login_right_and_wrong_password(scram_target: Target, mechanism: str) -> None:
    with kafka_python(scram_target, ADMIN, ADMIN_PASSWORD, mechanism) as admin:
        assert admin.describe_cluster()["controller_id"] == 1
    assert confluent(scram_target, ADMIN, ADMIN_PASSWORD, mechanism).list_topics(timeout=10)

    with RawClient(scram_target.host, scram_target.port) as raw:
        response = raw.login(ADMIN, "wrong", mechanism)
        assert (response.error_code, response.error_message) == (58, FAILED.format(mechanism))
        assert raw.is_closed_by_server()
    with RawClient(scram_target.host, scram_target.port) as raw:
        response = raw.login("no-such-user", "x", mechanism)
        assert (response.error_code, response.error_message) == (58, FAILED.format(mechanism))

    # kafka-python retries a failed login until bootstrap gives up.
    with (
        pytest.raises(KpError),
        kafka_python(scram_target, ADMIN, "wrong", mechanism, bootstrap_timeout_ms=1500),
    ):
        pass
    errors: list[Any] = []
    client = confluent(scram_target, ADMIN, "wrong", mechanism, error_cb=errors.append)
    with pytest.raises(KafkaException):
        client.list_topics(timeout=3)
    client.poll(1.0)  # serves error_cb
    assert any(e.code() == KafkaError._AUTHENTICATION for e in errors), errors
    assert any(FAILED.format(mechanism) in e.str() for e in errors), errors


def _kafka_python_login(server: Target, user: str, mechanism: str) -> dict[str, Any]:
    """kafka-python's own SCRAM client over a raw connection, with a wrong password: what it
    sees at each step."""
    client = KpScramClient(user, "not-the-password", mechanism)
    with RawClient(server.host, server.port) as raw:
        raw.request(SaslHandshakeRequest(version=1, mechanism=mechanism), SaslHandshakeResponse)
        first = raw.request(
            SaslAuthenticateRequest(version=2, auth_bytes=client.first_message()),
            SaslAuthenticateResponse,
        )
        assert first.error_code == 0, first  # a server-first message, user known or not
        client.process_server_first_message(first.auth_bytes)  # kafka-python accepts it
        final = raw.request(
            SaslAuthenticateRequest(version=2, auth_bytes=client.final_message()),
            SaslAuthenticateResponse,
        )
        server_first = dict(p.split("=", 1) for p in first.auth_bytes.decode().split(","))
        return {
            "salt": base64.b64decode(server_first["s"]),
            "iterations": int(server_first["i"]),
            "final": (final.error_code, final.error_message, final.auth_bytes),
            "closed": raw.is_closed_by_server(),
        }


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_unknown_user_and_wrong_password_look_the_same_to_clients(
    sasl_server: ServerProcess, mechanism: str
) -> None:
    """Deliberate difference (no user enumeration): aclog only. Kafka 4.0 answers an unknown
    user's first SCRAM message with 58 at once (next test), which tells a client who exists."""
    wrong_password = _kafka_python_login(sasl_server, ADMIN, mechanism)
    unknown = _kafka_python_login(sasl_server, "no-such-user", mechanism)
    assert unknown["final"] == wrong_password["final"] == (58, FAILED.format(mechanism), b"")
    assert unknown["closed"] and wrong_password["closed"]
    assert unknown["iterations"] == DEFAULT_ITERATIONS and len(unknown["salt"]) == 32
    again = _kafka_python_login(sasl_server, "no-such-user", mechanism)
    other = _kafka_python_login(sasl_server, "nobody-either", mechanism)
    assert again["salt"] == unknown["salt"] != other["salt"]  # stable per user, per user

    def librdkafka_errors(user: str) -> set[str]:
        errors: list[Any] = []
        client = confluent(sasl_server, user, "not-the-password", mechanism, error_cb=errors.append)
        with pytest.raises(KafkaException):
            client.list_topics(timeout=3)
        client.poll(1.0)  # serves error_cb
        failures = [e.str() for e in errors if e.code() == KafkaError._AUTHENTICATION]
        return {re.sub(r"after \d+ms", "after _ms", text) for text in failures}

    seen = librdkafka_errors(ADMIN)
    assert seen and librdkafka_errors("no-such-user") == seen


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_kafka_tells_an_unknown_user_at_the_first_message(
    kafka_broker: KafkaBroker, mechanism: str
) -> None:
    """The Kafka side of the enumeration difference: a wrong password gets a server-first
    message, an unknown user an error at once."""
    target = KafkaTarget(kafka_broker, sasl=True)
    with RawClient(target.host, target.port) as raw:
        raw.request(SaslHandshakeRequest(version=1, mechanism=mechanism), SaslHandshakeResponse)
        client = KpScramClient("no-such-user", "x", mechanism)
        first = raw.request(
            SaslAuthenticateRequest(version=2, auth_bytes=client.first_message()),
            SaslAuthenticateResponse,
        )
    assert first.error_code == 58


def test_sasl_state_machine(scram_target: Target) -> None:
    with RawClient(scram_target.host, scram_target.port) as raw:
        versions = raw.request(
            ApiVersionsRequest(version=3, client_software_name="raw", client_software_version="1"),
            ApiVersionsResponse,
        )
        assert versions.error_code == 0  # ApiVersions is served before the login
        raw.send(MetadataRequest(version=12, topics=None, allow_auto_topic_creation=False))
        assert raw.is_closed_by_server()  # anything else is not

    with RawClient(scram_target.host, scram_target.port) as raw:
        response = raw.request(
            SaslHandshakeRequest(version=1, mechanism="PLAIN"), SaslHandshakeResponse
        )
        assert response.error_code == 33
        # Kafka lists the enabled mechanisms in no fixed order.
        assert sorted(response.mechanisms) == ["SCRAM-SHA-256", "SCRAM-SHA-512"]
        assert raw.is_closed_by_server()

    with RawClient(scram_target.host, scram_target.port) as raw:
        response = raw.request(
            SaslAuthenticateRequest(version=2, auth_bytes=b"n,,n=a,r=b"), SaslAuthenticateResponse
        )
        assert response is None  # no handshake yet: closed without an answer, as Kafka does
        assert raw.is_closed_by_server()

    with RawClient(scram_target.host, scram_target.port) as raw:
        assert raw.login(ADMIN, ADMIN_PASSWORD).error_code == 0
        again = raw.request(
            SaslAuthenticateRequest(version=2, auth_bytes=b"x"), SaslAuthenticateResponse
        )
        assert (again.error_code, again.error_message) == (
            34,
            "SaslAuthenticate request received after successful authentication",
        )
        handshake = raw.request(
            SaslHandshakeRequest(version=1, mechanism="SCRAM-SHA-256"), SaslHandshakeResponse
        )
        assert handshake.error_code == 34
        metadata = raw.request(
            MetadataRequest(version=12, topics=[], allow_auto_topic_creation=False),
            MetadataResponse,
        )
        assert metadata.controller_id == 1


def test_v0_handshake_then_bare_scram_tokens(scram_target: Target) -> None:
    """After a v0 SaslHandshake the SCRAM messages travel as bare size-prefixed frames."""
    with RawClient(scram_target.host, scram_target.port) as raw:
        response = raw.request(
            SaslHandshakeRequest(version=0, mechanism="SCRAM-SHA-512"), SaslHandshakeResponse
        )
        assert response.error_code == 0
        client = scramp.ScramClient(["SCRAM-SHA-512"], ADMIN, ADMIN_PASSWORD)
        first = client.get_client_first().encode()
        raw.send_raw(struct.pack(">i", len(first)) + first)
        server_first = raw.recv_frame()
        assert server_first is not None
        client.set_server_first(server_first.decode())
        final = client.get_client_final().encode()
        raw.send_raw(struct.pack(">i", len(final)) + final)
        server_final = raw.recv_frame()
        assert server_final is not None
        client.set_server_final(server_final.decode())  # raises if the server signature is wrong
        versions = raw.request(ApiVersionsRequest(version=2), ApiVersionsResponse)
        assert versions.error_code == 0

    with RawClient(scram_target.host, scram_target.port) as raw:
        raw.request(
            SaslHandshakeRequest(version=0, mechanism="SCRAM-SHA-256"), SaslHandshakeResponse
        )
        raw.send_raw(struct.pack(">i", 5) + b"bogus")
        assert raw.is_closed_by_server()


def test_a_client_without_sasl_settings_is_told_at_once(scram_target: Target) -> None:
    """Both listeners answer ApiVersions and then close a client that has not logged in; the
    CLI asks the listener why instead of retrying until its timeout (17 s before)."""
    started = time.monotonic()
    listed = CliRunner().invoke(app, ["acls", "list", "--bootstrap-server", scram_target.bootstrap])
    assert listed.exit_code == 3, listed.output
    assert "the listener wants a SASL login (it offers SCRAM-SHA-" in listed.stderr
    assert "security.protocol=SASL_PLAINTEXT" in listed.stderr
    assert time.monotonic() - started < 10
