"""The five Kafka admin requests :class:`~aclog.remote.RemoteAdmin` sends, built from aclog's
values with kafka-python's protocol message classes (the admin client's own methods cannot
carry GLOB or keep per-item errors; see :mod:`aclog.remote.admin`), and the ApiVersions that
asks which features a listener supports. Each ACL request asks for the lowest version that
carries what it holds (:func:`~aclog.remote.messages.min_acl_version`).

Stateless; thread-safe. Cost: O(items).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kafka.protocol.admin import (
    AlterUserScramCredentialsRequest,
    CreateAclsRequest,
    DeleteAclsRequest,
    DescribeAclsRequest,
    DescribeUserScramCredentialsRequest,
)
from kafka.protocol.metadata import ApiVersionsRequest

from aclog.acl.filters import AclFilter
from aclog.controller import ScramDeletion, ScramUpsertion
from aclog.records import AclBinding
from aclog.remote.messages import filter_fields, min_acl_version


def create_acls_request(acls: Sequence[AclBinding]) -> Any:
    """CreateAcls for ``acls``, in order."""
    creation = CreateAclsRequest.AclCreation
    return CreateAclsRequest(
        min_version=min_acl_version(a.resource_type for a in acls),
        creations=[
            creation(
                resource_type=int(a.resource_type),
                resource_name=a.resource_name,
                resource_pattern_type=int(a.pattern_type),
                principal=a.principal,
                host=a.host,
                operation=int(a.operation),
                permission_type=int(a.permission_type),
            )
            for a in acls
        ],
    )


def delete_acls_request(filters: Sequence[AclFilter]) -> Any:
    """DeleteAcls for ``filters``, in order."""
    item = DeleteAclsRequest.DeleteAclsFilter
    return DeleteAclsRequest(
        min_version=min_acl_version(f.resource_type for f in filters),
        filters=[item(**filter_fields(f)) for f in filters],
    )


def describe_acls_request(acl_filter: AclFilter) -> Any:
    """DescribeAcls with one filter (the request carries exactly one)."""
    return DescribeAclsRequest(
        min_version=min_acl_version([acl_filter.resource_type]), **filter_fields(acl_filter)
    )


def alter_scram_request(
    upsertions: Sequence[ScramUpsertion], deletions: Sequence[ScramDeletion]
) -> Any:
    """AlterUserScramCredentials: the salted password travels, never the password."""
    return AlterUserScramCredentialsRequest(
        deletions=[
            AlterUserScramCredentialsRequest.ScramCredentialDeletion(
                name=d.name, mechanism=int(d.mechanism)
            )
            for d in deletions
        ],
        upsertions=[
            AlterUserScramCredentialsRequest.ScramCredentialUpsertion(
                name=u.name,
                mechanism=int(u.mechanism),
                iterations=u.iterations,
                salt=u.salt,
                salted_password=u.salted_password,
            )
            for u in upsertions
        ],
    )


def describe_scram_request(names: Sequence[str] | None) -> Any:
    """DescribeUserScramCredentials; ``None`` or no names asks for every user."""
    user_name = DescribeUserScramCredentialsRequest.UserName
    return DescribeUserScramCredentialsRequest(
        users=[user_name(name=n) for n in names] if names else None
    )


def api_versions_request() -> Any:
    """ApiVersions at version 3 or later, the first whose response lists supported features."""
    return ApiVersionsRequest(
        min_version=3, client_software_name="aclog", client_software_version="1"
    )
