"""Session-wide ``aclog serve`` subprocesses, one per listener kind, stopped at the end.

- ``plain_server``: PLAINTEXT, ``User:ANONYMOUS`` is a super user, a topics inventory.
- ``sasl_server``: SASL_PLAINTEXT, super user ``User:admin`` (seeded with both mechanisms),
  the same inventory.
- ``ssl_server``: SASL_SSL with a self-signed certificate for 127.0.0.1 (``openssl`` CLI).
- ``fuzz_server``: PLAINTEXT without super users (every admin request is denied, so random
  frames cannot change state), a 64 KiB frame limit and a 2 s frame timeout.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka.admin import NewTopic, UserScramCredentialUpsertion
from kafka.admin import ScramMechanism as KpMechanism

from aclog.node import Node
from aclog.records import ScramMechanism
from aclog.wire import ServerConfig
from tests.real_kafka import KafkaBroker, KafkaTarget
from tests.wire.clients import Target, kafka_python
from tests.wire.harness import ServerProcess, make_certificate

ADMIN = "admin"
ADMIN_PASSWORD = "admin-secret"
TOPICS = "orders 3\npayments.eu\npayments.us 2\nTOPIC:audit\nGROUP:billing\n# a comment\n"


def _start(
    tmp_path_factory: pytest.TempPathFactory, name: str, *args: str, seed: bool = False
) -> Iterator[ServerProcess]:
    workdir = tmp_path_factory.mktemp(name)
    (workdir / "topics.txt").write_text(TOPICS)
    # Tests on these shared servers read each close's reason from the log, after hundreds of
    # other connections from 127.0.0.1: no event is folded into a summary here
    # (test_log_flood checks the bound on a server of its own).
    unbounded = ("--log-events-per-ip", "1000000")
    server = ServerProcess(
        workdir, *args, *unbounded, "--topics", str(workdir / "topics.txt"), name=name
    )
    if seed:
        server.seed_user(ADMIN, ADMIN_PASSWORD, ScramMechanism.SCRAM_SHA_256)
        server.seed_user(ADMIN, ADMIN_PASSWORD, ScramMechanism.SCRAM_SHA_512)
    server.start()
    try:
        yield server
    finally:
        code = server.stop()
        assert code == 0, f"{name} exited with {code}:\n{server.stderr()[-3000:]}"


@pytest.fixture(scope="session")
def plain_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from _start(tmp_path_factory, "plain", "--super-users", "User:ANONYMOUS")


@pytest.fixture(scope="session")
def sasl_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from _start(
        tmp_path_factory,
        "sasl",
        "--security-protocol",
        "SASL_PLAINTEXT",
        "--super-users",
        f"User:{ADMIN}",
        seed=True,
    )


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    # The SASL_SSL tests must run, not skip: without openssl they fail and say what to install.
    assert shutil.which("openssl"), "install the openssl CLI (Debian: openssl) for the TLS tests"
    return make_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="session")
def ssl_server(
    tmp_path_factory: pytest.TempPathFactory, certificate: tuple[Path, Path]
) -> Iterator[ServerProcess]:
    cert, key = certificate
    yield from _start(
        tmp_path_factory,
        "ssl",
        "--security-protocol",
        "SASL_SSL",
        "--tls-cert",
        str(cert),
        "--tls-key",
        str(key),
        "--super-users",
        f"User:{ADMIN}",
        seed=True,
    )


@pytest.fixture(scope="session")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from _start(
        tmp_path_factory, "fuzz", "--max-frame-bytes", "65536", "--frame-timeout", "2"
    )


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    """An in-process node on a fresh data directory, ``User:ANONYMOUS`` a super user."""
    opened = Node.open(
        ServerConfig(data_dir=tmp_path / "data", super_users=frozenset({"User:ANONYMOUS"}))
    )
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="session", params=["aclog", "kafka"])
def acl_target(request: pytest.FixtureRequest) -> Target:
    """The conformance backends for ACL admin requests: ``aclog serve`` (PLAINTEXT, anonymous
    super user) and a real Kafka 4.0 broker's PLAINTEXT listener (the same)."""
    if request.param == "aclog":
        server: ServerProcess = request.getfixturevalue("plain_server")
        return server
    return KafkaTarget(request.getfixturevalue("kafka_broker"))


@pytest.fixture(scope="session", params=["aclog", "kafka"])
def scram_target(request: pytest.FixtureRequest) -> Target:
    """The conformance backends for SCRAM: SASL_PLAINTEXT with super user ``admin`` /
    ``admin-secret`` (both mechanisms) on ``aclog serve`` and on a real Kafka 4.0 broker."""
    if request.param == "aclog":
        server: ServerProcess = request.getfixturevalue("sasl_server")
        return server
    target: KafkaTarget = request.getfixturevalue("scram_target_kafka")
    return target


@pytest.fixture(scope="session")
def scram_target_kafka(kafka_broker: KafkaBroker) -> KafkaTarget:
    """The real broker's SASL listener, its super user ``admin`` given SCRAM-SHA-512 too."""
    broker = kafka_broker
    # aclog's server is seeded with both mechanisms for admin; give Kafka's admin the second.
    with kafka_python(KafkaTarget(broker)) as admin:
        upsertion = UserScramCredentialUpsertion(ADMIN, KpMechanism.SCRAM_SHA_512, ADMIN_PASSWORD)
        assert admin.alter_user_scram_credentials([upsertion]) == {ADMIN: None}
    return KafkaTarget(broker, sasl=True)


KAFKA_TOPICS = {"orders": 3, "payments.eu": 1, "payments.us": 2, "audit": 1}
"""The topics of :data:`TOPICS` that a real broker gets (GROUP lines name no topic)."""


@pytest.fixture(scope="session", params=["aclog", "kafka"])
def topic_targets(request: pytest.FixtureRequest) -> tuple[Target, Target]:
    """(PLAINTEXT, SASL_PLAINTEXT) listeners that hold the topics of :data:`TOPICS`: aclog's
    from ``--topics``, a real broker's created through its admin API once per session."""
    if request.param == "aclog":
        plain: ServerProcess = request.getfixturevalue("plain_server")
        sasl: ServerProcess = request.getfixturevalue("sasl_server")
        return plain, sasl
    broker: KafkaBroker = request.getfixturevalue("kafka_broker")
    sasl_target = request.getfixturevalue("scram_target_kafka")
    with kafka_python(KafkaTarget(broker)) as admin:
        missing = set(KAFKA_TOPICS) - set(admin.list_topics())
        admin.create_topics([NewTopic(n, KAFKA_TOPICS[n], 1) for n in sorted(missing)])
    return KafkaTarget(broker), sasl_target
