"""Replay failures: the log is not what the replayer expects.

:class:`ReplayError` means a bug or a corrupt log; it is never a client's fault.

Immutable; thread-safe.
"""

from __future__ import annotations


class ReplayError(Exception):
    """A record that cannot be applied to the state it meets; the message names the offset."""

    def __init__(self, message: str, offset: int | None = None) -> None:
        text = message if offset is None else f"offset {offset}: {message}"
        super().__init__(text)
        self.offset = offset
