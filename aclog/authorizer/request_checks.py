"""What a request to the authorizer must name: a resource type and an operation that are not
ANY (those are only for filters), and for ``authorizeByResourceType`` not UNKNOWN either; and an
authorizer that has finished its initial load.

Pure; thread-safe. Each check is O(1).
"""

from __future__ import annotations

from aclog.authorizer.results import AuthorizerNotReadyError
from aclog.records.enums import AclOperation, ResourceType

_NOT_A_TYPE = (ResourceType.ANY, ResourceType.UNKNOWN)
_NOT_AN_OPERATION = (AclOperation.ANY, AclOperation.UNKNOWN)


def check_resource_type(resource_type: ResourceType) -> None:
    """``ValueError`` for resource type ANY."""
    if resource_type == ResourceType.ANY:
        raise ValueError("a resource to authorize needs a resource type; ANY is only for filters")


def check_request(operation: AclOperation, resource_type: ResourceType) -> None:
    """``ValueError`` for resource type or operation ANY."""
    check_resource_type(resource_type)
    if operation == AclOperation.ANY:
        raise ValueError("a request needs an operation; ANY is only for filters")


def check_by_type_request(operation: AclOperation, resource_type: ResourceType) -> None:
    """``ValueError`` for a resource type or operation that is ANY or UNKNOWN."""
    if resource_type in _NOT_A_TYPE or operation in _NOT_AN_OPERATION:
        raise ValueError(
            f"authorize_by_resource_type needs a known resource type and operation, "
            f"not {resource_type.name} and {operation.name}"
        )


def check_ready(ready: bool) -> None:
    """:class:`AuthorizerNotReadyError` unless the initial load is complete."""
    if not ready:
        raise AuthorizerNotReadyError(
            "the authorizer has not finished loading the ACLs; only super users are "
            "authorized until the initial load completes"
        )
