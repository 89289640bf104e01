"""The session's real Kafka broker answers Kafka's own tools and both admin clients."""

from __future__ import annotations

from tests.real_kafka import KafkaBroker, KafkaTarget
from tests.wire.clients import kafka_python


def test_the_broker_answers_its_own_acl_tool_and_kafka_python(kafka_broker: KafkaBroker) -> None:
    listed = kafka_broker.tool(
        "kafka-acls.sh", "--bootstrap-server", kafka_broker.bootstrap, "--list"
    )
    assert listed.returncode == 0, listed.stderr
    with kafka_python(KafkaTarget(kafka_broker)) as admin:  # type: ignore[arg-type]
        assert admin.describe_cluster()["cluster_id"]
    assert kafka_broker.metadata_dir.is_dir()
