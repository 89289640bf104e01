"""The one-writer-per-data-directory lock.

A writer holds an exclusive ``flock`` on ``.lock`` in the data directory and writes its pid
there, so a second writer is refused with the holder named. The kernel drops the lock when the
process dies, so a crash never leaves a stale lock behind. Readers take no lock.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from aclog.log.errors import LogLockedError

LOCK_FILE = ".lock"


class WriterLock:
    """An exclusive lock on a data directory, held until :meth:`release`. Not thread-safe."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / LOCK_FILE
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
            os.close(fd)
            raise LogLockedError(
                str(directory), f"pid {holder}" if holder else "pid unknown"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd: int | None = fd

    def release(self) -> None:
        """Give up the lock (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
