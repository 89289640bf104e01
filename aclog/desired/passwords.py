"""Reading the passwords a desired-state file points at: an environment variable, or the first
line of a file (relative paths are relative to the desired-state file's folder).

A password is held only in memory, long enough to check it against a stored credential or to
salt and hash it for an upsertion; it is never logged, printed or put into a plan.

Pure apart from reading the environment and files; thread-safe. Cost: one read per file.
"""

from __future__ import annotations

import os

from aclog.desired.nodes import DesiredStateError
from aclog.desired.state import DesiredState, PasswordSource
from aclog.records import ScramMechanism

Passwords = dict[tuple[str, ScramMechanism], str]
"""Passwords by (user, mechanism)."""


def read_passwords(desired: DesiredState) -> Passwords:
    """The password of every user whose entry names a source, by (user, mechanism).
    :class:`DesiredStateError` lists every source that cannot be read, with its line."""
    passwords: Passwords = {}
    problems = []
    for user in desired.users:
        if user.password is None:
            continue
        try:
            passwords[user.key] = _read(user.password)
        except ValueError as error:
            problems.append(f"{desired.path}:{user.line}: user {user.name!r}: {error}")
    if problems:
        raise DesiredStateError(problems)
    return passwords


def _read(source: PasswordSource) -> str:
    if source.env is not None:
        value = os.environ.get(source.env)
        if not value:
            raise ValueError(f"the environment variable {source.env} is not set or is empty")
        return value
    assert source.file is not None
    try:
        raw = source.file.read_bytes()
    except OSError as error:
        raise ValueError(
            f"cannot read password_file {source.file}: {error.strerror or error}"
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"password_file {source.file} is not UTF-8 text") from None
    first = text.splitlines()[0] if text else ""
    if not first:
        raise ValueError(f"password_file {source.file} has an empty first line")
    return first
