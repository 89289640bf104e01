"""Kafka's error codes, once for every layer: :class:`Errors` holds each code aclog sends
(``clients/.../protocol/Errors.java``, with Kafka's names and numbers) and :class:`ApiError` a
code with the message sent beside it. The controller hands them back per item, the listener puts
them on the wire, the CLI prints their names.

Immutable; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar


class Errors(IntEnum):
    """The Kafka error codes aclog can return, with Kafka's names and numbers."""

    UNKNOWN_SERVER_ERROR = -1
    NONE = 0
    UNKNOWN_TOPIC_OR_PARTITION = 3
    TOPIC_AUTHORIZATION_FAILED = 29
    CLUSTER_AUTHORIZATION_FAILED = 31
    UNSUPPORTED_SASL_MECHANISM = 33
    ILLEGAL_SASL_STATE = 34
    UNSUPPORTED_VERSION = 35
    NOT_CONTROLLER = 41
    INVALID_REQUEST = 42
    SECURITY_DISABLED = 54
    KAFKA_STORAGE_ERROR = 56
    SASL_AUTHENTICATION_FAILED = 58
    RESOURCE_NOT_FOUND = 91
    DUPLICATE_RESOURCE = 92
    UNACCEPTABLE_CREDENTIAL = 93
    UNKNOWN_TOPIC_ID = 100
    MISMATCHED_ENDPOINT_TYPE = 114
    UNSUPPORTED_ENDPOINT_TYPE = 115


@dataclass(frozen=True, slots=True)
class ApiError:
    """An error code plus the message sent with it (``None`` sends no message).

    Kafka never sends a message with UNKNOWN_SERVER_ERROR (it could leak internals), so
    :meth:`of` drops it for that code.
    """

    error: Errors
    message: str | None = None

    NONE: ClassVar[ApiError]

    @classmethod
    def of(cls, error: Errors, message: str | None = None) -> ApiError:
        """The error as Kafka would send it."""
        if error == Errors.UNKNOWN_SERVER_ERROR:
            return cls(error, None)
        return cls(error, message)

    @property
    def is_success(self) -> bool:
        """True for error code NONE."""
        return self.error == Errors.NONE

    @property
    def code(self) -> int:
        """The numeric code for the wire."""
        return int(self.error)

    def to_dict(self) -> dict[str, object]:
        """``{"error": "INVALID_REQUEST", "code": 42, "message": ...}`` for JSON output."""
        return {"error": self.error.name, "code": self.code, "message": self.message}


ApiError.NONE = ApiError(Errors.NONE, None)
UNKNOWN_SERVER_ERROR = ApiError.of(Errors.UNKNOWN_SERVER_ERROR)
"""What a request that failed unexpectedly is answered with (Kafka sends no message with it)."""
