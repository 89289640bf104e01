"""DescribeAcls (key 29): the ACLs a filter matches, from the broker's authorizer.

Answered from the published trie authorizer, as a Kafka broker answers it (``AclApis`` walks the
authorizer's ACL cache): no controller lock is taken, the ACLs come in Kafka's sort order, and
a MATCH filter with a name is one trie walk. Writes wait for the loader before answering, so a
client always sees its own changes here. Without DESCRIBE on the cluster the response carries
CLUSTER_AUTHORIZATION_FAILED (31) and no ACL at all. A filter with code 0 in an enum field fails
Kafka's parser: the connection is closed. ACLs are grouped into one resource per (type, name,
pattern type), in the order they are met.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.admin import DescribeAclsRequest, DescribeAclsResponse

from aclog.records import AccessControlEntryRecord, AclOperation
from aclog.wire.apis.acl_codes import acl_filter, check_known, filter_codes
from aclog.wire.context import Api, Reply, RequestContext
from aclog.wire.errors import NONE, KafkaError

_Resource = DescribeAclsResponse.DescribeAclsResource
_Acl = _Resource.AclDescription


def _resources(acls: list[AccessControlEntryRecord]) -> list[Any]:
    grouped: dict[tuple[int, str, int], list[Any]] = {}
    for acl in acls:
        key = (int(acl.resource_type), acl.resource_name, int(acl.pattern_type))
        grouped.setdefault(key, []).append(
            _Acl(
                principal=acl.principal,
                host=acl.host,
                operation=int(acl.operation),
                permission_type=int(acl.permission_type),
            )
        )
    return [
        _Resource(resource_type=rt, resource_name=name, pattern_type=pt, acls=entries)
        for (rt, name, pt), entries in grouped.items()
    ]


def _response(ctx: RequestContext, error: KafkaError, resources: list[Any]) -> Any:
    return DescribeAclsResponse(
        version=ctx.version,
        throttle_time_ms=0,
        error_code=error.code,
        error_message=error.message,
        resources=resources,
    )


def handle(ctx: RequestContext, request: Any) -> Reply:
    check_known("DescribeAcls", [filter_codes(request)])
    node = ctx.node
    denied = node.check_cluster(ctx.principal, ctx.host, AclOperation.DESCRIBE, acl_api=True)
    if denied is not None:
        return Reply(_response(ctx, KafkaError.of(denied), []))
    acls = node.authorizer.acls(acl_filter(request))
    return Reply(_response(ctx, NONE, _resources(acls)))


def error_response(ctx: RequestContext, request: Any, error: KafkaError) -> Any:
    return _response(ctx, error, [])


API = Api(DescribeAclsRequest, DescribeAclsResponse, 1, 3, handle, error_response)
