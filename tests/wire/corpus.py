"""Valid requests for every API and version the listener serves: seeds for fuzzing."""

from __future__ import annotations

import uuid
from typing import Any

from kafka.protocol.admin import (
    AlterUserScramCredentialsRequest,
    CreateAclsRequest,
    DeleteAclsRequest,
    DescribeAclsRequest,
    DescribeClusterRequest,
    DescribeUserScramCredentialsRequest,
)
from kafka.protocol.metadata import ApiVersionsRequest, MetadataRequest
from kafka.protocol.sasl import SaslAuthenticateRequest, SaslHandshakeRequest

from aclog.wire.apis import APIS


def _fields(api_key: int) -> dict[str, Any]:
    acl_filter = {
        "resource_type_filter": 2,
        "resource_name_filter": "orders",
        "pattern_type_filter": 2,
        "principal_filter": "User:alice",
        "host_filter": None,
        "operation": 1,
        "permission_type": 1,
    }
    if api_key == ApiVersionsRequest.API_KEY:
        return {"client_software_name": "fuzz", "client_software_version": "1.0"}
    if api_key == MetadataRequest.API_KEY:
        topic = MetadataRequest.MetadataRequestTopic(name="orders", topic_id=uuid.uuid4())
        return {
            "topics": [topic],
            "allow_auto_topic_creation": False,
            "include_cluster_authorized_operations": True,
            "include_topic_authorized_operations": True,
        }
    if api_key == SaslHandshakeRequest.API_KEY:
        return {"mechanism": "SCRAM-SHA-256"}
    if api_key == SaslAuthenticateRequest.API_KEY:
        return {"auth_bytes": b"n,,n=alice,r=0123456789abcdef"}
    if api_key == DescribeAclsRequest.API_KEY:
        return acl_filter
    if api_key == CreateAclsRequest.API_KEY:
        creation = CreateAclsRequest.AclCreation(
            resource_type=2,
            resource_name="orders",
            resource_pattern_type=3,
            principal="User:alice",
            host="*",
            operation=3,
            permission_type=3,
        )
        return {"creations": [creation, creation]}
    if api_key == DeleteAclsRequest.API_KEY:
        return {"filters": [DeleteAclsRequest.DeleteAclsFilter(**acl_filter)]}
    if api_key == DescribeUserScramCredentialsRequest.API_KEY:
        name = DescribeUserScramCredentialsRequest.UserName(name="alice")
        return {"users": [name]}
    if api_key == AlterUserScramCredentialsRequest.API_KEY:
        cls = AlterUserScramCredentialsRequest
        return {
            "deletions": [cls.ScramCredentialDeletion(name="bob", mechanism=1)],
            "upsertions": [
                cls.ScramCredentialUpsertion(
                    name="alice",
                    mechanism=2,
                    iterations=4096,
                    salt=b"s" * 24,
                    salted_password=b"p" * 64,
                )
            ],
        }
    if api_key == DescribeClusterRequest.API_KEY:
        return {
            "include_cluster_authorized_operations": True,
            "endpoint_type": 1,
            "include_fenced_brokers": True,
        }
    raise KeyError(api_key)


def valid_requests() -> list[bytes]:
    """One framed request per (API, version), correlation id 1."""
    frames = []
    for key, api in sorted(APIS.items()):
        for version in api.versions:
            request = api.request_class(version=version, **_fields(key))
            request.with_header(correlation_id=1, client_id="fuzz")
            frames.append(bytes(request.encode(header=True, framed=True)))
    return frames
