"""The rich consoles of :mod:`aclog.tools.console`, imported only when styled text is printed
(a failure, a table, a progress bar, a banner), so a command that prints plain lines never
imports rich.

No emoji: rich would turn ``:name:`` in a topic or principal into a picture.

Not thread-safe (rich consoles are shared state); the CLI prints from one thread. Cost: rich's
import, once.
"""

from __future__ import annotations

import sys

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text


class _Stdout(Console):
    """The data console: a reader that went away is left to :mod:`aclog.tools.closed_pipe`
    (rich would exit 1 on its own)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


class _Stderr(Console):
    """The diagnostics console: with nobody reading stderr, diagnostics are dropped and the
    command goes on (rich would exit 1 and point stdout, not stderr, at /dev/null)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True


out = _Stdout(highlight=False, soft_wrap=True, emoji=False)
err = _Stderr(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def print_failure(message: str) -> None:
    """``aclog: message`` on stderr, the prefix in bold red on a terminal; ``message`` is shown
    as it is (never read as markup)."""
    err.print(Text("aclog:", style="bold red"), Text(message))


def print_table(table: Table) -> None:
    """``table`` on stdout: on a terminal as wide as the terminal; on a pipe or in a file as
    wide as its cells need, so a script or a log never gets cells cut to 80 columns.
    Cost: one measurement of every cell more than printing."""
    if out.is_terminal:
        out.print(table)
        return
    options = out.options.update_width(_UNBOUNDED)
    width = Measurement.get(out, options, table).maximum
    Console(file=sys.stdout, width=width, highlight=False, emoji=False).print(table)


_UNBOUNDED = 1_000_000
"""Columns a pipe may take: any width a table asks for."""
