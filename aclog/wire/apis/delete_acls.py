"""DeleteAcls (key 31): delete the ACLs that filters match, through the controller.

A filter with code 0 in an enum field fails Kafka's parser: the connection is closed
(``reference/kafka-acl-spec.md`` §4). Otherwise the controller checks ALTER on the cluster
(every filter gets CLUSTER_AUTHORIZATION_FAILED (31) without it), validates each filter, and
removes every distinct match in one batch. One result per filter, in request order, each
listing the ACLs it matched; the response is sent once the loader has published the commit.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.admin import DeleteAclsRequest, DeleteAclsResponse

from aclog.acl import ApiError
from aclog.controller.result import AclDeleteResult
from aclog.wire.apis.acl_codes import acl_fields, acl_filter, check_known, filter_codes
from aclog.wire.context import ON_LOOP_MAX_ITEMS, Api, Reply, RequestContext, many

_Result = DeleteAclsResponse.DeleteAclsFilterResult
_Match = _Result.DeleteAclsMatchingAcl


def _result(result: AclDeleteResult) -> Any:
    error = result.error
    matches = [_Match(error_code=0, error_message=None, **acl_fields(acl)) for acl in result.acls]
    return _Result(error_code=error.code, error_message=error.message, matching_acls=matches)


def handle(ctx: RequestContext, request: Any) -> Reply:
    check_known("DeleteAcls", [filter_codes(f) for f in request.filters])
    filters = [acl_filter(f) for f in request.filters]
    commit = ctx.node.delete_acls(filters, ctx.caller("DeleteAcls"))

    def render(results: list[AclDeleteResult]) -> Any:
        return DeleteAclsResponse(
            version=ctx.version, throttle_time_ms=0, filter_results=[_result(r) for r in results]
        )

    return Reply.after(commit, render, _large)


def _large(results: list[AclDeleteResult]) -> bool:
    return many(results) or sum(len(result.acls) for result in results) > ON_LOOP_MAX_ITEMS


def error_response(ctx: RequestContext, request: Any, error: ApiError) -> Any:
    failed = _Result(error_code=error.code, error_message=error.message, matching_acls=[])
    return DeleteAclsResponse(
        version=ctx.version, throttle_time_ms=0, filter_results=[failed for _ in request.filters]
    )


API = Api(
    DeleteAclsRequest,
    DeleteAclsResponse,
    1,
    3,
    handle,
    error_response,
    on_loop=True,
    queues_commit=True,
)
