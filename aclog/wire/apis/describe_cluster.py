"""DescribeCluster (key 60): this node as the only broker and the controller.

As Kafka's ``AuthHelper.computeDescribeClusterResponse``: the listener is a broker endpoint, so
``endpoint_type`` 2 (controllers) gets MISMATCHED_ENDPOINT_TYPE (114) and an unknown type
UNSUPPORTED_ENDPOINT_TYPE (115). KIP-430 cluster operations are reported when asked for, and
are empty without DESCRIBE on the cluster. kafka-python's ``describe_cluster()`` uses this API;
librdkafka asks Metadata instead.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.admin import DescribeClusterRequest, DescribeClusterResponse

from aclog.acl import ApiError, Errors
from aclog.wire.apis.metadata import cluster_operations
from aclog.wire.context import Api, Reply, RequestContext

BROKER_ENDPOINT = 1
CONTROLLER_ENDPOINT = 2


def _response(
    ctx: RequestContext,
    error: ApiError,
    brokers: list[Any],
    operations: set[int] | None,
    controller_id: int,
    endpoint_type: int = BROKER_ENDPOINT,
) -> Any:
    node = ctx.node
    return DescribeClusterResponse(
        version=ctx.version,
        throttle_time_ms=0,
        error_code=error.code,
        error_message=error.message,
        endpoint_type=endpoint_type,
        cluster_id=node.cluster_id,
        controller_id=controller_id,
        brokers=brokers,
        authorized_operations=operations,
    )


def handle(ctx: RequestContext, request: Any) -> Reply:
    endpoint_type = request.endpoint_type if ctx.version >= 1 else BROKER_ENDPOINT
    if endpoint_type not in (BROKER_ENDPOINT, CONTROLLER_ENDPOINT):
        error = ApiError(
            Errors.UNSUPPORTED_ENDPOINT_TYPE,
            f"Unsupported endpoint type {endpoint_type}",
        )
        return Reply(_response(ctx, error, [], None, ctx.node.node_id, endpoint_type))
    if endpoint_type != BROKER_ENDPOINT:
        error = ApiError(
            Errors.MISMATCHED_ENDPOINT_TYPE,
            "The request was sent to an endpoint of type BROKER, but we wanted an endpoint "
            "of type CONTROLLER",
        )
        return Reply(_response(ctx, error, [], None, ctx.node.node_id, endpoint_type))
    view = ctx.node.cluster_view()
    brokers = [
        DescribeClusterResponse.DescribeClusterBroker(
            broker_id=b.node_id,
            host=b.endpoint.host,
            port=b.endpoint.port,
            rack=None,
            is_fenced=False,
        )
        for b in view.brokers
    ]
    operations = None
    if request.include_cluster_authorized_operations:
        operations = cluster_operations(ctx)
    return Reply(_response(ctx, ApiError.NONE, brokers, operations, view.controller_id))


def error_response(ctx: RequestContext, request: Any, error: ApiError) -> Any:
    return _response(ctx, error, [], None, ctx.node.node_id)


API = Api(DescribeClusterRequest, DescribeClusterResponse, 0, 2, handle, error_response)
