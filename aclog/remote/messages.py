"""Kafka admin messages read and written field by field for :class:`~aclog.remote.RemoteAdmin`:
errors with Kafka's own code, name and message kept (:func:`api_error`), ACL filters as request
fields, ACL entries of a response as records, and the lowest request version that carries
what is asked (GLOB is pattern type 5, KIP-1042; the USER resource needs v3).

Stateless; thread-safe. Cost: O(fields).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import kafka.errors as kafka_errors

from aclog.acl import ApiError, Errors
from aclog.acl.filters import AclFilter
from aclog.image.scram import CredentialInfo, ScramDescribeResult
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.remote.basics import REMOTE_ACL_ID, RemoteError


class UnsupportedRemotely(ValueError):
    """An operation Kafka's admin API cannot express (a dry run of CreateAcls)."""


@dataclass(frozen=True, slots=True)
class RemoteApiError(ApiError):
    """A Kafka error code aclog's :class:`~aclog.image.Errors` does not know (a real broker
    can send any): ``error`` is UNKNOWN_SERVER_ERROR, the code and name are Kafka's."""

    kafka_code: int = -1
    kafka_name: str = "UNKNOWN"

    @property
    def code(self) -> int:
        return self.kafka_code


def api_error(code: int, message: str | None) -> ApiError:
    """The error a response carries, with Kafka's code, name and message kept. An empty message
    is none: Kafka 4.0 sends ``''`` where aclog's listener sends null (e.g. each CreateAcls
    success), and both mean the same to every client."""
    message = message or None
    try:
        known = Errors(code)
    except ValueError:
        name = str(getattr(kafka_errors.for_code(code), "message", "UNKNOWN"))
        return RemoteApiError(Errors.UNKNOWN_SERVER_ERROR, message, code, name)
    return ApiError.NONE if known == Errors.NONE and message is None else ApiError(known, message)


def min_acl_version(resource_types: Iterable[ResourceType]) -> int:
    # v1 carries the pattern type (v0 would silently mean LITERAL); v3 adds the USER resource.
    return 3 if any(t == ResourceType.USER for t in resource_types) else 1


def filter_fields(acl_filter: AclFilter) -> dict[str, Any]:
    return {
        "resource_type_filter": int(acl_filter.resource_type),
        "resource_name_filter": acl_filter.resource_name,
        "pattern_type_filter": int(acl_filter.pattern_type),
        "principal_filter": acl_filter.principal,
        "host_filter": acl_filter.host,
        "operation": int(acl_filter.operation),
        "permission_type": int(acl_filter.permission_type),
    }


def acl_of(
    entry: Any, resource_type: int, name: str, pattern_type: int
) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        REMOTE_ACL_ID,
        ResourceType.from_code(resource_type),
        name,
        PatternType.from_code(pattern_type),
        entry.principal,
        entry.host,
        AclOperation.from_code(entry.operation),
        AclPermissionType.from_code(entry.permission_type),
    )


def check_count(api: str, results: Sequence[Any], items: Sequence[Any]) -> None:
    if len(results) != len(items):
        raise RemoteError(f"{api}: the cluster answered {len(results)} results for {len(items)}")


def acls_of(response: Any) -> tuple[AccessControlEntryRecord, ...]:
    """The ACL entries of a DescribeAcls response as records, in the cluster's order."""
    return tuple(
        acl_of(entry, resource.resource_type, resource.resource_name, resource.pattern_type)
        for resource in response.resources
        for entry in resource.acls
    )


def users_of(response: Any) -> list[ScramDescribeResult]:
    """The users of a DescribeUserScramCredentials response, each with its own error and its
    credentials' mechanisms and iteration counts."""
    return [
        ScramDescribeResult(
            r.user,
            api_error(r.error_code, r.error_message),
            tuple(
                CredentialInfo(ScramMechanism.from_code(c.mechanism), c.iterations)
                for c in r.credential_infos
            ),
        )
        for r in response.results
    ]
