"""ACLs through the listener with both admin clients: create, describe (every filter kind,
MATCH and GLOB included), delete. Each test uses its own principal, so tests sharing the
session server do not see each other's ACLs."""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AclBinding, AclBindingFilter
from confluent_kafka.admin import AclOperation as CkOp
from confluent_kafka.admin import AclPermissionType as CkPerm
from confluent_kafka.admin import ResourcePatternType as CkPattern
from confluent_kafka.admin import ResourceType as CkType
from kafka.admin import (
    ACL,
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
)
from kafka.errors import InvalidRequestError
from kafka.protocol.admin import (
    CreateAclsRequest,
    CreateAclsResponse,
    DeleteAclsRequest,
    DeleteAclsResponse,
    DescribeAclsRequest,
    DescribeAclsResponse,
)

from tests.real_kafka import KafkaBroker, KafkaTarget
from tests.wire.clients import Target, confluent, kafka_python, settled
from tests.wire.harness import RawClient, ServerProcess

GLOB = 5
Row = tuple[int, str, int, str, str, int, int]


def kp_acl(
    principal: str,
    resource_type: ResourceType,
    name: str,
    pattern: Any = ACLResourcePatternType.LITERAL,
    operation: ACLOperation = ACLOperation.READ,
    permission: ACLPermissionType = ACLPermissionType.ALLOW,
    host: str = "*",
) -> ACL:
    return ACL(
        principal, host, operation, permission, ResourcePattern(resource_type, name, pattern)
    )


def kp_filter(
    principal: str | None,
    resource_type: ResourceType = ResourceType.ANY,
    name: str | None = None,
    pattern: ACLResourcePatternType = ACLResourcePatternType.ANY,
    operation: ACLOperation = ACLOperation.ANY,
    permission: ACLPermissionType = ACLPermissionType.ANY,
    host: str | None = None,
) -> ACLFilter:
    return ACLFilter(
        principal, host, operation, permission, ResourcePatternFilter(resource_type, name, pattern)
    )


def kp_rows(acls: list[ACL]) -> set[Row]:
    return {
        (
            int(a.resource_pattern.resource_type),
            a.resource_pattern.resource_name,
            int(a.resource_pattern.pattern_type),
            a.principal,
            a.host,
            int(a.operation),
            int(a.permission_type),
        )
        for a in acls
    }


def ck_rows(bindings: list[AclBinding]) -> set[Row]:
    return {
        (
            b.restype.value,
            b.name,
            b.resource_pattern_type.value,
            b.principal,
            b.host,
            b.operation.value,
            b.permission_type.value,
        )
        for b in bindings
    }


def raw_rows(response: Any) -> set[Row]:
    return {
        (
            r.resource_type,
            r.resource_name,
            r.pattern_type,
            a.principal,
            a.host,
            a.operation,
            a.permission_type,
        )
        for r in response.resources
        for a in r.acls
    }


TOPIC, GROUP, CLUSTER, USER = 2, 3, 4, 7
LITERAL, PREFIXED = 3, 4
READ, WRITE, ALTER, DESCRIBE, CREATE_TOKENS = 3, 4, 7, 8, 13
ALLOW, DENY = 3, 2


def test_kafka_python_create_describe_delete(acl_target: Target) -> None:
    p = "User:kp-acls"
    acls = [
        kp_acl(p, ResourceType.TOPIC, "orders"),
        kp_acl(p, ResourceType.TOPIC, "pay", ACLResourcePatternType.PREFIXED, ACLOperation.WRITE),
        kp_acl(p, ResourceType.GROUP, "billing"),
        kp_acl(p, ResourceType.CLUSTER, "kafka-cluster", operation=ACLOperation.DESCRIBE),
        kp_acl(p, ResourceType.USER, "User:bob", operation=ACLOperation.CREATE_TOKENS),
        kp_acl(
            p,
            ResourceType.TOPIC,
            "*",
            operation=ACLOperation.DESCRIBE,
            permission=ACLPermissionType.DENY,
            host="10.0.0.1",
        ),
    ]
    with kafka_python(acl_target) as admin:
        created = admin.create_acls(acls)
        assert created["failed"] == [] and len(created["succeeded"]) == len(acls)
        bad = admin.create_acls([kp_acl(p, ResourceType.CLUSTER, "other-cluster")])
        assert bad["failed"] == [InvalidRequestError]

        def describe(**kw: Any) -> set[Row]:
            found, error = admin.describe_acls(kp_filter(p, **kw))
            assert error.errno == 0
            return kp_rows(found)

        everything = settled(acl_target, describe, kp_rows(acls))
        assert everything == kp_rows(acls)
        orders = (TOPIC, "orders", LITERAL, p, "*", READ, ALLOW)
        pay = (TOPIC, "pay", PREFIXED, p, "*", WRITE, ALLOW)
        star = (TOPIC, "*", LITERAL, p, "10.0.0.1", DESCRIBE, DENY)
        assert describe(resource_type=ResourceType.TOPIC) == {orders, pay, star}
        assert describe(
            resource_type=ResourceType.TOPIC, name="orders", pattern=ACLResourcePatternType.LITERAL
        ) == {orders}
        assert describe(
            resource_type=ResourceType.TOPIC, name="pay", pattern=ACLResourcePatternType.PREFIXED
        ) == {pay}
        assert describe(name="orders", pattern=ACLResourcePatternType.ANY) == {orders}
        assert describe(
            resource_type=ResourceType.TOPIC, name="orders", pattern=ACLResourcePatternType.MATCH
        ) == {orders, star}
        assert describe(
            resource_type=ResourceType.TOPIC, name="payments", pattern=ACLResourcePatternType.MATCH
        ) == {pay, star}
        assert describe(operation=ACLOperation.WRITE) == {pay}
        assert describe(permission=ACLPermissionType.DENY) == {star}
        assert describe(host="10.0.0.1") == {star}
        assert describe(resource_type=ResourceType.USER) == {
            (USER, "User:bob", LITERAL, p, "*", CREATE_TOKENS, ALLOW)
        }
        assert describe(resource_type=ResourceType.CLUSTER) == {
            (CLUSTER, "kafka-cluster", LITERAL, p, "*", DESCRIBE, ALLOW)
        }
        assert describe(name="nothing-here", pattern=ACLResourcePatternType.MATCH) == {star}

        [(_, matched, error)] = admin.delete_acls(
            [kp_filter(p, ResourceType.TOPIC, "orders", ACLResourcePatternType.MATCH)]
        )
        assert error.errno == 0 and kp_rows(matched) == {orders, star}
        assert settled(acl_target, describe, everything - {orders, star}) == everything - {
            orders,
            star,
        }
        results = admin.delete_acls([kp_filter(p), kp_filter(p)])
        assert [kp_rows(m) for _, m, _ in results] == [everything - {orders, star}] * 2
        assert settled(acl_target, describe, set()) == set()


def test_confluent_create_describe_delete(acl_target: Target) -> None:
    p = "User:ck-acls"
    bindings = [
        AclBinding(CkType.TOPIC, "orders", CkPattern.LITERAL, p, "*", CkOp.READ, CkPerm.ALLOW),
        AclBinding(CkType.TOPIC, "pay", CkPattern.PREFIXED, p, "*", CkOp.WRITE, CkPerm.ALLOW),
        AclBinding(CkType.GROUP, "billing", CkPattern.LITERAL, p, "*", CkOp.READ, CkPerm.DENY),
        AclBinding(
            CkType.BROKER, "kafka-cluster", CkPattern.LITERAL, p, "*", CkOp.ALTER, CkPerm.ALLOW
        ),
    ]
    admin = confluent(acl_target)
    for future in admin.create_acls(bindings, request_timeout=10).values():
        assert future.result() is None
    bad = AclBinding(CkType.TOPIC, "", CkPattern.LITERAL, p, "*", CkOp.READ, CkPerm.ALLOW)
    [failure] = admin.create_acls([bad], request_timeout=10).values()
    with pytest.raises(KafkaException) as raised:
        failure.result()
    assert raised.value.args[0].code() == KafkaError.INVALID_REQUEST

    def describe(
        restype: CkType = CkType.ANY,
        name: str | None = None,
        pattern: CkPattern = CkPattern.ANY,
        op: CkOp = CkOp.ANY,
        perm: CkPerm = CkPerm.ANY,
    ) -> set[Row]:
        found = admin.describe_acls(AclBindingFilter(restype, name, pattern, p, None, op, perm))
        return ck_rows(found.result(timeout=10))

    everything = settled(acl_target, describe, ck_rows(bindings))
    assert everything == ck_rows(bindings)
    assert describe(CkType.TOPIC, "payments.eu", CkPattern.MATCH) == {
        (TOPIC, "pay", PREFIXED, p, "*", WRITE, ALLOW)
    }
    assert describe(CkType.TOPIC, "orders", CkPattern.LITERAL) == {
        (TOPIC, "orders", LITERAL, p, "*", READ, ALLOW)
    }
    assert describe(perm=CkPerm.DENY) == {(GROUP, "billing", LITERAL, p, "*", READ, DENY)}
    assert describe(CkType.BROKER) == {(CLUSTER, "kafka-cluster", LITERAL, p, "*", ALTER, ALLOW)}

    # What confluent created, kafka-python sees, and the other way round.
    with kafka_python(acl_target) as kp:
        found, _ = kp.describe_acls(kp_filter(p))
        assert kp_rows(found) == everything
        kp.create_acls([kp_acl(p, ResourceType.TOPIC, "from-kp")])
    from_kp = (TOPIC, "from-kp", LITERAL, p, "*", READ, ALLOW)
    assert settled(acl_target, describe, everything | {from_kp}) == everything | {from_kp}

    [deleted] = admin.delete_acls(
        [AclBindingFilter(CkType.TOPIC, None, CkPattern.ANY, p, None, CkOp.ANY, CkPerm.ANY)],
        request_timeout=10,
    ).values()
    assert {row[1] for row in ck_rows(deleted.result())} == {"orders", "pay", "from-kp"}
    rest = {row for row in everything if row[1] in {"billing", "kafka-cluster"}}
    assert settled(acl_target, describe, rest) == rest


def test_glob_acls_travel_as_pattern_type_5(plain_server: ServerProcess) -> None:
    """Deliberate difference (GLOB, KIP-1042): aclog only; Kafka 4.0 refuses pattern type 5."""
    p = "User:glob-acls"
    with kafka_python(plain_server) as kp:
        # kafka-python's ACLResourcePatternType has no GLOB, but ResourcePattern takes an int.
        created = kp.create_acls([kp_acl(p, ResourceType.TOPIC, "sales-*-eu", GLOB)])
        assert created["failed"] == []
        invalid = kp.create_acls([kp_acl(p, ResourceType.CLUSTER, "kafka-cluster", GLOB)])
        assert invalid["failed"] == [InvalidRequestError]
        kp.create_acls([kp_acl(p, ResourceType.TOPIC, "sales-", ACLResourcePatternType.PREFIXED)])
    glob_row = (TOPIC, "sales-*-eu", GLOB, p, "*", READ, ALLOW)
    prefix_row = (TOPIC, "sales-", PREFIXED, p, "*", READ, ALLOW)

    def raw_describe(name: str | None, pattern: int) -> set[Row]:
        with RawClient(plain_server.host, plain_server.port) as raw:
            request = DescribeAclsRequest(
                version=3,
                resource_type_filter=TOPIC,
                resource_name_filter=name,
                pattern_type_filter=pattern,
                principal_filter=p,
                host_filter=None,
                operation=1,
                permission_type=1,
            )
            response = raw.request(request, DescribeAclsResponse)
        assert response.error_code == 0
        return raw_rows(response)

    assert raw_describe("sales-*-eu", GLOB) == {glob_row}
    assert raw_describe("sales-x-eu", GLOB) == set()  # a GLOB filter names a pattern exactly
    assert raw_describe("sales-x-eu", 2) == {glob_row, prefix_row}  # MATCH applies the glob
    assert raw_describe("sales-x-us", 2) == {prefix_row}
    assert raw_describe(None, 1) == {glob_row, prefix_row}

    # librdkafka has no GLOB either: it shows pattern type UNKNOWN, but gets the ACL.
    admin = confluent(plain_server)
    match = AclBindingFilter(
        CkType.TOPIC, "sales-x-eu", CkPattern.MATCH, p, None, CkOp.ANY, CkPerm.ANY
    )
    found = admin.describe_acls(match).result(timeout=10)
    assert {(b.name, b.resource_pattern_type) for b in found} == {
        ("sales-*-eu", CkPattern.UNKNOWN),
        ("sales-", CkPattern.PREFIXED),
    }

    with RawClient(plain_server.host, plain_server.port) as raw:
        request = DeleteAclsRequest(
            version=3,
            filters=[
                DeleteAclsRequest.DeleteAclsFilter(
                    resource_type_filter=TOPIC,
                    resource_name_filter="sales-*-eu",
                    pattern_type_filter=GLOB,
                    principal_filter=None,
                    host_filter=None,
                    operation=1,
                    permission_type=1,
                )
            ],
        )
        response = raw.request(request, DeleteAclsResponse)
    [result] = response.filter_results
    assert result.error_code == 0
    assert [(m.resource_name, m.pattern_type) for m in result.matching_acls] == [
        ("sales-*-eu", GLOB)
    ]
    assert raw_describe(None, 1) == {prefix_row}


def test_kafka_refuses_glob_acls_with_invalid_request(kafka_broker: KafkaBroker) -> None:
    """The other side of the GLOB difference: a real Kafka 4.0 broker answers a pattern type 5
    creation with INVALID_REQUEST and stores nothing, which is why plans check the target."""
    p = "User:glob-on-kafka"
    with kafka_python(KafkaTarget(kafka_broker)) as kp:
        created = kp.create_acls([kp_acl(p, ResourceType.TOPIC, "sales-*-eu", GLOB)])
        assert created["failed"] == [InvalidRequestError]
        found, error = kp.describe_acls(kp_filter(p))
        assert error.errno == 0 and found == []


def test_create_acls_request_wide_failures(acl_target: Target) -> None:
    """Kafka's stage 2: a creation that cannot be built (MATCH/ANY) fails every creation with
    UNKNOWN_SERVER_ERROR and creates nothing; stage 3/4 errors are per creation. (A success
    carries no message: Kafka 4.0 sends '', aclog null; both clients read either as none.)"""
    p = "User:stages"
    creation = CreateAclsRequest.AclCreation

    def make(name: str, pattern: int, resource_type: int = TOPIC) -> Any:
        return creation(
            resource_type=resource_type,
            resource_name=name,
            resource_pattern_type=pattern,
            principal=p,
            host="*",
            operation=READ,
            permission_type=ALLOW,
        )

    with RawClient(acl_target.host, acl_target.port) as raw:
        response = raw.request(
            CreateAclsRequest(version=2, creations=[make("ok", LITERAL), make("m", 2)]),
            CreateAclsResponse,
        )
        results = [(r.error_code, r.error_message or None) for r in response.results]
        assert results == [(-1, None)] * 2
        response = raw.request(
            CreateAclsRequest(
                version=2,
                creations=[make("ok", LITERAL), make("x", LITERAL, CLUSTER), make("", LITERAL)],
            ),
            CreateAclsResponse,
        )
        codes = [(r.error_code, r.error_message or None) for r in response.results]
        assert codes == [
            (0, None),
            (42, "The only valid name for the CLUSTER resource is kafka-cluster"),
            (42, "Invalid empty resource name"),
        ]

        def names() -> set[str]:
            request = DescribeAclsRequest(
                version=2,
                resource_type_filter=1,
                resource_name_filter=None,
                pattern_type_filter=1,
                principal_filter=p,
                host_filter=None,
                operation=1,
                permission_type=1,
            )
            return {row[1] for row in raw_rows(raw.request(request, DescribeAclsResponse))}

        assert settled(acl_target, names, {"ok"}) == {"ok"}
