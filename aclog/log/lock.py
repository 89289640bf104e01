"""The one-writer-per-data-directory lock.

A writer holds an exclusive ``flock`` on ``.lock`` in the data directory; a second writer is
refused with the holder named, its pid found in the kernel's lock table (``/proc/locks``). The
file's bytes are never written, so a command that takes the lock and commits nothing leaves
every file of the directory as it was, mtime included. The kernel drops the lock when the
process dies, so a crash never leaves a stale lock behind. Readers take no lock.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
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
    """An exclusive lock on a data directory, held until :meth:`release`. Not thread-safe."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / LOCK_FILE
        fd = open_private(self.path, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
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


SHARED_LOCK_TIMEOUT = 10.0
"""Seconds a shared writer waits for another's turn before :class:`LogLockedError`."""


class SharedWriterLock:
    """The same lock file, held only while one mutation runs, so that several controllers can
    share a data directory and take turns: each append locks, re-reads the tail, checks its
    epoch and expected offset, writes and unlocks (an atomic compare-and-append); its fsync
    runs after the lock is released, and readers and followers never take it.

    Not thread-safe: one thread per instance. A holder frozen while it holds the lock (a check
    and a write into page cache: microseconds) blocks the others' appends until it resumes or
    dies; :meth:`acquire` gives up after ``timeout`` seconds (default
    :data:`SHARED_LOCK_TIMEOUT`) with :class:`LogLockedError`.
    """

    def __init__(self, directory: Path, timeout: float | None = None) -> None:
        self.directory = directory
        self.path = directory / LOCK_FILE
        self.timeout = SHARED_LOCK_TIMEOUT if timeout is None else timeout
        self._fd = open_private(self.path, os.O_RDWR)

    def acquire(self) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = lock_holder(self._fd)
                    raise LogLockedError(str(self.directory), holder, self.timeout) from None
                time.sleep(0.001)

    def release(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        """Close the lock file (idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class DirectoryLocks:
    """The lock a writer holds on its data directory, in either mode: exclusive
    (:class:`WriterLock`, from open to close) or ``shared`` (:class:`SharedWriterLock`, one
    mutation at a time). Not thread-safe: one writer owns it. Cost: a ``flock`` per mutation
    when shared, nothing otherwise.
    """

    def __init__(self, directory: Path, *, shared: bool) -> None:
        self._exclusive = None if shared else WriterLock(directory)
        self._shared = SharedWriterLock(directory) if shared else None

    @property
    def shared(self) -> bool:
        """Whether writers take turns (the lock is held one mutation at a time)."""
        return self._shared is not None

    @contextmanager
    def turn(self, refresh: Callable[[], None] | None = None) -> Iterator[None]:
        """Run one mutation: when shared, under the lock, ``refresh`` first (the writer's
        fresh view of the tail others may have changed); exclusive, just run it."""
        if self._shared is None:
            yield
            return
        self._shared.acquire()
        try:
            if refresh is not None:
                refresh()
            yield
        finally:
            self._shared.release()

    def release(self) -> None:
        """Give up the lock for good (idempotent)."""
        if self._exclusive is not None:
            self._exclusive.release()
        if self._shared is not None:
            self._shared.close()
