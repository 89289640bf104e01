"""SaslAuthenticate (key 36): the SCRAM messages of a login after a v1 SaslHandshake.

The client's first message gets the server-first message; the final message, with a valid
proof, gets the server-final message and the connection is then logged in as ``User:<name>``
(``session_lifetime_ms`` 0: no KIP-368 re-authentication). A failed login gets
SASL_AUTHENTICATION_FAILED (58) with Kafka's message, which does not say whether the user
exists, and the connection is closed after the response. A SaslAuthenticate after a login gets
ILLEGAL_SASL_STATE (34), as Kafka's ``KafkaApis`` answers; one before a handshake ends the
connection without a response, as Kafka's SASL authenticator does (checked against Kafka 4.0).

:func:`raw_step` is the same exchange after a v0 handshake, where the frames carry bare SCRAM
messages and a failure simply closes the connection.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.sasl import SaslAuthenticateRequest, SaslAuthenticateResponse

from aclog.acl import ApiError, Errors
from aclog.wire.context import Api, Reply, RequestContext, SaslState, Session
from aclog.wire.errors import CloseConnection
from aclog.wire.scram import ScramLoginFailed


def failure_message(session: Session) -> str:
    """Kafka's text for a failed SCRAM login."""
    mechanism = session.mechanism.mechanism_name if session.mechanism else "SCRAM"
    return (
        "Authentication failed during authentication due to invalid credentials with SASL "
        f"mechanism {mechanism}"
    )


def _response(ctx: RequestContext, error: int, message: str | None, auth_bytes: bytes = b"") -> Any:
    return SaslAuthenticateResponse(
        version=ctx.version,
        error_code=error,
        error_message=message,
        auth_bytes=auth_bytes,
        session_lifetime_ms=0,
    )


def step(session: Session, token: bytes) -> tuple[bytes | None, str | None]:
    """Feed one SCRAM message: ``(reply, None)``, or ``(None, why it failed)``."""
    login = session.login
    if login is None:
        return None, "no SCRAM exchange in progress"
    try:
        reply = login.step(token)
    except ScramLoginFailed as error:
        session.login = None
        return (
            None,
            f"SASL/{login.mechanism.mechanism_name} login of {login.user!r} failed: {error}",
        )
    if login.done:
        session.principal = f"User:{login.user}"
        session.state = SaslState.AUTHENTICATED
        session.login = None  # the connection logs the login (aclog.wire.event_log)
    return reply, None


def handle(ctx: RequestContext, request: Any) -> Reply:
    session = ctx.session
    if session.state is SaslState.AUTHENTICATED:
        message = "SaslAuthenticate request received after successful authentication"
        return Reply(_response(ctx, Errors.ILLEGAL_SASL_STATE, message))
    if session.state is not SaslState.AUTHENTICATE:
        raise CloseConnection("SaslAuthenticate request received before SaslHandshake")
    reply, failure = step(session, request.auth_bytes or b"")
    if reply is None:
        return Reply(
            _response(ctx, Errors.SASL_AUTHENTICATION_FAILED, failure_message(session)),
            failure,
        )
    return Reply(_response(ctx, 0, None, reply))


def error_response(ctx: RequestContext, request: Any, error: ApiError) -> Any:
    return _response(ctx, error.code, error.message)


API = Api(
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    0,
    2,
    handle,
    error_response,
    before_authentication=True,
)
