"""Which directories a command may read as a log or start one in, with the exit-2 refusal
for each that may not (a file, a KRaft metadata directory, a directory of other files).

Thread-safe (functions over the file system). Cost: a directory listing and one small read.
"""

from __future__ import annotations

from pathlib import Path

from aclog.kraft import is_aclog_path, is_kraft_path
from aclog.log import LOCK_FILE, list_segments
from aclog.node import SECRET_FILE
from aclog.tools.console import EXIT_USAGE, fail, fail_os

_SIDE_FILES = frozenset({LOCK_FILE, SECRET_FILE})
"""Files aclog keeps beside a log that do not make one: a directory of only these is empty."""


def require_data_dir(data_dir: Path, *, kraft: bool = False) -> Path:
    """``data_dir``, if it is a directory; else exit 2 naming it (it is missing, or a file)."""
    try:
        if data_dir.is_dir():
            return data_dir
    except OSError as error:  # a parent that cannot be searched
        fail_os("read", error)
    kind = "KRaft metadata" if kraft else "data"
    what = "is not a directory" if data_dir.exists() else "does not exist"
    fail(f"no {kind} directory at {data_dir}: it {what}", EXIT_USAGE)


def holds_log(path: Path) -> bool:
    """Whether the directory ``path`` can be read as an aclog log: it holds log segments or
    what only a writer leaves (the recovery point, snapshots), or nothing but aclog's side
    files (:data:`_SIDE_FILES`: an empty log, as a writer would start it; ``serve`` may find
    its login secret put there first). A directory of other files is none. Cost: a directory
    listing and one small read."""
    if list_segments(path) or is_aclog_path(path):
        return True
    return all(entry.name in _SIDE_FILES for entry in path.iterdir())


def require_log(data_dir: Path, *, kraft: bool = False) -> Path:
    """``data_dir``, if it is a directory that reads as a log (:func:`holds_log`; ``kraft``: a
    KRaft metadata log, which its reader checks); else exit 2 naming it. A reader of a
    directory of other files (a mistyped ``--data-dir`` such as ``.``) would otherwise answer
    for an empty log."""
    require_data_dir(data_dir, kraft=kraft)
    if not kraft:
        refuse_other_files(data_dir)
    return data_dir


def not_a_log(path: Path) -> str:
    """What a reader says of a directory without a log."""
    return (
        f"{path} holds no log segments (files named like 00000000000000000000.log): not an "
        "aclog data directory; check the path (a writer starts a log only in a new or empty "
        "directory)"
    )


def refuse_other_files(data_dir: Path) -> None:
    """Exit 2 when the existing directory ``data_dir`` holds other files and no log
    (:func:`holds_log`): a writer would start its log among them (``--data-dir .`` in a
    project), and a reader would answer for an empty log."""
    try:
        if holds_log(data_dir):
            return
    except OSError as error:
        fail_os("read", error)
    fail(not_a_log(data_dir), EXIT_USAGE)


def refuse_kraft(data_dir: Path) -> None:
    """Exit 2 when ``data_dir`` is a KRaft metadata directory: a writer opening it would append
    to Kafka's own metadata log, and its recovery would cut a batch Kafka is still writing."""
    if is_kraft_path(data_dir):
        fail(
            f"{data_dir} is a KRaft metadata directory: aclog never writes there; "
            "copy it into a data directory with aclog import --from-kraft",
            EXIT_USAGE,
        )


def require_log_target(data_dir: Path) -> None:
    """Exit 2 when a writer must not start a log in ``data_dir``: a file in its place, a KRaft
    metadata directory, or a directory of other files. A missing or empty directory, or an
    aclog log, passes (``serve``, ``quickstart`` and ``demo`` create a missing one)."""
    if data_dir.exists():
        require_data_dir(data_dir)
    refuse_kraft(data_dir)  # named as such, before it is called a directory of other files
    if data_dir.exists():
        refuse_other_files(data_dir)
