"""Options and plumbing shared by the commands that open a data directory."""

from __future__ import annotations

import getpass
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from aclog.acl import ApiError
from aclog.controller import Caller, Controller, LocalOperator
from aclog.image import ReplayError
from aclog.kraft import is_kraft_path
from aclog.log import (
    CorruptLogError,
    LogError,
    estimated_end_offset,
    holds_recovery_point,
    list_segments,
)
from aclog.records import RecordDecodeError, gc_paused
from aclog.replay import RebuildError, Rebuilt, rebuild_image
from aclog.snapshot import SNAPSHOT_SUFFIX
from aclog.tools.console import (
    EXIT_FAILURE,
    EXIT_USAGE,
    fail,
    fail_os,
    print_line,
    print_warning,
)
from aclog.tools.exit_codes import fail_for
from aclog.tools.points import parse_point, show_point_note
from aclog.tools.points import parse_time as parse_time  # noqa: PLC0414  (pipeline imports it here)
from aclog.tools.progress import offsets_bar

DATA_DIR_ENV = "ACLOG_DATA_DIR"
"""The data directory of every command that takes ``--data-dir``, when the flag is not given."""

DataDir = Annotated[
    Path,
    typer.Option(
        "--data-dir", help="The aclog data directory.", envvar=DATA_DIR_ENV, readable=False
    ),
]
OptionalDataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="The aclog data directory (default $ACLOG_DATA_DIR; a command that adds creates "
        "it if missing, others refuse). Excludes --bootstrap-server.",
        readable=False,
    ),
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
SourceFormat = Annotated[
    str,
    typer.Option(
        "--format",
        help="aclog (a data directory), kraft (Kafka's __cluster_metadata-0 directory or a "
        ".checkpoint), or auto: kraft when the path looks like one.",
    ),
]


def is_kraft(path: Path, source_format: str) -> bool:
    """Whether ``path`` is read as a KRaft metadata log under ``--format``."""
    choice = source_format.strip().lower()
    if choice not in ("auto", "aclog", "kraft"):
        fail(f"unknown --format {source_format!r}; use aclog, kraft or auto", EXIT_USAGE)
    return choice == "kraft" or (choice == "auto" and (is_kraft_path(path) or _kraft_segment(path)))


def _kraft_segment(path: Path) -> bool:
    """A ``.log`` segment file of a KRaft metadata directory, given alone (as kafka-dump-log
    is given one): read as aclog's format, it failed with 'unknown frame version 0'."""
    return path.suffix == ".log" and path.is_file() and is_kraft_path(path.parent)


def is_aclog_path(path: Path) -> bool:
    """Whether ``path`` is an aclog data directory: it holds aclog's recovery point (every
    directory a writer opened does) or aclog snapshots. The other direction is
    :func:`aclog.kraft.is_kraft_path`. Cost: a directory listing and one small read."""
    if not path.is_dir():
        return False
    if holds_recovery_point(path):
        return True
    return any(entry.name.endswith(SNAPSHOT_SUFFIX) for entry in path.iterdir())


def local_caller(command: str) -> Caller:
    """The caller recorded for a command run directly on a data directory."""
    return Caller(f"User:{getpass.getuser()}", "local", "aclog-cli", command)


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
    what only a writer leaves (the recovery point, snapshots), or nothing at all (an empty
    log, as a writer would start it). A directory of other files is none. Cost: a directory
    listing and one small read."""
    return bool(list_segments(path)) or is_aclog_path(path) or not any(path.iterdir())


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


@contextmanager
def open_controller(data_dir: Path, *, create: bool = False) -> Iterator[Controller]:
    """The controller of ``data_dir`` (a writer: it takes the lock), with clear exits for the
    errors a user can meet. ``create``: a missing directory is made, and removed again when
    the command commits nothing (a failed write leaves no trace); otherwise it is exit 2, and
    so is a KRaft metadata directory or one of other files (:func:`refuse_other_files`).

    Whoever can write the data directory administers it, so the local operator acts as a super
    user (Kafka's ``kafka-storage``/``--bootstrap-controller`` tools have the same standing).
    """
    created = _first_missing(data_dir) if create else None
    was_empty = False
    if created is None:
        require_data_dir(data_dir)
        refuse_kraft(data_dir)
        refuse_other_files(data_dir)
        was_empty = not any(data_dir.iterdir())
    try:
        with _opening_errors(data_dir):
            controller = Controller.open(data_dir, authorizer=LocalOperator())
    except BaseException:
        _remove_created(created)
        raise
    start = controller.log.end_offset
    try:
        yield controller
    finally:
        committed = controller.log.end_offset > start
        if not committed and was_empty:  # the log's files, removed while the lock is held
            _empty(data_dir)
        controller.close()
        if not committed:
            _remove_created(created)


@contextmanager
def _opening_errors(data_dir: Path) -> Iterator[None]:
    try:
        yield
    except (LogError, RecordDecodeError, ReplayError, OSError) as error:
        fail_for(error, f"open {data_dir}")


def _first_missing(path: Path) -> Path | None:
    """The outermost of ``path`` and its parents that does not exist (``None``: it exists)."""
    missing = None
    absolute = path.absolute()
    for candidate in (absolute, *absolute.parents):
        if candidate.exists():
            return missing
        missing = candidate
    return missing


def _empty(directory: Path) -> None:
    """Remove what a writer that committed nothing created in ``directory``, which was empty
    before it opened: a failed write to an empty directory leaves it empty."""
    for entry in directory.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def _remove_created(created: Path | None) -> None:
    """Remove what this command created for a log it then did not write to."""
    if created is not None:
        shutil.rmtree(created, ignore_errors=True)


@contextmanager
def removed_on_failure(path: Path | None) -> Iterator[Callable[[], None]]:
    """Run a command that may create ``path`` (and its missing parents): when it fails (an
    exception, or an exit other than 0) before it calls the ``keep`` this yields, what it
    created is removed again, so a failed command leaves nothing behind; a directory that
    existed before is never removed. ``None``: no path, nothing to remove.

    Not thread-safe (one command per process). Cost: a few ``stat`` calls."""
    created = None if path is None else _first_missing(path)
    kept = False

    def keep() -> None:
        nonlocal kept
        kept = True

    try:
        yield keep
    except BaseException as error:
        if not kept and not _succeeded(error):
            _remove_created(created)
        raise


def _succeeded(error: BaseException) -> bool:
    """An exit with code 0 (typer's or ``sys.exit``'s) ends a command that succeeded."""
    code = getattr(error, "exit_code", getattr(error, "code", None))
    return isinstance(error, typer.Exit | SystemExit) and code in (0, None)


def report_failures(failures: list[tuple[str, ApiError]]) -> None:
    """Print each failed item's Kafka error name and message on stderr; exit 1 if any."""
    for item, error in failures:
        name = getattr(error, "kafka_name", error.error.name)  # a code aclog does not know
        print_line(f"aclog: {item}: {name} ({error.code}): {error.message or ''}", stderr=True)
    if failures:
        raise typer.Exit(EXIT_FAILURE)


AtOffset = Annotated[
    int | None,
    typer.Option(
        "--at-offset",
        min=0,
        help="The state as of this offset (whole batches); not with --at-time.",
    ),
]
AtTime = Annotated[
    str | None,
    typer.Option(
        "--at-time",
        help="The state as of this time: epoch milliseconds (1795609903621) or ISO-8601 "
        "(2026-11-21T10:00:00Z, any UTC offset; none means UTC).",
    ),
]


REPLAY_ERRORS: tuple[type[Exception], ...] = (
    CorruptLogError,
    RecordDecodeError,
    ReplayError,
    RebuildError,
    OSError,
)
"""What rebuilding a state from a data directory can raise for the data rather than for a bug:
every command that replays catches these and exits through
:func:`~aclog.tools.exit_codes.fail_for` (a damaged log is 1, never an internal error)."""


def load_state(
    data_dir: Path, at_offset: int | None, at_time: str | None, *, kraft: bool = False
) -> Rebuilt:
    """The state of ``data_dir`` as of the given point, read without taking the writer lock or
    writing anything; a note on stderr when the state is not quite the point given
    (:func:`aclog.tools.points.point_note`); a progress bar on a terminal. ``kraft``:
    ``data_dir`` is a KRaft metadata log."""
    require_log(data_dir, kraft=kraft)
    at_offset, at_time_ms = parse_point(at_offset, at_time)
    end = estimated_end_offset(data_dir)
    if end is not None and at_offset is not None:
        end = min(end, at_offset + 1)
    try:
        # A CLI command is a process edge: it pauses the collector the library leaves alone
        # (a rebuild frees little of what it allocates; see aclog.records.collector).
        with offsets_bar("replaying", end) as on_offset, gc_paused():
            rebuilt = rebuild_image(
                data_dir,
                at_offset=at_offset,
                at_time_ms=at_time_ms,
                on_warning=print_warning,
                on_batch=None if on_offset is None else lambda b: on_offset(b.last_offset),
                kraft=kraft,
            )
    except REPLAY_ERRORS as error:
        fail_for(error, f"replay {data_dir}")
    last = rebuilt.image.provenance.last_offset
    show_point_note(data_dir, last, at_offset=at_offset, at_time_ms=at_time_ms, kraft=kraft)
    return rebuilt
