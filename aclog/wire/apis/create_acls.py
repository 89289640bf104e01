"""CreateAcls (key 30): create ACLs through the controller.

In Kafka's order (``reference/kafka-acl-spec.md`` §3):

1. a creation with code 0 in an enum field fails the parse: the connection is closed;
2. without ALTER on the cluster every creation gets CLUSTER_AUTHORIZATION_FAILED (31);
3. a creation Kafka cannot even build (ANY or MATCH where a stored ACL needs a specific value)
   fails the whole request: every creation gets UNKNOWN_SERVER_ERROR (-1), nothing is created;
4. the controller validates each creation (Kafka's rules plus aclog's, DESIGN.md §3) and
   commits the valid ones as one batch; one result per creation, in request order.

The response is sent once the loader has published the commit (see :mod:`aclog.node`).
"""

from __future__ import annotations

import logging
from typing import Any

from kafka.protocol.admin import CreateAclsRequest, CreateAclsResponse

from aclog.acl import UNKNOWN_SERVER_ERROR, ApiError
from aclog.controller.result import AclCreateResult
from aclog.controller.validation import conversion_error
from aclog.records import AclOperation
from aclog.wire.apis.acl_codes import binding, check_known
from aclog.wire.context import Api, Reply, RequestContext, many

logger = logging.getLogger(__name__)
_Result = CreateAclsResponse.AclCreationResult


def _response(ctx: RequestContext, errors: list[ApiError]) -> Any:
    results = [_Result(error_code=e.code, error_message=e.message) for e in errors]
    return CreateAclsResponse(version=ctx.version, throttle_time_ms=0, results=results)


def handle(ctx: RequestContext, request: Any) -> Reply:
    creations = request.creations
    check_known(
        "CreateAcls",
        [
            (c.resource_type, c.resource_pattern_type, c.operation, c.permission_type)
            for c in creations
        ],
    )
    node = ctx.node
    denied = node.check_cluster(ctx.principal, ctx.host, AclOperation.ALTER, acl_api=True)
    if denied is not None:
        return Reply(error_response(ctx, request, denied))
    bindings = [binding(c) for c in creations]
    for index, item in enumerate(bindings):
        problem = conversion_error(item)
        if problem is not None:
            logger.info("CreateAcls from %s: creation %d: %s", ctx.principal, index, problem)
            return Reply(error_response(ctx, request, UNKNOWN_SERVER_ERROR))
    commit = node.create_acls(bindings, ctx.caller("CreateAcls"))

    def render(results: list[AclCreateResult]) -> Any:
        return _response(ctx, [r.error for r in results])

    return Reply.after(commit, render, many)


def error_response(ctx: RequestContext, request: Any, error: ApiError) -> Any:
    return _response(ctx, [error for _ in request.creations])


API = Api(
    CreateAclsRequest,
    CreateAclsResponse,
    1,
    3,
    handle,
    error_response,
    on_loop=True,
    queues_commit=True,
)
