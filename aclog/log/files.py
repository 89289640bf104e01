"""The one seam every file operation of a data directory goes through.

The log, its indexes, segment rolls, the recovery point, quarantine files, the writer lock and
snapshots open, write, fsync, truncate, rename, create and remove files only through the
functions here, so that:

- every file is opened without following a symbolic link (``O_NOFOLLOW``): a link where a
  segment, index, snapshot or recovery point belongs is refused with its path, never read,
  truncated or written through;
- every failure names the file: an ``OSError`` raised here carries the path even when the
  operation was on a descriptor (the kernel's error has none);
- a failed fsync raises :class:`FsyncError`, so callers tell it apart from every other
  failure: after it the durability of what was written is unknown, and it must never be
  retried as if it had worked (the failure model, DESIGN.md section 5);
- reads go through it too (:func:`open_reader`, :func:`pread`), so a read error names its
  file as well;
- tests can fail any of them on purpose: :func:`injected` installs a :class:`Faults` plan that
  fails the Nth call (ENOSPC, EIO, a short write, an fsync error), or every call from the Nth.

Thread-safe (the plan is read once per call; tests install it from one thread). Cost: one
global lookup per call over the system call itself.
"""

from __future__ import annotations

import errno
import io
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, cast

_NO_LINKS = os.O_NOFOLLOW | os.O_CLOEXEC
KINDS = ("ENOSPC", "EIO", "short", "fsync")
"""The faults a :class:`Faults` plan injects: an error (ENOSPC or EIO) at any call, half of a
write's bytes then ENOSPC, or EIO from an fsync (any other call then fails with EIO)."""


class FsyncError(OSError):
    """An fsync failed: what was written since the last good one may or may not be on disk."""


class Faults:
    """A plan of injected failures, for tests: the ``fail_at``-th call through the seam (from 1;
    ``None`` fails nothing) fails with ``kind``, and with ``persist`` every later call too (a
    disk that stays broken). Only calls ``where`` accepts (operation, path) count, when given.
    ``calls`` records each counted call as (operation, path), so a first run without a fault
    tells a test how many calls an operation makes. Reads (operation ``read``) count only with
    ``reads``, so a walk over the calls of a write is not a walk over its reads too. Not
    thread-safe."""

    def __init__(
        self,
        fail_at: int | None = None,
        kind: str = "EIO",
        *,
        persist: bool = False,
        where: Callable[[str, str], bool] | None = None,
        reads: bool = False,
    ):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        self.fail_at, self.kind, self.persist, self.where = fail_at, kind, persist, where
        self.reads = reads
        self.calls: list[tuple[str, str]] = []
        self.failed = 0

    def check(self, operation: str, path: Path | str, size: int = 0) -> int:
        """Count a call; raise its injected error, or return how many of ``size`` bytes a
        write may write (fewer for a short write)."""
        if self.where is not None and not self.where(operation, str(path)):
            return size
        self.calls.append((operation, str(path)))
        n = len(self.calls)
        if self.fail_at is None or n < self.fail_at or (n > self.fail_at and not self.persist):
            return size
        self.failed += 1
        if self.kind == "short" and operation == "write" and n == self.fail_at and size > 1:
            return size // 2
        code = errno.ENOSPC if self.kind in ("ENOSPC", "short") else errno.EIO
        error_type = FsyncError if operation == "fsync" else OSError
        raise error_type(code, os.strerror(code), str(path))


_faults: Faults | None = None


@contextmanager
def injected(faults: Faults) -> Iterator[Faults]:
    """Route every call through ``faults`` while the block runs (tests only)."""
    global _faults  # noqa: PLW0603 - the seam's one switch
    previous, _faults = _faults, faults
    try:
        yield faults
    finally:
        _faults = previous


def _located(error: OSError, path: Path | str) -> OSError:
    """``error`` naming ``path`` (a descriptor's error names no file); a link refused by
    ``O_NOFOLLOW`` says so."""
    if error.errno == errno.ELOOP:
        reason = "is a symbolic link, and aclog follows no link inside a data directory"
        return OSError(errno.ELOOP, reason, str(path))
    if error.filename is not None:
        return error
    return type(error)(error.errno, error.strerror, str(path))


def open_fd(path: Path, flags: int, mode: int = 0o600) -> int:
    """``os.open`` without following a link at ``path``; returns the descriptor."""
    if _faults is not None:
        _faults.check("open", path)
    try:
        return os.open(path, flags | _NO_LINKS, mode)
    except OSError as error:
        raise _located(error, path) from None


def open_reader(path: Path, buffering: int = -1) -> io.BufferedReader:
    """``path`` opened for binary reading (a ``buffering``-byte buffer), without following a
    link; its reads go through the seam."""
    raw = _RawFile(open_fd(path, os.O_RDONLY), path)
    return io.BufferedReader(raw, buffering if buffering > 0 else io.DEFAULT_BUFFER_SIZE)


def pread(fd: int, size: int, offset: int, path: Path | str) -> bytes:
    """Up to ``size`` bytes at ``offset`` of ``fd`` (the file at ``path``)."""
    if _faults is not None and _faults.reads:
        _faults.check("read", path)
    try:
        return os.pread(fd, size, offset)
    except OSError as error:
        raise _located(error, path) from None


def read_bytes(path: Path) -> bytes:
    """The whole content of ``path``, without following a link."""
    with open_reader(path) as file:
        return file.read()


def write_all(fd: int, data: bytes | bytearray | memoryview, path: Path | str) -> None:
    """Write all of ``data`` to ``fd`` (the file at ``path``); a failure may leave a prefix of
    it written, which the caller undoes."""
    if _faults is None:  # the commit path: one write, no copies
        try:
            written = os.write(fd, data)
        except OSError as error:
            raise _located(error, path) from None
        if written == len(data):
            return
        data = memoryview(data)[written:]
    view = memoryview(data)
    allowed = len(view) if _faults is None else _faults.check("write", path, len(view))
    try:
        while view[:allowed]:
            written = os.write(fd, view[:allowed])
            if written == 0:  # no error, no progress: retrying would spin
                raise OSError(errno.EIO, "short write: the file took no more bytes", str(path))
            view, allowed = view[written:], allowed - written
    except OSError as error:
        raise _located(error, path) from None
    if view:  # an injected short write: the disk filled up part of the way
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


def pwrite(fd: int, data: bytes, offset: int, path: Path | str) -> None:
    """Write all of ``data`` at ``offset`` of ``fd`` (the file at ``path``)."""
    if _faults is not None and _faults.check("write", path, len(data)) < len(data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
    try:
        if os.pwrite(fd, data, offset) != len(data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
    except OSError as error:
        raise _located(error, path) from None


def fsync(fd: int, path: Path | str) -> None:
    """fsync ``fd`` (the file at ``path``); raises :class:`FsyncError` on failure."""
    if _faults is not None:
        _faults.check("fsync", path)
    try:
        os.fsync(fd)
    except OSError as error:
        raise FsyncError(error.errno, error.strerror, str(path)) from None


def fsync_directory(directory: Path) -> None:
    """Make creations, renames and removals in ``directory`` durable."""
    # The data directory itself may be a link (an operator's choice); the files in it may not.
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fsync(fd, directory)
    finally:
        os.close(fd)


def truncate(fd: int, size: int, path: Path | str) -> None:
    """Cut the file at ``path`` (open as ``fd``) to ``size`` bytes."""
    if _faults is not None:
        _faults.check("truncate", path)
    try:
        os.ftruncate(fd, size)
    except OSError as error:
        raise _located(error, path) from None


def replace(source: Path, target: Path) -> None:
    """Rename ``source`` over ``target`` (a link at ``target`` is replaced, not followed)."""
    if _faults is not None:
        _faults.check("rename", target)
    os.replace(source, target)


def link(source: Path, target: Path) -> None:
    """Make ``target`` a second name of ``source``; ``FileExistsError`` when ``target`` exists
    (an exclusive creation of a file whose content is already whole, unlike ``O_EXCL``)."""
    if _faults is not None:
        _faults.check("link", target)
    os.link(source, target, follow_symlinks=False)


def unlink(path: Path, *, missing_ok: bool = False) -> None:
    """Remove ``path`` (a link is removed itself, never its target)."""
    if _faults is not None:
        _faults.check("unlink", path)
    path.unlink(missing_ok=missing_ok)


def mkdir(path: Path, mode: int) -> None:
    """Create the directory ``path`` (its parent must exist)."""
    if _faults is not None:
        _faults.check("mkdir", path)
    os.mkdir(path, mode)


def fchmod(fd: int, mode: int, path: Path | str) -> None:
    """Set the mode of the file at ``path``, open as ``fd``."""
    if _faults is not None:
        _faults.check("chmod", path)
    try:
        os.fchmod(fd, mode)
    except OSError as error:
        raise _located(error, path) from None


class _RawFile(io.RawIOBase):
    """A descriptor as a raw file whose writes go through :func:`write_all` and whose reads
    go through the seam too (an error names the file; a plan with ``reads`` may fail one).
    Cost: one Python call per raw read, which a buffered reader makes once per buffer."""

    def __init__(self, fd: int, path: Path) -> None:
        self.fd, self.path = fd, path

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if _faults is not None and _faults.reads:
            _faults.check("read", self.path)
        try:
            return os.readv(self.fd, [buffer])
        except OSError as error:
            raise _located(error, self.path) from None

    def seekable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        write_all(self.fd, data, self.path)
        return len(memoryview(data))

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return os.lseek(self.fd, offset, whence)

    def fileno(self) -> int:
        return self.fd

    def close(self) -> None:
        if not self.closed:
            os.close(self.fd)
        super().close()


def open_writer(path: Path, fd: int) -> BinaryIO:
    """A buffered binary file over ``fd`` (open on ``path``) whose writes go through the seam."""
    raw: io.RawIOBase = _RawFile(fd, path)
    return cast(BinaryIO, io.BufferedWriter(raw, 1 << 16))
