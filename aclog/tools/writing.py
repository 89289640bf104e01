"""How a command writes to a data directory: the controller it opens (and what it removes
again when it commits nothing), the caller it records, and how it reports rejected items.

Not thread-safe (one command per process). Cost: that of opening the controller (a replay).
"""

from __future__ import annotations

import getpass
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from aclog.acl import ApiError, Errors
from aclog.controller import Caller
from aclog.image import ReplayError
from aclog.log import LogError, empty_directory, first_missing, remove_created
from aclog.records import RecordDecodeError
from aclog.tools.console import EXIT_FAILURE, EXIT_IO, print_line
from aclog.tools.data_dirs import refuse_kraft, refuse_other_files, require_data_dir
from aclog.tools.exit_codes import fail_for

if TYPE_CHECKING:
    from aclog.controller import Controller


def local_caller(command: str) -> Caller:
    """The caller recorded for a command run directly on a data directory."""
    return Caller(f"User:{getpass.getuser()}", "local", "aclog-cli", command)


@contextmanager
def open_controller(data_dir: Path, *, create: bool = False) -> Iterator[Controller]:
    """The controller of ``data_dir`` (a writer: it takes the lock), with clear exits for the
    errors a user can meet. ``create``: a missing directory is made, and removed again when
    the command commits nothing (a failed write leaves no trace); otherwise it is exit 2, and
    so is a KRaft metadata directory or one of other files (:func:`refuse_other_files`).

    Whoever can write the data directory administers it, so the local operator acts as a super
    user (Kafka's ``kafka-storage``/``--bootstrap-controller`` tools have the same standing).
    """
    # imported here: the writer (quorum, admission) is not loaded by a command that only reads
    from aclog.controller import Controller, LocalOperator  # noqa: PLC0415

    created = first_missing(data_dir) if create else None
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
        remove_created(created)
        raise
    start = controller.log.end_offset
    try:
        yield controller
    finally:
        committed = controller.log.end_offset > start
        if not committed and was_empty:  # the log's files, removed while the lock is held
            empty_directory(data_dir)
        controller.close()
        if not committed:
            remove_created(created)


@contextmanager
def _opening_errors(data_dir: Path) -> Iterator[None]:
    try:
        yield
    except (LogError, RecordDecodeError, ReplayError, OSError) as error:
        fail_for(error, f"open {data_dir}")


@contextmanager
def removed_on_failure(path: Path | None) -> Iterator[Callable[[], None]]:
    """Run a command that may create ``path`` (and its missing parents): when it fails (an
    exception, or an exit other than 0) before it calls the ``keep`` this yields, what it
    created is removed again, so a failed command leaves nothing behind; a directory that
    existed before is never removed. ``None``: no path, nothing to remove.

    Not thread-safe (one command per process). Cost: a few ``stat`` calls."""
    created = None if path is None else first_missing(path)
    kept = False

    def keep() -> None:
        nonlocal kept
        kept = True

    try:
        yield keep
    except BaseException as error:
        if not kept and not _succeeded(error):
            remove_created(created)
        raise


def _succeeded(error: BaseException) -> bool:
    """An exit with code 0 (typer's or ``sys.exit``'s) ends a command that succeeded."""
    code = getattr(error, "exit_code", getattr(error, "code", None))
    return isinstance(error, typer.Exit | SystemExit) and code in (0, None)


def _kafka_description(code: int) -> str:
    """Kafka's own one-line description of an error code, for an answer that carried no message
    (Kafka sends none with CLUSTER_AUTHORIZATION_FAILED, for one)."""
    import kafka.errors  # noqa: PLC0415 - only on a failure: the CLI starts without it

    return str(getattr(kafka.errors.for_code(code), "description", "") or "")


def report_failures(failures: list[tuple[str, ApiError]]) -> None:
    """Print each failed item's Kafka error name and message on stderr; exit 1 if any, 3 when
    one is a storage failure (KAFKA_STORAGE_ERROR: the disk, not the request, is at fault)."""
    for item, error in failures:
        name = getattr(error, "kafka_name", error.error.name)  # a code aclog does not know
        message = error.message or _kafka_description(error.code)
        print_line(f"aclog: {item}: {name} ({error.code}): {message}", stderr=True)
    if any(error.error == Errors.KAFKA_STORAGE_ERROR for _, error in failures):
        raise typer.Exit(EXIT_IO)
    if failures:
        raise typer.Exit(EXIT_FAILURE)
