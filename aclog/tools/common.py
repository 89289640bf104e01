"""Options and plumbing shared by the commands that open a data directory."""

from __future__ import annotations

import getpass
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from aclog.controller.controller import Caller, Controller, LocalOperator
from aclog.controller.rebuild import RebuildError, Rebuilt, rebuild_image
from aclog.image import ApiError, ReplayError
from aclog.kraft import is_kraft_path
from aclog.log import CorruptLogError, LogError, LogLockedError
from aclog.records import RecordDecodeError
from aclog.tools.console import EXIT_FAILURE, EXIT_IO, EXIT_USAGE, fail, print_line
from aclog.tools.progress import estimated_end_offset, offsets_bar

DATA_DIR_ENV = "ACLOG_DATA_DIR"
"""The data directory of every command that takes ``--data-dir``, when the flag is not given."""

DataDir = Annotated[
    Path,
    typer.Option(
        "--data-dir", help="The aclog data directory (created if missing).", envvar=DATA_DIR_ENV
    ),
]
OptionalDataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="The aclog data directory (created if missing; default $ACLOG_DATA_DIR). "
        "Excludes --bootstrap-server.",
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
    return choice == "kraft" or (choice == "auto" and is_kraft_path(path))


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
    try:
        yield controller
    finally:
        controller.close()


def report_failures(failures: list[tuple[str, ApiError]]) -> None:
    """Print each failed item's Kafka error name and message on stderr; exit 1 if any."""
    for item, error in failures:
        name = getattr(error, "kafka_name", error.error.name)  # a code aclog does not know
        print_line(f"aclog: {item}: {name} ({error.code}): {error.message or ''}", stderr=True)
    if failures:
        raise typer.Exit(EXIT_FAILURE)


AtOffset = Annotated[
    int | None,
    typer.Option("--at-offset", min=0, help="The state as of this offset (whole batches)."),
]
AtTime = Annotated[
    str | None,
    typer.Option("--at-time", help="The state as of this time, e.g. 2026-11-21T10:00:00Z."),
]


def parse_time(text: str) -> int:
    """An ISO-8601 time (``Z`` or an offset; no zone means UTC) as ms since the epoch."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        fail(f"cannot read the time {text!r}; write it like 2026-11-21T10:00:00Z", EXIT_USAGE)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def load_state(
    data_dir: Path, at_offset: int | None, at_time: str | None, *, kraft: bool = False
) -> Rebuilt:
    """The state of ``data_dir`` (as of the given point), read without taking the writer lock;
    a progress bar shows on a terminal. ``kraft``: ``data_dir`` is a KRaft metadata log."""
    if not data_dir.is_dir():
        fail(f"no {'KRaft metadata' if kraft else 'data'} directory at {data_dir}", EXIT_USAGE)
    at_time_ms = None if at_time is None else parse_time(at_time)
    end = estimated_end_offset(data_dir)
    if end is not None and at_offset is not None:
        end = min(end, at_offset + 1)
    try:
        with offsets_bar("replaying", end) as on_offset:
            return rebuild_image(
                data_dir,
                at_offset=at_offset,
                at_time_ms=at_time_ms,
                on_warning=lambda message: print_line(f"aclog: warning: {message}", stderr=True),
                on_batch=None if on_offset is None else lambda b: on_offset(b.last_offset),
                kraft=kraft,
            )
    except (CorruptLogError, RecordDecodeError, ReplayError, RebuildError) as error:
        fail(f"cannot replay {data_dir}: {error}", EXIT_FAILURE)
    except OSError as error:
        fail(f"cannot read {data_dir}: {error}", EXIT_IO)
