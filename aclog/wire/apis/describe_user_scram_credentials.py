"""DescribeUserScramCredentials (key 50): users' SCRAM mechanisms and iteration counts.

Answered from the broker's published credential cache, as Kafka brokers answer it from their
``ScramImage`` (``reference/kafka-acl-spec.md`` §10.3); writes wait for the loader, so a client
sees its own changes. Needs DESCRIBE on the cluster, else the whole response carries
CLUSTER_AUTHORIZATION_FAILED (31) and no user. A null user list (kafka-python) and an empty one
(librdkafka) both describe every user. Salts and keys are never sent.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.admin import (
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsResponse,
)

from aclog.acl import ApiError
from aclog.image.scram import ScramDescribeResult
from aclog.records import AclOperation
from aclog.wire.context import Api, Reply, RequestContext

_Result = DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult
_Info = _Result.CredentialInfo


def _result(result: ScramDescribeResult) -> Any:
    error = result.error
    infos = [_Info(mechanism=int(c.mechanism), iterations=c.iterations) for c in result.credentials]
    return _Result(
        user=result.user,
        error_code=error.code,
        error_message=error.message,
        credential_infos=infos,
    )


def _response(ctx: RequestContext, error: ApiError, results: list[Any]) -> Any:
    return DescribeUserScramCredentialsResponse(
        version=ctx.version,
        throttle_time_ms=0,
        error_code=error.code,
        error_message=error.message,
        results=results,
    )


def handle(ctx: RequestContext, request: Any) -> Reply:
    node = ctx.node
    denied = node.check_cluster(ctx.principal, ctx.host, AclOperation.DESCRIBE, acl_api=False)
    if denied is not None:
        return Reply(_response(ctx, denied, []))
    names = None if request.users is None else [user.name for user in request.users]
    described = node.credentials.image.describe(names)
    return Reply(_response(ctx, ApiError.NONE, [_result(r) for r in described]))


def error_response(ctx: RequestContext, request: Any, error: ApiError) -> Any:
    return _response(ctx, error, [])


API = Api(
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsResponse,
    0,
    0,
    handle,
    error_response,
)
