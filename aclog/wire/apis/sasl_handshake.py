"""SaslHandshake (key 17): pick the SASL mechanism of a connection.

On a SASL listener before a login: a supported mechanism (SCRAM-SHA-256 or SCRAM-SHA-512) starts
a SCRAM exchange, carried by SaslAuthenticate after a v1 handshake or as bare frames after a v0
one; any other mechanism gets UNSUPPORTED_SASL_MECHANISM (33) with the list, and the connection
is closed, as Kafka's ``SaslServerAuthenticator`` does. On a PLAINTEXT listener or after a login
the answer is ILLEGAL_SASL_STATE (34), as Kafka's ``KafkaApis`` gives; a second handshake during
a login also gets 34 and ends the connection.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.sasl import SaslHandshakeRequest, SaslHandshakeResponse

from aclog.acl import ApiError, Errors
from aclog.wire.context import Api, Reply, RequestContext, SaslState
from aclog.wire.scram import SUPPORTED_MECHANISMS, ScramLogin

MECHANISMS = list(SUPPORTED_MECHANISMS)


def _response(ctx: RequestContext, error: int, mechanisms: list[str]) -> Any:
    return SaslHandshakeResponse(version=ctx.version, error_code=error, mechanisms=mechanisms)


def handle(ctx: RequestContext, request: Any) -> Reply:
    session = ctx.session
    if session.state is SaslState.AUTHENTICATED:
        return Reply(_response(ctx, Errors.ILLEGAL_SASL_STATE, []))
    if session.state is not SaslState.HANDSHAKE:
        return Reply(
            _response(ctx, Errors.ILLEGAL_SASL_STATE, []),
            "a second SaslHandshake during SASL authentication",
        )
    mechanism = SUPPORTED_MECHANISMS.get(request.mechanism)
    if mechanism is None:
        return Reply(
            _response(ctx, int(Errors.UNSUPPORTED_SASL_MECHANISM), MECHANISMS),
            f"the client asked for the SASL mechanism {request.mechanism!r}, not one of "
            f"{', '.join(MECHANISMS)}",
        )
    session.mechanism = mechanism
    session.login = ScramLogin(mechanism, ctx.node.scram_credential, ctx.node.login_secret)
    session.state = SaslState.AUTHENTICATE if ctx.version >= 1 else SaslState.RAW_AUTHENTICATE
    return Reply(_response(ctx, 0, MECHANISMS))


def error_response(ctx: RequestContext, request: Any, error: ApiError) -> Any:
    return _response(ctx, error.code, [])


API = Api(
    SaslHandshakeRequest,
    SaslHandshakeResponse,
    0,
    1,
    handle,
    error_response,
    before_authentication=True,
)
