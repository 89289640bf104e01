"""ApiVersions (key 18): the API keys and versions this listener serves.

Served before authentication. A version newer than the listener's gets UNSUPPORTED_VERSION (35)
with a version-0 body that still lists every API, so the client can retry with a version both
sides know (KIP-511); that case is answered by the dispatcher before decoding, since the body of
an unknown version cannot be read. From v3 a success lists the feature ``aclog.glob.version``
(:data:`~aclog.acl.glob.GLOB_FEATURE`) among its supported features, so a client can tell that
this listener stores GLOB ACLs. From v3 the client's software name and version must match
Kafka's pattern, else INVALID_REQUEST (42), as Kafka's ``ApiVersionsRequest.isValid`` does. The
success body is encoded once per version and reused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from kafka.protocol.metadata import ApiVersionsRequest, ApiVersionsResponse

from aclog.acl import ApiError, Errors
from aclog.acl.glob import GLOB_FEATURE
from aclog.wire.context import Api, Reply, RequestContext
from aclog.wire.protocol import EncodedResponse

_SOFTWARE = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def _api_keys(advertised: Mapping[int, tuple[int, int]]) -> list[Any]:
    entry = ApiVersionsResponse.ApiVersion
    return [
        entry(api_key=key, min_version=low, max_version=high)
        for key, (low, high) in sorted(advertised.items())
    ]


def _response(version: int, error: int, api_keys: list[Any]) -> Any:
    # A success says what this listener can hold beyond Kafka: GLOB ACLs (clients ask it).
    feature = ApiVersionsResponse.SupportedFeatureKey
    features = [feature(name=GLOB_FEATURE, min_version=1, max_version=1)] if api_keys else []
    return ApiVersionsResponse(
        version=version,
        error_code=error,
        api_keys=api_keys,
        throttle_time_ms=0,
        supported_features=features,
        finalized_features_epoch=-1,
        finalized_features=[],
        zk_migration_ready=False,
    )


def unsupported_version(advertised: Mapping[int, tuple[int, int]]) -> Any:
    """The answer to an ApiVersions request newer than the listener: 35 with a v0 body."""
    return ApiVersionsResponse(
        version=0, error_code=int(Errors.UNSUPPORTED_VERSION), api_keys=_api_keys(advertised)
    )


def handle(ctx: RequestContext, request: Any) -> Reply:
    if ctx.version >= 3 and not (
        _SOFTWARE.fullmatch(request.client_software_name or "")
        and _SOFTWARE.fullmatch(request.client_software_version or "")
    ):
        return Reply(_response(ctx.version, int(Errors.INVALID_REQUEST), []))
    body = _success_body(ctx.version, tuple(ctx.advertised_versions.items()))
    # The response header stays v0 at every version (KIP-511), so never flexible.
    return Reply(EncodedResponse(body, flexible=False))


@lru_cache(maxsize=32)
def _success_body(version: int, advertised: tuple[tuple[int, tuple[int, int]], ...]) -> bytes:
    """The success body, encoded once per version: it only depends on what is advertised,
    which is fixed for the process, and encoding it cost more than the rest of the request."""
    return bytes(_response(version, 0, _api_keys(dict(advertised))).encode())


def error_response(ctx: RequestContext, request: Any, error: ApiError) -> Any:
    return _response(ctx.version, error.code, [])


API = Api(
    ApiVersionsRequest,
    ApiVersionsResponse,
    0,
    4,
    handle,
    error_response,
    before_authentication=True,
    on_loop=True,
)
