"""Options and plumbing shared by the commands that open a data directory."""

from __future__ import annotations

import getpass
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from aclog.controller.controller import Caller, Controller, LocalOperator
from aclog.image import ApiError, ReplayError
from aclog.log import CorruptLogError, LogError, LogLockedError
from aclog.records import RecordDecodeError
from aclog.tools.console import EXIT_FAILURE, EXIT_IO, err, fail

DataDir = Annotated[
    Path,
    typer.Option(
        "--data-dir", help="The aclog data directory (created if missing).", envvar="ACLOG_DATA_DIR"
    ),
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def local_caller(command: str) -> Caller:
    """The caller recorded for a command run directly on a data directory."""
    return Caller(f"User:{getpass.getuser()}", "local", "aclog-cli", command)


@contextmanager
def open_controller(data_dir: Path) -> Iterator[Controller]:
    """The controller of ``data_dir``, with clear exits for the errors a user can meet.

    Whoever can write the data directory administers it, so the local operator acts as a super
    user (Kafka's ``kafka-storage``/``--bootstrap-controller`` tools have the same standing).
    """
    try:
        controller = Controller.open(data_dir, authorizer=LocalOperator())
    except LogLockedError as error:
        fail(str(error), EXIT_IO)
    except (CorruptLogError, RecordDecodeError, ReplayError) as error:
        fail(f"cannot load {data_dir}: {error}", EXIT_FAILURE)
    except (LogError, OSError) as error:
        fail(f"cannot open {data_dir}: {error}", EXIT_IO)
    if controller.log.recovery is not None:
        err.print(f"aclog: {controller.log.recovery}", markup=False)
    try:
        yield controller
    finally:
        controller.close()


def report_failures(failures: list[tuple[str, ApiError]]) -> None:
    """Print each failed item's Kafka error name and message on stderr; exit 1 if any."""
    for item, error in failures:
        err.print(
            f"aclog: {item}: {error.error.name} ({error.code}): {error.message or ''}", markup=False
        )
    if failures:
        raise typer.Exit(EXIT_FAILURE)
