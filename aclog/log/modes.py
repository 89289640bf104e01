"""Who may read a data directory: the owner only.

Segments, snapshots, quarantined bytes and the controller's files hold SCRAM salts and keys,
so a data directory is created 0700 and every file in it 0600, whatever the process umask
(``os.open``'s mode only ever loses bits to the umask, so the mode is set again explicitly).
Existing files keep the mode they have; :func:`loose_files` finds the ones others can read.

Creating a directory fsyncs its parent, so the directory entry (and with it every file a
writer then fsyncs in it) survives a power loss. Files go through :mod:`aclog.log.files`, so
none is opened through a symbolic link.

Thread-safe (functions over the file system). Cost: one ``chmod`` per creation, one parent
fsync per directory created.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from aclog.log import files

PRIVATE_DIRECTORY = 0o700
PRIVATE_FILE = 0o600


def make_private_directory(directory: Path) -> None:
    """Create ``directory`` (and missing parents) if needed; a directory this call creates is
    0700. An existing one is left as it is. The parent of each directory created is fsynced:
    until its entry is on disk, so is nothing in it."""
    if directory.is_dir():
        return
    missing = [directory, *(p for p in directory.parents if not p.is_dir())]
    for path in reversed(missing):
        try:
            files.mkdir(path, PRIVATE_DIRECTORY if path == directory else 0o777)
        except FileExistsError:
            if not path.is_dir():
                raise
            continue  # made meanwhile by someone else, who owns its durability
        if path == directory:
            os.chmod(directory, PRIVATE_DIRECTORY)
        files.fsync_directory(path.parent)


def open_private(path: Path, flags: int) -> int:
    """``os.open(path, flags | O_CREAT)``, making a file this call creates 0600.

    Returns the descriptor. With ``O_EXCL`` in ``flags`` an existing file raises
    ``FileExistsError``; without it an existing file keeps its mode."""
    created = not os.path.lexists(path)
    fd = files.open_fd(path, flags | os.O_CREAT, PRIVATE_FILE)
    if created or flags & os.O_EXCL:
        try:
            files.fchmod(fd, PRIVATE_FILE, path)
        except BaseException:
            os.close(fd)
            raise
    return fd


def write_private(path: Path, data: bytes) -> None:
    """Replace ``path``'s content with ``data`` (not fsynced), the file 0600 if it is new."""
    fd = open_private(path, os.O_WRONLY | os.O_TRUNC)
    try:
        files.write_all(fd, data, path)
    finally:
        os.close(fd)


def loose_files(directory: Path) -> list[tuple[Path, int]]:
    """``directory`` itself and the files directly in it that group or others may read or
    write, sorted by name, each with its permission bits."""
    loose = []
    for path in [directory, *sorted(directory.iterdir())]:
        try:
            mode = path.lstat().st_mode
        except FileNotFoundError:
            continue  # removed while we looked
        if stat.S_IMODE(mode) & 0o077 and (path == directory or stat.S_ISREG(mode)):
            loose.append((path, stat.S_IMODE(mode)))
    return loose
