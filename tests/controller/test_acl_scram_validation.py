"""The validation rules one by one: Kafka's order and messages, then aclog's own rules."""

from __future__ import annotations

import dataclasses

import pytest

from aclog.acl import ApiError, Errors
from aclog.acl.filters import AclFilter
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.validation import (
    conversion_error,
    creation_error,
    filter_error,
    host_error,
    principal_error,
    scram_deletion_error,
    scram_upsertion_error,
)
from aclog.image import ScramCredential, ScramImage
from aclog.records.enums import (
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.records.types import AclBinding

OK = AclBinding(
    ResourceType.TOPIC,
    "orders",
    PatternType.LITERAL,
    "User:alice",
    "*",
    AclOperation.READ,
    AclPermissionType.ALLOW,
)


def b(**changes: object) -> AclBinding:
    return dataclasses.replace(OK, **changes)  # type: ignore[arg-type]


def invalid(message: str) -> ApiError:
    return ApiError(Errors.INVALID_REQUEST, message)


CLUSTER_MSG = "The only valid name for the CLUSTER resource is kafka-cluster"

KAFKA_CASES = [
    # stage 3, in order: CLUSTER name first, then empty name
    (b(resource_type=ResourceType.CLUSTER, resource_name="*"), CLUSTER_MSG),
    (b(resource_type=ResourceType.CLUSTER, resource_name="kafka"), CLUSTER_MSG),
    (b(resource_type=ResourceType.CLUSTER, resource_name=""), CLUSTER_MSG),
    (
        b(
            resource_type=ResourceType.CLUSTER,
            resource_name="kafka",
            pattern_type=PatternType.PREFIXED,
        ),
        CLUSTER_MSG,
    ),
    (b(resource_name=""), "Invalid empty resource name"),
    (b(resource_name="", resource_type=ResourceType.UNKNOWN), "Invalid empty resource name"),
    # stage 4, in order
    (b(resource_type=ResourceType.UNKNOWN), "Invalid resourceType UNKNOWN"),
    (b(resource_type=ResourceType.ANY), "Invalid resourceType ANY"),
    (
        b(resource_type=ResourceType.ANY, operation=AclOperation.UNKNOWN),
        "Invalid resourceType ANY",
    ),
    (b(pattern_type=PatternType.UNKNOWN), "Invalid patternType UNKNOWN"),
    (b(pattern_type=PatternType.ANY), "Invalid patternType ANY"),
    (b(pattern_type=PatternType.MATCH), "Invalid patternType MATCH"),
    (
        b(pattern_type=PatternType.MATCH, operation=AclOperation.ANY),
        "Invalid patternType MATCH",
    ),
    (b(operation=AclOperation.UNKNOWN), "Invalid operation UNKNOWN"),
    (b(operation=AclOperation.ANY), "Invalid operation ANY"),
    (
        b(operation=AclOperation.ANY, permission_type=AclPermissionType.ANY),
        "Invalid operation ANY",
    ),
    (b(permission_type=AclPermissionType.UNKNOWN), "Invalid permissionType UNKNOWN"),
    (b(permission_type=AclPermissionType.ANY), "Invalid permissionType ANY"),
]


@pytest.mark.parametrize(("binding", "message"), KAFKA_CASES)
def test_kafka_rules_in_order(binding: AclBinding, message: str) -> None:
    assert creation_error(binding) == invalid(message)


@pytest.mark.parametrize(
    "binding",
    [
        OK,
        b(resource_type=ResourceType.CLUSTER, resource_name="kafka-cluster"),
        b(
            resource_type=ResourceType.CLUSTER,
            resource_name="kafka-cluster",
            pattern_type=PatternType.PREFIXED,
        ),
        b(pattern_type=PatternType.PREFIXED, resource_name="*"),
        b(resource_name="*"),
        b(principal="User:*"),
        b(principal="User:a:b"),
        b(principal="Group:devs", permission_type=AclPermissionType.DENY),
        b(resource_type=ResourceType.USER, operation=AclOperation.READ),
        b(resource_type=ResourceType.DELEGATION_TOKEN, operation=AclOperation.DESCRIBE),
        b(resource_name=" spaced name "),
        b(host="10.0.0.1"),
        b(host="::1"),
        b(host="0:0:0:0:0:0:0:1"),
        b(host="fe80::1%eth0"),
    ],
)
def test_valid_bindings(binding: AclBinding) -> None:
    assert creation_error(binding) is None


@pytest.mark.parametrize("resource_type", [t for t in ResourceType if t.value >= 2])
def test_glob_allowed_for_every_resource_type_but_cluster(resource_type: ResourceType) -> None:
    name = "kafka-cluster" if resource_type == ResourceType.CLUSTER else "team-*"
    error = creation_error(
        b(resource_type=resource_type, resource_name=name, pattern_type=PatternType.GLOB)
    )
    if resource_type == ResourceType.CLUSTER:
        assert error is not None and error.error == Errors.INVALID_REQUEST
        assert error.message is not None and "GLOB" in error.message
        assert "CLUSTER" in error.message
    else:
        assert error is None


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("abc\\", "lone '\\'"),
        ("a\\\\\\", "lone '\\'"),
        ("x" * 1001, "limit is 1000"),
    ],
)
def test_invalid_glob_resource_names(name: str, fragment: str) -> None:
    error = creation_error(b(pattern_type=PatternType.GLOB, resource_name=name))
    assert error is not None and error.error == Errors.INVALID_REQUEST
    assert error.message is not None and fragment in error.message


def test_glob_edge_cases_that_are_valid() -> None:
    assert creation_error(b(pattern_type=PatternType.GLOB, resource_name="x" * 1000)) is None
    assert creation_error(b(pattern_type=PatternType.GLOB, resource_name="a\\\\")) is None
    assert creation_error(b(pattern_type=PatternType.GLOB, resource_name="\\*")) is None
    # In LITERAL and PREFIXED ACLs a trailing backslash is just a character.
    assert creation_error(b(resource_name="abc\\")) is None


def test_empty_glob_name_fails_kafka_precheck_first() -> None:
    assert creation_error(b(pattern_type=PatternType.GLOB, resource_name="")) == invalid(
        "Invalid empty resource name"
    )


@pytest.mark.parametrize("principal", ["alice", ":x", "User:", ":", "", "User"])
def test_principal_must_be_type_colon_name(principal: str) -> None:
    error = creation_error(b(principal=principal))
    assert error is not None and error.error == Errors.INVALID_REQUEST
    assert error.message is not None
    assert "Type:name" in error.message and repr(principal) in error.message


def test_glob_principal_must_be_a_valid_glob() -> None:
    assert creation_error(b(pattern_type=PatternType.GLOB, principal="User:svc-*")) is None
    error = creation_error(b(pattern_type=PatternType.GLOB, principal="User:svc\\"))
    assert error is not None and error.message is not None
    assert error.message.startswith("Invalid principal:")
    assert principal_error("User:svc\\") is None  # a plain character outside GLOB ACLs
    glob_error = principal_error("svc-*", glob=True)
    assert glob_error is not None and glob_error.message is not None
    assert "Type:name" in glob_error.message


@pytest.mark.parametrize("host", ["", "localhost", "10.0.0.*", "10.0.0.0/8", "bad host", " *"])
def test_host_must_be_star_or_ip(host: str) -> None:
    error = creation_error(b(host=host))
    assert error is not None and error.error == Errors.INVALID_REQUEST
    assert error.message is not None
    assert error.message.startswith(f"Invalid host {host!r}: expected * or an IP address")


@pytest.mark.parametrize("host", ["*", "10.1.?.*", "10.*", "fe80::*", "::1", "1.2.3.4", "?"])
def test_glob_acl_hosts(host: str) -> None:
    assert creation_error(b(pattern_type=PatternType.GLOB, host=host)) is None


@pytest.mark.parametrize("host", ["", "host-*", "10.0.0.0/8", "10.\\*", "*" * 1001])
def test_invalid_glob_acl_hosts(host: str) -> None:
    error = host_error(host, glob=True)
    assert error is not None and error.error == Errors.INVALID_REQUEST
    assert error.message is not None and error.message.startswith("Invalid host")


def test_aclog_rules_run_after_kafka_rules() -> None:
    binding = b(operation=AclOperation.ANY, principal="alice", host="nowhere")
    assert creation_error(binding) == invalid("Invalid operation ANY")
    assert creation_error(b(principal="alice", host="nowhere")) is not None
    error = creation_error(b(principal="alice", host="nowhere"))
    assert error is not None and error.message is not None
    assert error.message.startswith("Invalid principal")


def test_conversion_errors_for_the_wire_layer() -> None:
    assert conversion_error(OK) is None
    assert conversion_error(b(resource_type=ResourceType.ANY)) == "resourceType must not be ANY"
    assert conversion_error(b(pattern_type=PatternType.MATCH)) == "patternType must not be MATCH"
    assert conversion_error(b(pattern_type=PatternType.ANY)) == "patternType must not be ANY"
    assert conversion_error(b(operation=AclOperation.ANY)) == "operation must not be ANY"
    assert (
        conversion_error(b(permission_type=AclPermissionType.ANY))
        == "permissionType must not be ANY"
    )
    # UNKNOWN values pass the constructors and are caught by the controller instead.
    assert conversion_error(b(resource_type=ResourceType.UNKNOWN)) is None


@pytest.mark.parametrize(
    ("acl_filter", "message"),
    [
        (AclFilter(resource_type=ResourceType.UNKNOWN), "Unknown patternFilter."),
        (AclFilter(pattern_type=PatternType.UNKNOWN), "Unknown patternFilter."),
        (
            AclFilter(pattern_type=PatternType.UNKNOWN, operation=AclOperation.UNKNOWN),
            "Unknown patternFilter.",
        ),
        (AclFilter(operation=AclOperation.UNKNOWN), "Unknown entryFilter."),
        (AclFilter(permission_type=AclPermissionType.UNKNOWN), "Unknown entryFilter."),
    ],
)
def test_filter_errors(acl_filter: AclFilter, message: str) -> None:
    assert filter_error(acl_filter) == invalid(message)


def test_valid_filters() -> None:
    assert filter_error(AclFilter()) is None
    assert filter_error(AclFilter(pattern_type=PatternType.MATCH, resource_name="x")) is None
    assert filter_error(AclFilter(pattern_type=PatternType.GLOB, resource_name="x*")) is None


SHA256 = ScramMechanism.SCRAM_SHA_256
SHA512 = ScramMechanism.SCRAM_SHA_512
UP = ScramUpsertion("alice", SHA256, 4096, b"salt", b"salted")


def up(**changes: object) -> ScramUpsertion:
    return dataclasses.replace(UP, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("upsertion", "error", "message"),
    [
        (up(name=""), Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"),
        (up(name="", mechanism=ScramMechanism.UNKNOWN), 93, "Username must not be empty"),
        (up(mechanism=ScramMechanism.UNKNOWN), 33, "Unknown SCRAM mechanism"),
        (up(mechanism=ScramMechanism.UNKNOWN, iterations=1), 33, "Unknown SCRAM mechanism"),
        (up(iterations=4095), 93, "Too few iterations"),
        (up(iterations=0), 93, "Too few iterations"),
        (up(iterations=16385), 93, "Too many iterations"),
        (up(iterations=1, salt=b""), 93, "Too few iterations"),
        (up(salt=b""), 93, "Salt must not be empty"),
        (up(salted_password=b""), 93, "Salted password must not be empty"),
    ],
)
def test_upsertion_rules_in_order(upsertion: ScramUpsertion, error: int, message: str) -> None:
    assert scram_upsertion_error(upsertion) == ApiError(Errors(error), message)


@pytest.mark.parametrize(
    "upsertion",
    [UP, up(iterations=16384), up(mechanism=SHA512), up(name="a,b= ü"), up(salt=b"\x00")],
)
def test_valid_upsertions(upsertion: ScramUpsertion) -> None:
    assert scram_upsertion_error(upsertion) is None


def test_deletion_rules() -> None:
    image = ScramImage({"alice": {SHA256: ScramCredential(b"s", b"k", b"v", 4096)}})
    assert scram_deletion_error(image, ScramDeletion("alice", SHA256)) is None
    assert scram_deletion_error(image, ScramDeletion("alice", SHA512)) == ApiError(
        Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"
    )
    assert scram_deletion_error(image, ScramDeletion("bob", SHA256)) == ApiError(
        Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"
    )
    assert scram_deletion_error(image, ScramDeletion("", SHA256)) == ApiError(
        Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"
    )
    assert scram_deletion_error(image, ScramDeletion("alice", ScramMechanism.UNKNOWN)) == (
        ApiError(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")
    )
