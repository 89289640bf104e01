"""The one-writer-per-data-directory lock.

A writer holds an exclusive ``flock`` on ``.lock`` in the data directory; a second writer is
refused with the holder named, its pid found in the kernel's lock table (``/proc/locks``). The
file's bytes are never written, so a command that takes the lock and commits nothing leaves
every file of the directory as it was, mtime included. The kernel drops the lock when the
process dies, so a crash never leaves a stale lock behind. Readers take no lock, nor do
controllers sharing a directory (:class:`DirectoryLocks`).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aclog.log.errors import LogLockedError
from aclog.log.modes import open_private

LOCK_FILE = ".lock"


def lock_holder(fd: int) -> str:
    """Who holds the ``flock`` on the open file ``fd``: ``pid N`` from the kernel's lock table,
    or ``pid unknown`` where there is none to read (not Linux) or it names no holder. Cost: one
    read of ``/proc/locks`` (a line per lock held on the machine)."""
    info = os.fstat(fd)
    inode = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as table:
            for line in table:
                # "1: FLOCK  ADVISORY  WRITE 4242 fe:00:5580135 0 EOF"; waiters have a "->".
                fields = line.split()
                if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == inode:
                    return f"pid {fields[4]}"
    except OSError:
        pass
    return "pid unknown"


class WriterLock:
    """A lock on a data directory, held until :meth:`release`: exclusive for its one writer,
    or, ``shared``, held by every controller sharing the directory, so that neither kind
    opens a directory the other kind writes. A shared lock never waits for, nor blocks,
    another shared one (a frozen controller holds up nobody). Not thread-safe."""

    def __init__(self, directory: Path, *, shared: bool = False) -> None:
        self.path = directory / LOCK_FILE
        fd = open_private(self.path, os.O_RDWR)
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = lock_holder(fd)
            os.close(fd)
            raise LogLockedError(str(directory), holder) from None
        self._fd: int | None = fd

    def release(self) -> None:
        """Give up the lock (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class DirectoryLocks:
    """The lock a writer holds on its data directory from open to close (:class:`WriterLock`):
    exclusive, or ``shared`` when several controllers share the directory; which of those may
    append is decided by epoch claims and fences, files that no held lock and no frozen process
    can block (:mod:`aclog.log.claims`, :mod:`aclog.log.takeover`), never by a lock per append.
    Not thread-safe: one writer owns it. Cost: nothing per mutation.
    """

    def __init__(self, directory: Path, *, shared: bool) -> None:
        self._lock = WriterLock(directory, shared=shared)
        self.shared = shared

    @contextmanager
    def turn(self) -> Iterator[None]:
        """Run one mutation (a lock taken at open covers it, or none is needed)."""
        yield

    def release(self) -> None:
        """Give up the lock for good (idempotent)."""
        self._lock.release()
