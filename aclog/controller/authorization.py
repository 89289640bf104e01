"""Who may call the admin APIs: ALTER on the CLUSTER resource to change ACLs or SCRAM
credentials, DESCRIBE on it to describe them (``reference/kafka-acl-spec.md`` §3, §10).

Thread-safe; no state.
"""

from __future__ import annotations

from typing import Protocol

from aclog.acl import ApiError, Errors
from aclog.records.enums import AclOperation


class ClusterAuthorizer(Protocol):
    """Anything that can answer "may this caller do this operation on the CLUSTER resource?"."""

    def authorize_cluster(self, principal: str, host: str, operation: AclOperation) -> bool: ...


SECURITY_DISABLED = ApiError(Errors.SECURITY_DISABLED, "No Authorizer is configured.")
CLUSTER_AUTHORIZATION_FAILED = ApiError(Errors.CLUSTER_AUTHORIZATION_FAILED, None)


def check_cluster_access(
    authorizer: ClusterAuthorizer | None,
    principal: str,
    host: str,
    operation: AclOperation,
    *,
    acl_api: bool,
) -> ApiError | None:
    """``None`` when the request may proceed, else the error for every item of it.

    With no authorizer configured, Kafka lets everyone through, but the ACL APIs (CreateAcls,
    DeleteAcls, DescribeAcls: ``acl_api=True``) answer SECURITY_DISABLED; SCRAM APIs proceed.
    With one, a denied caller gets CLUSTER_AUTHORIZATION_FAILED (sent without a message, as the
    text would equal Kafka's default).
    """
    if authorizer is None:
        return SECURITY_DISABLED if acl_api else None
    if authorizer.authorize_cluster(principal, host, operation):
        return None
    return CLUSTER_AUTHORIZATION_FAILED
