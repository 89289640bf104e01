"""What a handler gets and gives back: the connection's session, the request context, the
description of an API and a handler's reply.

A :class:`Session` belongs to one connection, which handles one request at a time (possibly on
different worker threads, one after the other), so it needs no lock. Everything else here is
immutable.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sized
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

from aclog.acl import ApiError
from aclog.controller.caller import Caller
from aclog.node import Node
from aclog.records import ScramMechanism
from aclog.wire.config import SecurityProtocol
from aclog.wire.protocol import RequestHeader
from aclog.wire.scram import ScramLogin

ANONYMOUS = "User:ANONYMOUS"
T = TypeVar("T")


class SaslState(enum.Enum):
    """Where a connection is in Kafka's SASL server state machine."""

    HANDSHAKE = "handshake"
    """A SASL listener before SaslHandshake: only ApiVersions and SaslHandshake are served."""
    AUTHENTICATE = "authenticate"
    """After a v1 SaslHandshake: SaslAuthenticate requests carry the SCRAM messages."""
    RAW_AUTHENTICATE = "raw-authenticate"
    """After a v0 SaslHandshake: the next frames are bare SCRAM messages without a header."""
    AUTHENTICATED = "authenticated"
    """Logged in (or a PLAINTEXT listener): every API is served."""


@dataclass(slots=True)
class Session:
    """One connection's identity and SASL progress."""

    connection_id: str
    client_host: str
    security_protocol: SecurityProtocol
    principal: str = ANONYMOUS
    state: SaslState = SaslState.AUTHENTICATED
    mechanism: ScramMechanism | None = None
    login: ScramLogin | None = None

    @classmethod
    def start(
        cls, connection_id: str, client_host: str, security_protocol: SecurityProtocol
    ) -> Session:
        """A new connection: authenticated as ``User:ANONYMOUS`` on PLAINTEXT, else waiting
        for SaslHandshake."""
        state = SaslState.HANDSHAKE if security_protocol.uses_sasl else SaslState.AUTHENTICATED
        return cls(connection_id, client_host, security_protocol, ANONYMOUS, state)

    @property
    def authenticated(self) -> bool:
        """True once every API may be served."""
        return self.state is SaslState.AUTHENTICATED


@dataclass(frozen=True, slots=True)
class RequestContext:
    """One request as a handler sees it."""

    node: Node
    session: Session
    header: RequestHeader
    advertised_versions: Mapping[int, tuple[int, int]]
    on_loop: bool = False
    """Processed on the event loop: a handler that finds the work large raises
    :class:`~aclog.wire.errors.Offload` instead of doing it."""

    @property
    def version(self) -> int:
        """The request's API version; the response uses the same."""
        return self.header.api_version

    @property
    def principal(self) -> str:
        """``User:<name>`` after a SASL login, ``User:ANONYMOUS`` on PLAINTEXT."""
        return self.session.principal

    @property
    def host(self) -> str:
        """The client's IP address."""
        return self.session.client_host

    def caller(self, api: str) -> Caller:
        """Who asks, as the controller records it with every change."""
        return Caller(self.principal, self.host, self.header.client_id or "", api)


@dataclass(frozen=True, slots=True)
class Reply:
    """A handler's answer: the response body, and whether to close the connection after it;
    or, for a write, the commit to wait for and how to turn its results into the body."""

    response: Any
    close_reason: str | None = None
    commit: Future[Any] | None = None
    render: Callable[[Any], Any] | None = None
    large: Callable[[Any], bool] | None = None

    @classmethod
    def after(
        cls,
        commit: Future[T],
        render: Callable[[T], Any],
        large: Callable[[T], bool] | None = None,
    ) -> Reply:
        """The response ``render`` makes of ``commit`` 's results, once it completes (the
        connection waits for it without holding a thread). Results that ``large`` finds too
        big to render on the event loop are rendered on a worker thread."""
        return cls(None, None, commit, render, large)


ON_LOOP_MAX_ITEMS = 64
"""The most entries (ACLs, results) an answer built on the event loop may hold: kafka-python
builds and encodes about 10,000 a second, so a longer answer would stall every connection."""


def many(results: Sized) -> bool:
    """Whether an answer with one entry per result is too long to render on the event loop
    (the ``large`` of :meth:`Reply.after`)."""
    return len(results) > ON_LOOP_MAX_ITEMS


Handler = Callable[[RequestContext, Any], Reply]
ErrorResponse = Callable[[RequestContext, Any, ApiError], Any]


@dataclass(frozen=True, slots=True)
class Api:
    """One Kafka API the listener serves."""

    request_class: Any
    response_class: Any
    min_version: int
    max_version: int
    handle: Handler
    error_response: ErrorResponse
    """Kafka's ``getErrorResponse``: the response that gives this error to the whole request
    (used when a handler fails unexpectedly)."""
    before_authentication: bool = False
    """True for ApiVersions and the SASL APIs, served before a SASL login."""
    on_loop: bool = False
    """Tried on the event loop first (see :mod:`aclog.wire.dispatch`): for APIs that answer
    from memory, never block, do not change the session, and raise
    :class:`~aclog.wire.errors.Offload` when a request would take long."""
    queues_commit: bool = False
    """True for the writes: the handler queues a commit and answers once it completes, so the
    connection may read and queue the next write meanwhile (see :mod:`aclog.wire.connection`)."""

    @property
    def key(self) -> int:
        """The API key."""
        return int(self.request_class.API_KEY)

    @property
    def name(self) -> str:
        """``CreateAcls``, ``Metadata``, ..."""
        return str(self.request_class.name).removesuffix("Request")

    @property
    def versions(self) -> range:
        """The advertised versions."""
        return range(self.min_version, self.max_version + 1)
