"""One request frame in, one response frame (or a reason to close) out.

:func:`process` is synchronous and does no I/O on the socket: the connection runs it on a
worker thread, because handlers call the controller (which fsyncs) and may encode large
responses. The rules, in order, are Kafka's:

1. after a v0 SaslHandshake the frame is a bare SCRAM message;
2. a frame too short for a header, an unknown API key, or a version that was not advertised
   closes the connection (ApiVersions newer than the listener instead gets
   UNSUPPORTED_VERSION with a v0 body);
3. before a SASL login only ApiVersions, SaslHandshake and SaslAuthenticate are served;
   anything else closes the connection;
4. a body that does not decode strictly closes the connection;
5. the handler answers; if it fails unexpectedly, the request gets the API's error response with
   UNKNOWN_SERVER_ERROR, as Kafka's ``getErrorResponse`` gives, and the failure is logged. A
   write's handler answers with the commit it queued (a future) instead: the outcome is then
   :class:`Pending`, and the connection finishes it once the commit completes, with the same
   fallback to UNKNOWN_SERVER_ERROR if the commit failed unexpectedly.

On the event loop: the connection first calls :func:`process` with ``on_loop=True``, which
answers only requests of APIs marked ``on_loop`` (ApiVersions; DescribeAcls with a resource name
and a small answer; the writes, which only queue a commit) and raises
:class:`~aclog.wire.errors.Offload` for the rest, before anything changed; those are
processed again on a worker thread. Handing a request to a worker and back costs about as much
CPU as answering a small request (thread wake-ups and GIL hand-offs), so the cheap ones skip it.

Thread-safe: sessions are touched by one request at a time. At most one frame larger than
:data:`LARGE_FRAME_BYTES` is decoded at a time, which bounds the memory that decoding
adversarial frames (many tiny array elements) can take.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from aclog.acl import UNKNOWN_SERVER_ERROR
from aclog.node import Node
from aclog.wire.apis import ADVERTISED_VERSIONS, APIS, api_versions, sasl_authenticate
from aclog.wire.context import Api, Reply, RequestContext, SaslState, Session
from aclog.wire.errors import CloseConnection, Offload
from aclog.wire.event_log import EventLog
from aclog.wire.protocol import decode_request, encode_raw_frame, encode_response, peek_header

logger = logging.getLogger(__name__)
FAILURES = EventLog(logger, per_address=5, total=20)
"""Requests the server's own code failed on, with their tracebacks: a client that can make
that happen again and again must not fill the log (the listener flushes the summaries)."""

LARGE_FRAME_BYTES = 64 * 1024
_large_frames = threading.BoundedSemaphore(1)


@dataclass(frozen=True, slots=True)
class Pending:
    """A write's answer that waits for its commit: ``finish`` turns the commit's future, once
    done, into the outcome to send (the connection calls it on the event loop)."""

    commit: Future[Any]
    finish: Callable[[Future[Any]], Outcome]
    large: Callable[[Any], bool] | None = None

    def heavy(self) -> bool:
        """Whether the completed commit's answer is too big to render on the event loop."""
        commit = self.commit
        return self.large is not None and commit.exception() is None and self.large(commit.result())


@dataclass(frozen=True, slots=True)
class Outcome:
    """What to write (``None``: nothing) and whether to close the connection afterwards; or,
    with ``pending``, what to wait for before there is anything to write."""

    data: bytes | None
    close_reason: str | None = None
    api: str = "?"
    pending: Pending | None = None


def process(node: Node, session: Session, payload: bytes, *, on_loop: bool = False) -> Outcome:
    """Answer one request frame (``payload`` is the frame without its size prefix). With
    ``on_loop``, raise :class:`Offload` unless the request may be answered on the event loop."""
    if session.state is SaslState.RAW_AUTHENTICATE:
        if on_loop:
            raise Offload
        reply, failure = sasl_authenticate.step(session, payload)
        if reply is None:
            return Outcome(None, failure, "SaslAuthenticate(v0)")
        return Outcome(encode_raw_frame(reply), None, "SaslAuthenticate(v0)")
    try:
        return _process(node, session, payload, on_loop)
    except CloseConnection as reason:
        return Outcome(None, str(reason))


def queues_commit(payload: bytes) -> bool:
    """Whether the frame is a request of an API whose handler only queues a commit (CreateAcls,
    DeleteAcls, AlterUserScramCredentials). Cheap: reads the API key."""
    try:
        api = APIS.get(peek_header(payload)[0])
    except CloseConnection:  # too short for a header: processing it closes the connection
        return False
    return api is not None and api.queues_commit


def _process(node: Node, session: Session, payload: bytes, on_loop: bool) -> Outcome:
    api_key, version, correlation_id = peek_header(payload)
    api = APIS.get(api_key)
    if on_loop and (api is None or not api.on_loop or len(payload) > LARGE_FRAME_BYTES):
        raise Offload
    if api is None:
        raise CloseConnection(f"unknown API key {api_key} (version {version})")
    if api_key == api_versions.API.key and version > api.max_version:
        response = api_versions.unsupported_version(ADVERTISED_VERSIONS)
        return Outcome(encode_response(response, correlation_id), None, api.name)
    if not api.min_version <= version <= api.max_version:
        raise CloseConnection(
            f"{api.name} v{version} is not supported (served: v{api.min_version}-"
            f"v{api.max_version})"
        )
    if not session.authenticated and not api.before_authentication:
        raise CloseConnection(
            f"{api.name} before SASL authentication (until a login completes only ApiVersions, "
            "SaslHandshake and SaslAuthenticate are served)"
        )
    if len(payload) > LARGE_FRAME_BYTES:
        with _large_frames:
            header, request = decode_request(api.request_class, payload, version)
    else:
        header, request = decode_request(api.request_class, payload, version)
    ctx = RequestContext(node, session, header, ADVERTISED_VERSIONS, on_loop)
    reply = _handle(api, ctx, request)
    if reply.commit is None:
        return _encoded(api, reply, correlation_id)
    render = reply.render
    assert render is not None

    def finish(commit: Future[Any]) -> Outcome:
        try:
            response = render(commit.result())
        except Exception:
            _log_failure(api, ctx)
            response = api.error_response(ctx, request, UNKNOWN_SERVER_ERROR)
        return _encoded(api, Reply(response), correlation_id)

    return Outcome(None, None, api.name, Pending(reply.commit, finish, reply.large))


def _handle(api: Api, ctx: RequestContext, request: Any) -> Reply:
    try:
        return api.handle(ctx, request)
    except (CloseConnection, Offload):
        raise
    except Exception:
        _log_failure(api, ctx)
        return Reply(api.error_response(ctx, request, UNKNOWN_SERVER_ERROR))


def _log_failure(api: Api, ctx: RequestContext) -> None:
    session = ctx.session
    line = (
        f"{api.name} v{ctx.version} from {session.principal} on connection "
        f"{session.connection_id} failed; answering UNKNOWN_SERVER_ERROR"
    )
    event = f"{api.name} failed; answered UNKNOWN_SERVER_ERROR"
    FAILURES.note(session.client_host, logging.ERROR, line, event, exc_info=True)


def _encoded(api: Api, reply: Reply, correlation_id: int) -> Outcome:
    try:
        data = encode_response(reply.response, correlation_id)
    except Exception as error:
        line = f"cannot encode the {api.name} response"
        FAILURES.note("the server", logging.ERROR, line, line, exc_info=True)
        raise CloseConnection(f"cannot encode the {api.name} response: {error}") from None
    return Outcome(data, reply.close_reason, api.name)
