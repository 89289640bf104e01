"""The two admin clients under test, configured for a :class:`ServerProcess`."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient
from kafka.admin import KafkaAdminClient

from tests.wire.harness import ServerProcess


@contextmanager
def kafka_python(
    server: ServerProcess,
    user: str | None = None,
    password: str | None = None,
    mechanism: str = "SCRAM-SHA-256",
    cafile: Path | None = None,
    bootstrap_timeout_ms: int = 10_000,
) -> Iterator[KafkaAdminClient]:
    """A kafka-python ``KafkaAdminClient``, closed afterwards."""
    config: dict[str, Any] = {
        "bootstrap_servers": server.bootstrap,
        "request_timeout_ms": 10_000,
        "bootstrap_timeout_ms": bootstrap_timeout_ms,
        "client_id": "wire-test-kp",
    }
    protocol = server.info["security_protocol"]
    if protocol != "PLAINTEXT":
        config.update(
            security_protocol=protocol,
            sasl_mechanism=mechanism,
            sasl_plain_username=user,
            sasl_plain_password=password,
        )
    if cafile is not None:
        config["ssl_cafile"] = str(cafile)
    admin = KafkaAdminClient(**config)
    try:
        yield admin
    finally:
        admin.close()


def confluent(
    server: ServerProcess,
    user: str | None = None,
    password: str | None = None,
    mechanism: str = "SCRAM-SHA-256",
    cafile: Path | None = None,
    **extra: Any,
) -> AdminClient:
    """A confluent-kafka ``AdminClient`` (librdkafka closes it when it is garbage collected)."""
    config: dict[str, Any] = {
        "bootstrap.servers": server.bootstrap,
        "client.id": "wire-test-ck",
        "socket.timeout.ms": 10_000,
        "logger": logging.getLogger("librdkafka"),  # to pytest's log capture, not stderr
        **extra,
    }
    protocol = server.info["security_protocol"]
    if protocol != "PLAINTEXT":
        config.update(
            {
                "security.protocol": protocol,
                "sasl.mechanism": mechanism,
                "sasl.username": user,
                "sasl.password": password,
            }
        )
    if cafile is not None:
        config["ssl.ca.location"] = str(cafile)
    return AdminClient(config)
