"""Admin APIs need ALTER (changes) or DESCRIBE (reads) on CLUSTER ``kafka-cluster``; without
them the answer is CLUSTER_AUTHORIZATION_FAILED (31), and DescribeAcls reveals nothing. KIP-430
authorized operations follow the caller's ACLs for the cluster and for each topic."""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException, TopicCollection
from confluent_kafka.admin import AclBinding, AclBindingFilter
from confluent_kafka.admin import AclOperation as CkOp
from confluent_kafka.admin import AclPermissionType as CkPerm
from confluent_kafka.admin import ResourcePatternType as CkPattern
from confluent_kafka.admin import ResourceType as CkType
from kafka.admin import (
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ResourceType,
    ScramMechanism,
    UserScramCredentialUpsertion,
)
from kafka.errors import ClusterAuthorizationFailedError
from kafka.protocol.admin import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    DeleteAclsRequest,
    DeleteAclsResponse,
)

from tests.real_kafka import KafkaTarget
from tests.wire.clients import Target, confluent, kafka_python, settled
from tests.wire.conftest import ADMIN, ADMIN_PASSWORD
from tests.wire.harness import RawClient
from tests.wire.test_acls_interop import kp_acl, kp_filter


def _make_user(server: Target, user: str, password: str) -> None:
    with kafka_python(server, ADMIN, ADMIN_PASSWORD) as admin:
        result = admin.alter_user_scram_credentials(
            [UserScramCredentialUpsertion(user, ScramMechanism.SCRAM_SHA_256, password)]
        )
        assert result == {user: None}

        def known() -> bool:
            return admin.describe_user_scram_credentials([user])[user]["error"] is None

        assert settled(server, known, True)  # a real broker logs the user in a moment later


def test_unauthorized_principal_gets_error_31(scram_target: Target) -> None:
    sasl_server = scram_target
    _make_user(sasl_server, "mallory", "m-pass")
    with kafka_python(sasl_server, ADMIN, ADMIN_PASSWORD) as admin:
        admin.create_acls([kp_acl("User:secret-holder", ResourceType.TOPIC, "vault")])

    with kafka_python(sasl_server, "mallory", "m-pass") as kp:
        created = kp.create_acls([kp_acl("User:mallory", ResourceType.CLUSTER, "kafka-cluster")])
        assert created["failed"] == [ClusterAuthorizationFailedError]
        with pytest.raises(ClusterAuthorizationFailedError):
            kp.describe_acls(kp_filter(None))
        [(_, matched, error)] = kp.delete_acls([kp_filter(None)])
        assert error is ClusterAuthorizationFailedError and matched == []
        with pytest.raises(ClusterAuthorizationFailedError):
            kp.describe_user_scram_credentials(["admin"])
        if not isinstance(sasl_server, KafkaTarget):
            # Kafka 4.0 never answers this one (users=null, every user): its error response
            # throws a NullPointerException (DescribeUserScramCredentialsRequest.
            # getErrorResponse) and the client times out. aclog answers 31.
            with pytest.raises(ClusterAuthorizationFailedError):
                kp.describe_user_scram_credentials()
        assert kp.describe_cluster()["authorized_operations"] == []

    ck = confluent(sasl_server, "mallory", "m-pass")
    binding = AclBinding(
        CkType.TOPIC, "x", CkPattern.LITERAL, "User:mallory", "*", CkOp.ALL, CkPerm.ALLOW
    )
    [future] = ck.create_acls([binding], request_timeout=10).values()
    with pytest.raises(KafkaException) as raised:
        future.result()
    assert raised.value.args[0].code() == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    everything = AclBindingFilter(CkType.ANY, None, CkPattern.ANY, None, None, CkOp.ANY, CkPerm.ANY)
    # librdkafka drops DescribeAcls' top-level error code (rd_kafka_DescribeAclsResponse_parse
    # returns NO_ERROR whatever it reads), so the refusal shows as an empty list: nothing leaks.
    assert ck.describe_acls(everything).result(timeout=10) == []

    with RawClient(sasl_server.host, sasl_server.port) as raw:
        assert raw.login("mallory", "m-pass").error_code == 0
        response = raw.request(
            AlterUserScramCredentialsRequest(
                version=0,
                deletions=[
                    AlterUserScramCredentialsRequest.ScramCredentialDeletion(
                        name="admin", mechanism=1
                    )
                ],
                upsertions=[],
            ),
            AlterUserScramCredentialsResponse,
        )
        assert [(r.user, r.error_code) for r in response.results] == [("admin", 31)]
        response = raw.request(
            DeleteAclsRequest(
                version=3,
                filters=[
                    DeleteAclsRequest.DeleteAclsFilter(
                        resource_type_filter=1,
                        resource_name_filter=None,
                        pattern_type_filter=1,
                        principal_filter=None,
                        host_filter=None,
                        operation=1,
                        permission_type=1,
                    )
                ],
            ),
            DeleteAclsResponse,
        )
        assert [(r.error_code, r.matching_acls) for r in response.filter_results] == [(31, [])]

    # DESCRIBE on the cluster lets mallory read ACLs, but still not change them.
    with kafka_python(sasl_server, ADMIN, ADMIN_PASSWORD) as admin:
        admin.create_acls(
            [
                kp_acl(
                    "User:mallory",
                    ResourceType.CLUSTER,
                    "kafka-cluster",
                    operation=ACLOperation.DESCRIBE,
                )
            ]
        )
        _settle_acls(sasl_server, admin, "User:mallory", 1)
    with kafka_python(sasl_server, "mallory", "m-pass") as kp:
        found, _ = kp.describe_acls(kp_filter("User:secret-holder"))
        assert [a.resource_pattern.resource_name for a in found] == ["vault"]
        assert kp.create_acls([kp_acl("User:mallory", ResourceType.TOPIC, "x")])["failed"] == [
            ClusterAuthorizationFailedError
        ]
        assert kp.describe_cluster()["authorized_operations"] == ["DESCRIBE"]
        assert "admin" in kp.describe_user_scram_credentials()


def _settle_acls(target: Target, admin: Any, principal: str, count: int) -> None:
    """Wait until the listener's authorizer holds ``count`` ACLs of ``principal`` (at once on
    aclog; a real broker's authorizer follows its metadata log a moment after the commit)."""

    def held() -> int:
        return len(admin.describe_acls(kp_filter(principal))[0])

    assert settled(target, held, count) == count


INVENTORY = {"orders", "payments.eu", "payments.us", "audit"}
"""The topics both backends hold for these tests (tests.wire.conftest.TOPICS, KAFKA_TOPICS)."""


def _names(topics: list[dict[str, Any]]) -> set[str]:
    return {t["name"] for t in topics}


def test_cluster_and_topics_with_authorized_operations(
    topic_targets: tuple[Target, Target],
) -> None:
    plain_server, sasl_server = topic_targets
    all_topic_ops = {
        "READ",
        "WRITE",
        "CREATE",
        "DELETE",
        "ALTER",
        "DESCRIBE",
        "DESCRIBE_CONFIGS",
        "ALTER_CONFIGS",
    }
    all_cluster_ops = {
        "CREATE",
        "ALTER",
        "DESCRIBE",
        "CLUSTER_ACTION",
        "DESCRIBE_CONFIGS",
        "ALTER_CONFIGS",
        "IDEMPOTENT_WRITE",
    }
    # A super user may do everything.
    with kafka_python(plain_server) as kp:
        cluster = kp.describe_cluster()
        assert set(cluster["authorized_operations"]) == all_cluster_ops
        assert cluster["brokers"][0]["port"] == plain_server.port
        # (a shared real broker also holds topics other tests made; none of them is named so)
        topics = [t for t in kp.describe_topics() if t["name"] in INVENTORY]
        assert _names(topics) == INVENTORY
        orders = next(t for t in topics if t["name"] == "orders")
        assert len(orders["partitions"]) == 3
        assert set(orders["authorized_operations"]) == all_topic_ops

    # A reader with DESCRIBE on the cluster and READ on `orders` and on `payments.` (prefix),
    # but DENY on payments.us.
    _make_user(sasl_server, "reader", "r-pass")
    with kafka_python(sasl_server, ADMIN, ADMIN_PASSWORD) as admin:
        admin.create_acls(
            [
                kp_acl(
                    "User:reader",
                    ResourceType.CLUSTER,
                    "kafka-cluster",
                    operation=ACLOperation.DESCRIBE,
                ),
                kp_acl("User:reader", ResourceType.TOPIC, "orders"),
                kp_acl(
                    "User:reader",
                    ResourceType.TOPIC,
                    "payments.",
                    ACLResourcePatternType.PREFIXED,
                    ACLOperation.ALL,
                ),
                kp_acl(
                    "User:reader",
                    ResourceType.TOPIC,
                    "payments.us",
                    operation=ACLOperation.ALL,
                    permission=ACLPermissionType.DENY,
                ),
            ]
        )
        _settle_acls(sasl_server, admin, "User:reader", 4)
    with kafka_python(sasl_server, "reader", "r-pass") as kp:
        assert kp.describe_cluster()["authorized_operations"] == ["DESCRIBE"]
        topics = [t for t in kp.describe_topics() if t["name"] in INVENTORY]
        assert _names(topics) == {"orders", "payments.eu"}
        by_name = {t["name"]: t for t in topics}
        assert set(by_name["orders"]["authorized_operations"]) == {"READ", "DESCRIBE"}
        assert set(by_name["payments.eu"]["authorized_operations"]) == all_topic_ops

    ck = confluent(sasl_server, "reader", "r-pass")
    cluster = ck.describe_cluster(include_authorized_operations=True).result(timeout=10)
    assert [op.name for op in cluster.authorized_operations] == ["DESCRIBE"]
    assert cluster.controller.id == 1 and len(cluster.nodes) == 1
    futures = ck.describe_topics(
        TopicCollection(["orders", "payments.us", "missing"]), include_authorized_operations=True
    )
    orders = futures["orders"].result(timeout=10)
    assert len(orders.partitions) == 3
    assert {op.name for op in orders.authorized_operations} == {"READ", "DESCRIBE"}
    for name, code in (
        ("payments.us", KafkaError.TOPIC_AUTHORIZATION_FAILED),
        ("missing", KafkaError.TOPIC_AUTHORIZATION_FAILED),  # not authorized comes first
    ):
        with pytest.raises(KafkaException) as raised:
            futures[name].result(timeout=10)
        assert raised.value.args[0].code() == code

    admin_ck = confluent(plain_server)
    missing = admin_ck.describe_topics(TopicCollection(["missing"]))["missing"]
    with pytest.raises(KafkaException) as raised:
        missing.result(timeout=10)
    assert raised.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART
