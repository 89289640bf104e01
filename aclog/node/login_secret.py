"""The data directory's login secret: 32 random bytes in ``<data dir>/login-secret`` (mode 0600).

SCRAM logins use it to give a user that does not exist a salt of its own (see
:mod:`aclog.wire.scram`): derived from the secret, the salt is the same for that user on every
connection, after restarts and on every node that shares the directory, yet no client can tell
it from a stored one. Losing the file only changes those made-up salts; it protects no data.

The first :func:`load_login_secret` on a directory creates the file: written to a temporary
name (``O_CREAT | O_EXCL``, mode 0600), fsynced, then linked to its final name, so a node that
starts at the same moment on a shared directory never reads a half-written secret; whichever
link lands first is the secret every node uses.

Thread-safe (no shared state). Cost: one small file read, or a write and two fsyncs the first
time.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from aclog.log import files
from aclog.log.durable import fsync_directory

SECRET_FILE = "login-secret"
SECRET_BYTES = 32


class LoginSecretError(Exception):
    """The secret file exists but cannot be the login secret; the message says what to do."""


def load_login_secret(data_dir: Path) -> bytes:
    """The login secret of ``data_dir`` (an existing directory), created on first use. Raises
    :class:`LoginSecretError` for a file of the wrong size, ``OSError`` when it cannot be read
    or written."""
    path = data_dir / SECRET_FILE
    try:
        return _read(path)
    except FileNotFoundError:
        _create(path)
    return _read(path)


def _read(path: Path) -> bytes:
    with files.open_reader(path) as file:  # a link there is refused, never followed
        secret = file.read(SECRET_BYTES + 1)
    if len(secret) != SECRET_BYTES:
        size = f"{len(secret)} bytes" if len(secret) <= SECRET_BYTES else "too long"
        raise LoginSecretError(
            f"{path} is {size}, not {SECRET_BYTES}, so it is not aclog's login secret; move it "
            "away and aclog makes a new one (unknown SCRAM users then get new made-up salts)"
        )
    return secret


def _create(path: Path) -> None:
    """Write a fresh secret under ``path`` unless another process got there first."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = files.open_fd(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            files.write_all(fd, secrets.token_bytes(SECRET_BYTES), temporary)
            files.fsync(fd, temporary)
        finally:
            os.close(fd)
        # Atomic, and unlike a rename it never replaces a secret: if another node created
        # one first, that one stays and is used.
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    fsync_directory(path.parent)
