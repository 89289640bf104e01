"""The log's storage health: one loud line when writes start failing, one when they work again.

A full disk fails every append until space is freed; logging each failure would bury the first
one (and could fill what little space is left). :class:`StorageHealth` logs a condition (an
error number on a file) at ERROR the first time it is met, counts its repeats silently, logs
again at ERROR when a different condition replaces it, and at WARNING when an append succeeds
again, with the number of failures in between. A writer that stops (fail-stop) says so at
CRITICAL, once.

Not thread-safe: the log's single writer owns it. Cost: a tuple comparison per failure, one
attribute test per success.
"""

from __future__ import annotations

import logging

from aclog.log.errors import StorageError, WriterStoppedError

logger = logging.getLogger("aclog.log")


class StorageHealth:
    """The failure condition the writer of ``directory`` is in (``None``: healthy)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.condition: tuple[int | None, str | None] | None = None
        self.failures = 0

    def failed(self, error: StorageError) -> StorageError:
        """Note ``error`` (log it when its condition is new); returns it for ``raise``."""
        self.failures += 1
        if error.condition != self.condition:
            self.condition = error.condition
            level = logging.CRITICAL if isinstance(error, WriterStoppedError) else logging.ERROR
            logger.log(level, "STORAGE ERROR in %s: %s", self.directory, error)
        return error

    def succeeded(self) -> None:
        """Note a write that worked; log that the condition cleared if there was one."""
        if self.condition is not None:
            logger.warning(
                "storage of %s works again: an append succeeded after %d failed",
                self.directory,
                self.failures,
            )
            self.condition, self.failures = None, 0
