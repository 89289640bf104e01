"""What ``aclog plan``, ``aclog apply`` and ``aclog export`` share: reading a desired-state file
and its passwords with the CLI's exit codes, and reading the current state of a data directory
or a cluster (:mod:`aclog.tools.remote`'s targets).

Exit codes: a file that cannot be used (YAML, schema, a password source) is usage (2), a file
that cannot be read follows the rule for every path, a cluster that cannot be reached is 3.

Not thread-safe: for the CLI's one command thread. Cost: reading the file, and rebuilding the
data directory's image or two describe requests.
"""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import typer

from aclog.desired import (
    CurrentState,
    DesiredState,
    DesiredStateError,
    Passwords,
    ReadError,
    load_desired,
    read_current,
    read_passwords,
)
from aclog.image import MetadataImage
from aclog.kraft import is_kraft_path
from aclog.tools.common import load_state
from aclog.tools.console import EXIT_FAILURE, EXIT_USAGE, fail, fail_os, print_line
from aclog.tools.remote import RemoteTarget, Target, open_admin
from aclog.tools.writing import local_caller


def read_desired(path: Path) -> tuple[DesiredState, Passwords]:
    """The validated file and the passwords it points at; every problem at once, exit 2."""
    try:
        desired = load_desired(path)
        return desired, read_passwords(desired)
    except DesiredStateError as error:
        fail_lines(error.messages, EXIT_USAGE)
    except OSError as error:
        fail_os("read", error)


def fail_lines(messages: list[str], code: int) -> NoReturn:
    """Each message as its own ``aclog: ...`` line on stderr, then exit ``code``."""
    for message in messages:
        print_line(f"aclog: {message}", stderr=True)
    raise typer.Exit(code)


def read_target_state(
    target: Target, command: str, at_time: str | None = None, *, missing_is_empty: bool = False
) -> CurrentState:
    """The state of a data directory (as of ``at_time``, read without the lock) or a cluster.
    ``missing_is_empty``: a data directory that does not exist yet holds nothing (a plan for a
    directory that apply will create)."""
    if not isinstance(target, RemoteTarget):
        if missing_is_empty and not target.exists():
            print_line(
                f"aclog: {target} does not exist yet: planning from an empty state", stderr=True
            )
            return CurrentState.from_image(MetadataImage.EMPTY)
        kraft = is_kraft_path(target)
        return CurrentState.from_image(load_state(target, None, at_time, kraft=kraft).image)
    with open_admin(target) as admin:
        try:
            return read_current(admin, local_caller(command))
        except ReadError as error:
            fail(f"{target.bootstrap}: {error}", EXIT_FAILURE)


def target_name(target: Target) -> str:
    return target.bootstrap if isinstance(target, RemoteTarget) else str(target)
