"""The two admin clients under test, configured for a :class:`Target`: ``aclog serve`` or a real
Kafka broker."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from confluent_kafka.admin import AdminClient
from kafka.admin import KafkaAdminClient

T = TypeVar("T")


class Target(Protocol):
    """A listener the admin clients can reach: ``aclog serve`` (:class:`ServerProcess`) or a
    real broker (:class:`tests.real_kafka.KafkaTarget`)."""

    @property
    def bootstrap(self) -> str: ...

    @property
    def host(self) -> str: ...

    @property
    def port(self) -> int: ...

    @property
    def info(self) -> dict[str, Any]: ...


@contextmanager
def kafka_python(
    server: Target,
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
    server: Target,
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


def settled(target: Target, read: Callable[[], T], expected: T, timeout: float = 10.0) -> T:
    """What ``read()`` returns once a write has reached the listener's readers.

    aclog answers a read after an acknowledged write from the new image at once, so it is read
    once. A real Kafka broker acknowledges a change when its controller commits it, and what
    its reads consult (the authorizer, the SCRAM cache) follows the metadata log a moment later:
    there the read is repeated until it equals ``expected`` or ``timeout`` passes. The caller
    asserts the result.
    """
    return settled_when(target, read, lambda value: value == expected, timeout)


def settled_when(
    target: Target, read: Callable[[], T], ok: Callable[[T], bool], timeout: float = 10.0
) -> T:
    """:func:`settled` with a condition instead of an expected value."""
    value = read()
    if not getattr(target, "eventually_consistent", False):
        return value
    deadline = time.monotonic() + timeout
    while not ok(value) and time.monotonic() < deadline:
        time.sleep(0.05)
        value = read()
    return value
