"""DescribeAcls (key 29): the ACLs a filter matches, from the broker's authorizer.

Answered from the published trie authorizer, as a Kafka broker answers it (``AclApis`` walks the
authorizer's ACL cache): no controller lock is taken, the ACLs come in Kafka's sort order, and
a MATCH filter with a name is one trie walk. Writes wait for the loader before answering, so a
client always sees its own changes here. Without DESCRIBE on the cluster the response carries
CLUSTER_AUTHORIZATION_FAILED (31) and no ACL at all. A filter with code 0 in an enum field fails
Kafka's parser: the connection is closed. ACLs are grouped into one resource per (type, name,
pattern type), in the order they are met. The success response is encoded directly
(:func:`encode_body`), not through kafka-python's message objects. A filter with a resource name
and an answer of at most :data:`ON_LOOP_MAX_ACLS` ACLs is answered on the event loop.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.admin import DescribeAclsRequest, DescribeAclsResponse

from aclog.acl import ApiError
from aclog.records import AccessControlEntryRecord, AclOperation
from aclog.wire.apis.acl_codes import acl_filter, check_known, filter_codes
from aclog.wire.context import ON_LOOP_MAX_ITEMS, Api, Reply, RequestContext
from aclog.wire.encoding import (
    INT8,
    INT8_PAIR,
    INT32_INT16,
    NO_TAGS,
    array_length,
    nullable_string,
    string,
)
from aclog.wire.errors import Offload
from aclog.wire.protocol import EncodedResponse

FLEXIBLE_FROM = 2
ON_LOOP_MAX_ACLS = ON_LOOP_MAX_ITEMS
"""The most ACLs an answer built on the event loop may hold (a named filter is a few index
lookups; a longer answer is looked up again and encoded on a worker thread)."""


def _grouped(
    acls: list[AccessControlEntryRecord],
) -> dict[tuple[int, str, int], list[AccessControlEntryRecord]]:
    grouped: dict[tuple[int, str, int], list[AccessControlEntryRecord]] = {}
    for acl in acls:
        key = (acl.resource_type, acl.resource_name, acl.pattern_type)
        entries = grouped.get(key)
        if entries is None:
            grouped[key] = [acl]
        else:
            entries.append(acl)
    return grouped


def encode_body(version: int, error: ApiError, acls: list[AccessControlEntryRecord]) -> bytes:
    """The response body, byte for byte what kafka-python's ``DescribeAclsResponse`` encodes
    (tests/wire check it), built straight from the ACLs, without a message object per ACL and
    kafka-python's encoder, which made large answers the slowest part of a DescribeAcls.
    Principals, hosts and names repeat a lot, so each distinct string is encoded once."""
    compact = version >= FLEXIBLE_FROM
    tag = NO_TAGS if compact else b""
    strings: dict[str, bytes] = {}

    def text(value: str) -> bytes:
        encoded = strings.get(value)
        if encoded is None:
            encoded = strings[value] = string(value, compact)
        return encoded

    groups = _grouped(acls)
    parts = [INT32_INT16.pack(0, error.code), nullable_string(error.message, compact)]
    parts.append(array_length(len(groups), compact))
    pack, int8 = INT8_PAIR.pack, INT8.pack
    for (resource_type, name, pattern_type), entries in groups.items():
        parts += (int8(resource_type), text(name), int8(pattern_type))
        parts.append(array_length(len(entries), compact))
        for acl in entries:
            parts += (text(acl.principal), text(acl.host))
            parts += (pack(acl.operation, acl.permission_type), tag)
        parts.append(tag)
    parts.append(tag)
    return b"".join(parts)


def _response(ctx: RequestContext, error: ApiError, resources: list[Any]) -> Any:
    return DescribeAclsResponse(
        version=ctx.version,
        throttle_time_ms=0,
        error_code=error.code,
        error_message=error.message,
        resources=resources,
    )


def handle(ctx: RequestContext, request: Any) -> Reply:
    check_known("DescribeAcls", [filter_codes(request)])
    if ctx.on_loop and request.resource_name_filter is None:
        raise Offload  # a filter without a name scans every ACL of its types
    node = ctx.node
    denied = node.check_cluster(ctx.principal, ctx.host, AclOperation.DESCRIBE, acl_api=True)
    if denied is not None:
        return Reply(_response(ctx, denied, []))
    acls = node.authorizer.acls(acl_filter(request))
    if ctx.on_loop and len(acls) > ON_LOOP_MAX_ACLS:
        raise Offload  # encoding a long answer would hold up every other connection
    body = encode_body(ctx.version, ApiError.NONE, acls)
    return Reply(EncodedResponse(body, ctx.version >= FLEXIBLE_FROM))


def error_response(ctx: RequestContext, request: Any, error: ApiError) -> Any:
    return _response(ctx, error, [])


API = Api(DescribeAclsRequest, DescribeAclsResponse, 1, 3, handle, error_response, on_loop=True)
