"""The Kafka error codes the listener sends besides the controller's, and how a request that
cannot be answered ends its connection.

Immutable; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from aclog.image import ApiError, Errors


class WireError(IntEnum):
    """Kafka error codes (``clients/.../protocol/Errors.java``) used only by the listener."""

    UNKNOWN_TOPIC_OR_PARTITION = 3
    TOPIC_AUTHORIZATION_FAILED = 29
    ILLEGAL_SASL_STATE = 34
    SASL_AUTHENTICATION_FAILED = 58
    UNKNOWN_TOPIC_ID = 100
    MISMATCHED_ENDPOINT_TYPE = 114
    UNSUPPORTED_ENDPOINT_TYPE = 115


@dataclass(frozen=True, slots=True)
class KafkaError:
    """An error code and the message sent with it (``None``: no message), for any Kafka code
    (the controller's :class:`~aclog.image.ApiError` knows only the codes it returns)."""

    code: int
    message: str | None = None

    @classmethod
    def of(cls, error: ApiError) -> KafkaError:
        """The same error as a controller result carries it."""
        return cls(error.code, error.message)


NONE = KafkaError(0)
UNKNOWN_SERVER_ERROR = KafkaError.of(ApiError.of(Errors.UNKNOWN_SERVER_ERROR))


class CloseConnection(Exception):
    """The request cannot be answered: Kafka closes the connection without a response (a
    malformed frame, an unknown API, a version that was not advertised, a request before SASL
    authentication, a request body Kafka's parser rejects). The message says why, for the log."""


class Offload(Exception):
    """Raised while a request is processed on the event loop (``RequestContext.on_loop``) when
    answering it may take long: the connection then processes the request again, from the
    start, on a worker thread. Only raised before anything changed (the session included)."""
