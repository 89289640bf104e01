"""Errors shared by every layer above the records: replay failures and Kafka API error codes.

:class:`ReplayError` means the log is not what the replayer expects (a bug or a corrupt log); it is
never a client's fault. :class:`Errors` and :class:`ApiError` are the per-item results a controller
operation hands back to a client, with Kafka's codes (``clients/.../protocol/Errors.java``).

Immutable; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar


class ReplayError(Exception):
    """A record that cannot be applied to the state it meets; the message names the offset."""

    def __init__(self, message: str, offset: int | None = None) -> None:
        text = message if offset is None else f"offset {offset}: {message}"
        super().__init__(text)
        self.offset = offset


class Errors(IntEnum):
    """The Kafka error codes aclog can return, with Kafka's names and numbers."""

    UNKNOWN_SERVER_ERROR = -1
    NONE = 0
    CLUSTER_AUTHORIZATION_FAILED = 31
    UNSUPPORTED_SASL_MECHANISM = 33
    UNSUPPORTED_VERSION = 35
    NOT_CONTROLLER = 41
    INVALID_REQUEST = 42
    SECURITY_DISABLED = 54
    RESOURCE_NOT_FOUND = 91
    DUPLICATE_RESOURCE = 92
    UNACCEPTABLE_CREDENTIAL = 93


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
