"""Cluster-level access to the admin APIs."""

from __future__ import annotations

from aclog.acl import ApiError, Errors
from aclog.controller import ClusterAuthorizer, check_cluster_access
from aclog.records.enums import AclOperation


class OnlyAdmin:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, AclOperation]] = []

    def authorize_cluster(self, principal: str, host: str, operation: AclOperation) -> bool:
        self.calls.append((principal, host, operation))
        return principal == "User:admin"


def test_no_authorizer_disables_acl_apis_only() -> None:
    for operation in (AclOperation.ALTER, AclOperation.DESCRIBE):
        error = check_cluster_access(None, "User:x", "1.2.3.4", operation, acl_api=True)
        assert error == ApiError(Errors.SECURITY_DISABLED, "No Authorizer is configured.")
        assert check_cluster_access(None, "User:x", "1.2.3.4", operation, acl_api=False) is None


def test_authorizer_decides_with_the_requested_operation() -> None:
    authorizer = OnlyAdmin()
    checker: ClusterAuthorizer = authorizer
    assert (
        check_cluster_access(checker, "User:admin", "::1", AclOperation.ALTER, acl_api=True) is None
    )
    denied = check_cluster_access(checker, "User:eve", "::1", AclOperation.DESCRIBE, acl_api=False)
    assert denied == ApiError(Errors.CLUSTER_AUTHORIZATION_FAILED, None)
    assert authorizer.calls == [
        ("User:admin", "::1", AclOperation.ALTER),
        ("User:eve", "::1", AclOperation.DESCRIBE),
    ]


def test_api_error_helpers() -> None:
    assert ApiError.of(Errors.UNKNOWN_SERVER_ERROR, "internal detail") == ApiError(
        Errors.UNKNOWN_SERVER_ERROR, None
    )
    assert ApiError.of(Errors.INVALID_REQUEST, "why") == ApiError(Errors.INVALID_REQUEST, "why")
    assert ApiError.NONE.is_success and ApiError.NONE.code == 0
    assert ApiError(Errors.DUPLICATE_RESOURCE, "m").to_dict() == {
        "error": "DUPLICATE_RESOURCE",
        "code": 92,
        "message": "m",
    }
    assert [e.value for e in Errors] == [
        -1,
        0,
        3,
        29,
        31,
        33,
        34,
        35,
        41,
        42,
        54,
        56,
        58,
        91,
        92,
        93,
        100,
        114,
        115,
    ]
