"""How a request that cannot be answered ends its connection, and how a request asks to move
off the event loop. (Kafka's error codes themselves are :mod:`aclog.acl.errors`.)

Immutable; thread-safe.
"""

from __future__ import annotations


class CloseConnection(Exception):
    """The request cannot be answered: Kafka closes the connection without a response (a
    malformed frame, an unknown API, a version that was not advertised, a request before SASL
    authentication, a request body Kafka's parser rejects). The message says why, for the log."""


class Offload(Exception):
    """Raised while a request is processed on the event loop (``RequestContext.on_loop``) when
    answering it may take long: the connection then processes the request again, from the
    start, on a worker thread. Only raised before anything changed (the session included)."""
