"""Shared CLI plumbing: the typer app, the consoles, exit codes and error rendering.

Data goes to stdout, diagnostics to stderr. Exit codes: 0 ok, 1 a domain failure (a corrupt
log, a failed item), 2 a usage error, 3 an I/O or internal error. An operating-system error
follows one rule (:func:`os_error_code`): a path that is missing or of the wrong kind is a usage
error, one that exists but cannot be read or written is an I/O error.

Text that may hold names from the log or a cluster goes through :func:`print_line` (or
:func:`fail`): never read as rich markup or ``:emoji:`` codes, and with control characters
escaped (:mod:`aclog.tools.visible`).
"""

from __future__ import annotations

import errno
import json
import logging
import sys
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from aclog.tools.closed_pipe import QuietOnClosedPipe
from aclog.tools.commands import COMMANDS
from aclog.tools.help import exit_codes
from aclog.tools.lazy import LazyGroup, lazy_typer
from aclog.tools.visible import visible

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_IO = 3


class _AclogGroup(QuietOnClosedPipe, LazyGroup):
    """The ``aclog`` command group: each command imported only when it runs
    (:mod:`aclog.tools.lazy`), tidy help (:mod:`aclog.tools.help`) and a quiet exit when
    whoever reads stdout goes away (:mod:`aclog.tools.closed_pipe`)."""


app = lazy_typer(
    COMMANDS,
    cls=_AclogGroup,
    name="aclog",
    help="Keep, replay and question Kafka ACLs and SCRAM credentials as an event-sourced log.",
    epilog=exit_codes(),
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    out: Console
    """The data console (stdout): :data:`aclog.tools.consoles.out`."""
    err: Console
    """The diagnostics console (stderr): :data:`aclog.tools.consoles.err`."""


def __getattr__(name: str) -> Any:
    """``out`` and ``err``, the rich consoles, made on first use: a command that prints no
    styled text (``--version``, a listing) never imports rich."""
    if name in ("out", "err"):
        from aclog.tools import consoles  # noqa: PLC0415 - rich only when styled text is printed

        return getattr(consoles, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def counted(count: int, noun: str) -> str:
    """``1 ACL``, ``0 ACLs``, ``2 SCRAM users``: a count with its noun in the right number."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def print_line(text: str, *, stderr: bool = False) -> None:
    """One line for a person, on stdout (or stderr): ``text`` shown through :func:`visible`,
    so a name in it cannot break the line or reach the terminal as a control sequence.

    Written straight to ``sys.stdout`` (``sys.stderr``), looked up at each call so a test's
    capture or a progress display's redirection sees it: the text has no style, so rich would
    only add cost (a listing of a million lines took three times its ``--json``).
    Cost: one :func:`visible` scan and one buffered write.
    """
    if stderr:  # diagnostics are few, and must not wait in a buffer behind a crash
        sys.stderr.write(visible(text) + "\n")
        sys.stderr.flush()
    else:
        sys.stdout.write(visible(text) + "\n")


def fail(message: str, code: int) -> NoReturn:
    """Print ``aclog: message`` on stderr (the message as :func:`print_line` shows it) and
    exit with ``code``."""
    from aclog.tools.consoles import print_failure  # noqa: PLC0415 - rich only for a failure

    print_failure(visible(message))
    raise typer.Exit(code)


_WRONG_PATH = frozenset(
    {errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EEXIST, errno.ELOOP, errno.ENAMETOOLONG}
)
"""Errors that say the path given names nothing, or the wrong kind of thing."""


def os_error_code(error: OSError) -> int:
    """The exit code of an operating-system error: 2 when the path given is missing or of the
    wrong kind (a file where a directory belongs, or the reverse), else 3 (the path exists but
    cannot be read or written: permissions, a failing disk, a full file system)."""
    return EXIT_USAGE if error.errno in _WRONG_PATH else EXIT_IO


def fail_os(action: str, error: OSError) -> NoReturn:
    """``aclog: cannot <action> <path>: <reason>`` on stderr, exiting by :func:`os_error_code`."""
    path = "" if error.filename is None else f" {error.filename}"
    fail(f"cannot {action}{path}: {error.strerror or error}", os_error_code(error))


def print_table(table: Table) -> None:
    """``table`` on stdout: :func:`aclog.tools.consoles.print_table`."""
    from aclog.tools.consoles import print_table as print_rich_table  # noqa: PLC0415

    print_rich_table(table)


def print_warning(message: str) -> None:
    """A library warning on stderr as ``aclog: warning: ...``: the ``on_warning`` of every
    command (data on stdout, ``--json`` included, stays as it is)."""
    print_line(f"aclog: warning: {message}", stderr=True)


def print_json_line(value: Any) -> None:
    """One compact JSON object on its own line of stdout."""
    sys.stdout.write(json.dumps(value, separators=(", ", ": ")) + "\n")


def print_json(value: Any) -> None:
    """A JSON document on stdout."""
    sys.stdout.write(json.dumps(value, indent=2) + "\n")


class _LibraryWarnings(logging.Handler):
    """Shows the library's warnings (a torn tail cut on open, say) as ``aclog: warning: ...``
    on whatever ``sys.stderr`` is when they happen."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        level = record.levelname.lower()
        print_line(f"aclog: {level}: {record.getMessage()}", stderr=True)


_LIBRARY_WARNINGS = _LibraryWarnings()


def show_library_warnings(show: bool) -> None:
    """Print aclog's logged warnings on stderr (every command but ``serve``, which logs with
    its own format), or stop."""
    logger = logging.getLogger("aclog")
    if show and _LIBRARY_WARNINGS not in logger.handlers:
        logger.addHandler(_LIBRARY_WARNINGS)
    elif not show:
        logger.removeHandler(_LIBRARY_WARNINGS)


def _print_version(asked: bool) -> None:
    if asked:
        from importlib import metadata  # noqa: PLC0415 (only --version reads it)

        try:
            number = metadata.version("aclog")
        except metadata.PackageNotFoundError:  # run from a source tree that is not installed
            number = "unknown (not installed)"
        sys.stdout.write(f"aclog {number}\n")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print aclog's version and exit.",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """Keep, replay and question Kafka ACLs and SCRAM credentials as an event-sourced log."""
    del version  # handled by its callback
    show_library_warnings(True)
