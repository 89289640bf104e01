"""Errors of the log layer. Each message says where the problem is and what to do."""

from __future__ import annotations


class LogError(Exception):
    """Base class of every log error."""


class CorruptLogError(LogError):
    """A batch the log acknowledged is damaged or missing; nothing is cut.

    ``path`` and ``position`` locate the damage; the message says so too.
    """

    def __init__(self, path: str, position: int, reason: str) -> None:
        self.path = path
        self.position = position
        self.reason = reason
        super().__init__(
            f"corrupt log segment {path} at byte {position}: {reason}. This is not a torn "
            "write, so aclog will not cut it away; restore the segment from a replica or "
            "backup, or copy the data directory and truncate it there on purpose "
            "(every batch before the damage is intact)"
        )


class FencedEpochError(LogError):
    """An append carried an epoch older than the newest epoch in the log."""

    def __init__(self, epoch: int, latest_epoch: int) -> None:
        self.epoch = epoch
        self.latest_epoch = latest_epoch
        super().__init__(
            f"append with epoch {epoch} refused: the log already holds epoch {latest_epoch}, "
            "so this writer has been deposed"
        )


class LogLockedError(LogError):
    """Another process holds the writer lock of the data directory."""

    def __init__(self, directory: str, holder: str) -> None:
        self.directory = directory
        self.holder = holder
        super().__init__(
            f"data directory {directory} is locked by another writer ({holder}); stop that "
            "process, or use a read-only command such as 'aclog dump'"
        )


class StaleOffsetError(LogError):
    """A conditional append found the log's end offset moved (another writer appended)."""

    def __init__(self, expected: int, actual: int) -> None:
        self.expected = expected
        self.actual = actual
        super().__init__(f"log end offset is {actual}, not the expected {expected}")
