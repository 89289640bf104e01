"""``aclog explain`` on a live broker's metadata directory decides as the broker does.

ACLs are made on a real Kafka 4.0 broker (LITERAL, PREFIXED, a LITERAL ``*``, DENY over ALLOW,
``User:*``, a host condition, the cluster). The broker's own decisions for a SCRAM user come
from KIP-430: DescribeTopics and DescribeCluster with authorized operations, asked while logged
in as that user. aclog's come from ``aclog explain`` reading the broker's
``__cluster_metadata-0`` as it runs. Every (resource, operation) pair must agree.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException, TopicCollection
from kafka.admin import (
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    NewTopic,
    ResourceType,
    ScramMechanism,
    UserScramCredentialUpsertion,
)

from tests.real_kafka import KafkaBroker, KafkaTarget, unique
from tests.tools.test_remote_cli import _run
from tests.wire.clients import confluent, kafka_python
from tests.wire.harness import RawClient
from tests.wire.test_acls_interop import kp_acl, kp_filter

TOPIC_OPS = ("READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "DESCRIBE_CONFIGS",
             "ALTER_CONFIGS")  # fmt: skip
CLUSTER_OPS = ("CREATE", "ALTER", "DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS",
               "ALTER_CONFIGS", "IDEMPOTENT_WRITE")  # fmt: skip
SUPER_USERS = "User:admin;User:ANONYMOUS"  # the test broker's super.users
PASSWORD = "reader-secret"


def _acls(user: str, p: str) -> list[Any]:
    principal = f"User:{user}"
    prefixed, deny = ACLResourcePatternType.PREFIXED, ACLPermissionType.DENY
    return [
        kp_acl(principal, ResourceType.TOPIC, f"{p}orders"),
        kp_acl(principal, ResourceType.TOPIC, f"{p}pay.", prefixed, ACLOperation.ALL),
        kp_acl(
            principal,
            ResourceType.TOPIC,
            f"{p}pay.us",
            operation=ACLOperation.WRITE,
            permission=deny,
        ),
        kp_acl("User:*", ResourceType.TOPIC, f"{p}audit", operation=ACLOperation.DESCRIBE),
        kp_acl(
            principal,
            ResourceType.TOPIC,
            f"{p}audit",
            operation=ACLOperation.WRITE,
            host="10.9.9.9",
        ),
        kp_acl(principal, ResourceType.TOPIC, "*", operation=ACLOperation.DESCRIBE_CONFIGS),
        kp_acl(principal, ResourceType.CLUSTER, "kafka-cluster", operation=ACLOperation.ALTER),
        kp_acl(
            principal,
            ResourceType.CLUSTER,
            "kafka-cluster",
            operation=ACLOperation.ALTER_CONFIGS,
            permission=deny,
        ),
    ]


@pytest.fixture
def reader(kafka_broker: KafkaBroker) -> Iterator[tuple[str, str]]:
    """(user, topic prefix): a SCRAM user with the ACLs of :func:`_acls` and four topics;
    the ACLs are removed afterwards (topics and user stay: nothing else names them)."""
    user, p = unique("reader"), unique("ex") + "-"
    with kafka_python(KafkaTarget(kafka_broker)) as admin:
        upsertion = UserScramCredentialUpsertion(user, ScramMechanism.SCRAM_SHA_256, PASSWORD)
        assert admin.alter_user_scram_credentials([upsertion]) == {user: None}
        topics = [f"{p}{t}" for t in ("orders", "pay.eu", "pay.us", "audit", "other")]
        admin.create_topics([NewTopic(t, 1, 1) for t in topics])
        assert admin.create_acls(_acls(user, p))["failed"] == []
    _wait_for_login(kafka_broker, user)
    try:
        yield user, p
    finally:
        with kafka_python(KafkaTarget(kafka_broker)) as admin:
            admin.delete_acls([kp_filter(f"User:{user}"), kp_filter("User:*", name=f"{p}audit")])


def _wait_for_login(broker: KafkaBroker, user: str) -> None:
    """Until the broker's SCRAM cache, which follows its metadata log, lets ``user`` log in."""
    target = KafkaTarget(broker, sasl=True)
    deadline = time.monotonic() + 20
    while True:
        with RawClient(target.host, target.port) as raw:
            answer = raw.login(user, PASSWORD)
        if answer is not None and answer.error_code == 0:
            return
        assert time.monotonic() < deadline, f"{user} cannot log in: {answer}"
        time.sleep(0.2)


def _kafka_decisions(broker: KafkaBroker, user: str, topics: list[str]) -> dict[str, set[str]]:
    """What the broker lets ``user`` do: authorized operations per topic and for "cluster"; a
    topic the user may not describe maps to the empty set."""
    client = confluent(KafkaTarget(broker, sasl=True), user, PASSWORD)
    decisions: dict[str, set[str]] = {}
    futures = client.describe_topics(TopicCollection(topics), include_authorized_operations=True)
    for name, future in futures.items():
        try:
            found = future.result(timeout=10).authorized_operations
            decisions[name] = {op.name for op in found or ()}
        except KafkaException as error:  # only "not authorized" is an answer; the rest retries
            refused = error.args[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
            decisions[name] = set() if refused else {"(not known yet)"}
    cluster = client.describe_cluster(include_authorized_operations=True).result(timeout=10)
    decisions["cluster"] = {op.name for op in cluster.authorized_operations or ()}
    return decisions


def _aclog_allows(broker: KafkaBroker, user: str, op: str, resource: tuple[str, ...]) -> bool:
    result = _run("explain", "--data-dir", str(broker.metadata_dir), "--principal",
                  f"User:{user}", "--host", "127.0.0.1", "--operation", op, *resource,
                  "--super-users", SUPER_USERS, "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    return bool(json.loads(result.stdout)["decision"] == "ALLOWED")


def _aclog_decisions(broker: KafkaBroker, user: str, topics: list[str]) -> dict[str, set[str]]:
    decisions = {
        t: {op for op in TOPIC_OPS if _aclog_allows(broker, user, op, ("--topic", t))}
        for t in topics
    }
    # Kafka shows no operations for a topic the user may not describe: compare the same way.
    decisions = {t: ops if "DESCRIBE" in ops else set() for t, ops in decisions.items()}
    decisions["cluster"] = {
        op for op in CLUSTER_OPS if _aclog_allows(broker, user, op, ("--cluster",))
    }
    return decisions


def test_explain_on_the_live_metadata_dir_decides_as_the_broker(
    kafka_broker: KafkaBroker, reader: tuple[str, str]
) -> None:
    user, p = reader
    topics = [f"{p}{t}" for t in ("orders", "pay.eu", "pay.us", "audit", "other")]
    mine = _aclog_decisions(kafka_broker, user, topics)  # the log has what was acknowledged
    deadline = time.monotonic() + 30
    while True:  # the broker's authorizer and topics follow its log a moment after the commit
        theirs = _kafka_decisions(kafka_broker, user, topics)
        if theirs == mine or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert mine == theirs
    # The cases the ACLs were chosen for, so the comparison cannot pass vacuously.
    assert theirs[f"{p}orders"] == {"READ", "DESCRIBE", "DESCRIBE_CONFIGS"}
    assert "WRITE" in theirs[f"{p}pay.eu"] and "WRITE" not in theirs[f"{p}pay.us"]
    assert theirs[f"{p}audit"] == {"DESCRIBE", "DESCRIBE_CONFIGS"}
    assert theirs[f"{p}other"] == set()
    assert theirs["cluster"] == {"ALTER", "DESCRIBE"}
