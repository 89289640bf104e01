"""Small files that must survive a crash whole: written beside the log, replaced atomically.

A reader sees the old content or the new one, never a mix, and after :func:`replace_file`
returns the new content survives power loss (the file and its directory entry are fsynced).
Every operation goes through :mod:`aclog.log.files`.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from aclog.log import files
from aclog.log.modes import open_private


def fsync_path(path: Path) -> None:
    """Flush what was written to the file at ``path`` to disk."""
    fd = files.open_fd(path, os.O_RDONLY)
    try:
        files.fsync(fd, path)
    finally:
        os.close(fd)


def fsync_directory(directory: Path) -> None:
    """Make renames and creations in ``directory`` durable."""
    # A rename survives a crash only once the directory entry is on disk.
    files.fsync_directory(directory)


def write_synced(path: Path, data: bytes, flags: int = 0) -> None:
    """Write ``data`` to the file at ``path`` (created 0600, opened with ``flags`` besides
    ``O_WRONLY``: ``O_TRUNC``, ``O_EXCL``) and fsync it."""
    fd = open_private(path, os.O_WRONLY | flags)
    try:
        files.write_all(fd, data, path)
        files.fsync(fd, path)
    finally:
        os.close(fd)


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, rename it over ``path``
    and fsync the directory. Raises ``OSError``; the temporary file never outlives a failure.
    Cost: two fsyncs."""
    temp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        write_synced(temp, data, os.O_TRUNC)
        files.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)


def publish_file(path: Path, data: bytes) -> bool:
    """Create ``path`` holding ``data`` unless it exists: True when this call created it.
    Readers never see it half-written (a hard link of a whole, fsynced temporary file, exclusive
    as ``O_EXCL`` is), and it survives power loss once this returns. Cost: two fsyncs."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    write_synced(temp, data, os.O_EXCL)
    try:
        files.link(temp, path)
        created = True
    except FileExistsError:
        created = False
    finally:
        files.unlink(temp, missing_ok=True)
    # Whoever created it may not have fsynced its name yet: nobody acts on a file that a power
    # loss could still take back.
    files.fsync_directory(path.parent)
    return created
