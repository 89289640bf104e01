"""Errors of the log layer. Each message says where the problem is and what to do."""

from __future__ import annotations

import errno


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


class DeposedError(FencedEpochError):
    """A newer leader took over while a shared writer of ``epoch`` appended (README, "Epoch
    fencing"): the first ``committed`` batches of its group end below the newer epoch's fence,
    so they are committed and may be acknowledged; the rest (``reason`` says why) are not part
    of the log and never will be. The writer is deposed: it steps down."""

    def __init__(self, epoch: int, newer_epoch: int, committed: int, reason: str) -> None:
        self.committed = committed
        LogError.__init__(
            self, f"the writer of epoch {epoch} was deposed by epoch {newer_epoch}: {reason}"
        )
        self.epoch = epoch
        self.latest_epoch = newer_epoch


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


class StorageError(LogError):
    """A file operation of an append, a roll or a truncation failed, and what it had written
    was undone: the log is as it was before, and accepts the next write.

    ``os_error`` is the operating system's error (its ``filename`` the file), ``path`` that
    file (``None`` when unknown)."""

    def __init__(self, action: str, os_error: OSError, outcome: str) -> None:
        self.os_error = os_error
        self.path = None if os_error.filename is None else str(os_error.filename)
        super().__init__(f"{action} failed: {describe_os_error(os_error)}; {outcome}")

    @property
    def condition(self) -> tuple[int | None, str | None]:
        """What failed, for logging a condition once: the error number and the file."""
        return self.os_error.errno, self.path


class WriterStoppedError(StorageError):
    """The writer stopped accepting writes (fail-stop): an fsync failed, so the durability of
    what it wrote is unknown, or a failed append could not be undone. Every acknowledged write
    is intact; a new writer (a restart) recovers the log when it opens it."""


def describe_os_error(error: OSError) -> str:
    """``No space left on device (ENOSPC) on /data/0000.log``: the OS error and its file."""
    name = errno_name(error.errno)
    where = f" on {error.filename}" if error.filename is not None else ""
    return f"{error.strerror or error}{f' ({name})' if name else ''}{where}"


def errno_name(number: int | None) -> str:
    """``ENOSPC`` for 28; an empty string for an unknown number."""
    return errno.errorcode.get(number, "") if number is not None else ""
