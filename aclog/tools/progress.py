"""Progress on stderr while a person waits: a bar with a total and an ETA for work over the log's
offsets, a spinner with the elapsed time for waits without a measurable total (a connection, the
Spark start-up). Shown only when stderr is a terminal; on a pipe or a file nothing is drawn and
the callbacks are ``None``, so scripts and logs see only what the command prints.

The display never redirects stdout (rich's default would send a command's data to stderr while
a bar is up); a command that writes data while a bar runs shows it only when its stdout is not
the same terminal (:func:`stdout_is_free`). Diagnostics written through ``sys.stderr`` while a
bar is up print above it.

Every text shown is plain (never rich markup) and escaped by :func:`~aclog.tools.visible.visible`.

Not thread-safe: one display at a time, for the CLI's one command thread (rich refreshes it from
its own thread). Cost: nothing off a terminal; on one, an update per batch (a lock and a few
assignments) and ten redraws a second.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Protocol

from aclog.tools import console
from aclog.tools.visible import visible

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, ProgressColumn


class OnOffset(Protocol):
    """Told the last offset done so far and, for work in several passes, which pass it is."""

    def __call__(self, last_offset: int, what: str | None = None) -> None: ...


err: Console | None = None
"""The console progress draws on: ``None`` for the CLI's stderr console (a test sets another)."""


def shown() -> bool:
    """Whether progress is drawn: stderr is a terminal (rich's answer, asked only when stderr
    may be one, so a command on a pipe never imports rich)."""
    forced = "FORCE_COLOR" in os.environ or os.environ.get("TTY_COMPATIBLE") == "1"
    return (forced or sys.stderr.isatty() or err is not None) and _err().is_terminal


def _err() -> Console:
    return console.err if err is None else err


def stdout_is_free() -> bool:
    """Whether a command that writes to stdout while it works may show progress: stdout goes
    to a pipe or a file, so the bar does not fight the data for the terminal."""
    return shown() and not sys.stdout.isatty()


def _display(columns: Callable[[ModuleType], list[ProgressColumn]]) -> Progress:
    """A display of the ``columns(rich.progress)`` (rich: imported only when one is drawn)."""
    import rich.progress as bars  # noqa: PLC0415

    return bars.Progress(
        *columns(bars), console=_err(), transient=True, redirect_stdout=False, redirect_stderr=True
    )


@contextmanager
def offsets_bar(what: str, end_offset: int | None) -> Iterator[OnOffset | None]:
    """A bar over offsets up to ``end_offset`` (an estimate is fine: the total grows when it is
    passed), counted from the first offset reported, again from the start of each new pass (a
    new ``what``); a spinner while the end is unknown. Yields ``None`` off a terminal."""
    if not shown():
        yield None
        return
    line = "{task.fields[what]}: offset {task.fields[offset]} of {task.fields[end]}"
    with _display(lambda bars: [
        bars.SpinnerColumn(), bars.TextColumn(line, markup=False), bars.BarColumn(),
        bars.TaskProgressColumn(), bars.TextColumn("ETA"), bars.TimeRemainingColumn(),
        bars.TimeElapsedColumn(),
    ]) as progress:  # fmt: skip
        end = "?" if end_offset is None else f"{end_offset:,}"
        task = progress.add_task(what, total=None, offset="-", what=what, end=end)
        passing, start = what, -1

        def update(last_offset: int, what: str | None = None) -> None:
            nonlocal passing, start
            if start < 0 or (what is not None and what != passing):
                passing, start = what or passing, last_offset
                progress.reset(task, what=passing, offset=f"{last_offset:,}", end=end)
                if end_offset is not None and end_offset > last_offset:
                    progress.update(task, total=end_offset - last_offset)
            done = last_offset - start
            total = progress.tasks[0].total
            if total is not None and done > total:
                progress.update(task, total=done)
            if end_offset is not None and last_offset > end_offset:  # the estimate was passed
                progress.update(task, end=f"{last_offset:,}")
            progress.update(task, completed=done, offset=f"{last_offset:,}")

        yield update


@contextmanager
def count_bar(what: str, total: int, unit: str) -> Iterator[Callable[[int], None] | None]:
    """A bar over ``total`` items (``unit``: what they are); yields ``advance(n)``."""
    if not shown():
        yield None
        return
    with _display(lambda bars: [
        bars.SpinnerColumn(), bars.TextColumn(visible(what), markup=False), bars.BarColumn(),
        bars.MofNCompleteColumn(), bars.TextColumn(visible(unit), markup=False),
        bars.TextColumn("ETA"), bars.TimeRemainingColumn(), bars.TimeElapsedColumn(),
    ]) as progress:  # fmt: skip
        task = progress.add_task(what, total=total)
        yield lambda n: progress.advance(task, n)


@contextmanager
def waiting(what: str) -> Iterator[Callable[[str], None]]:
    """A spinner saying what the command waits for, with the time waited so far; yields
    ``say(what)`` to name the next wait."""
    if not shown():
        yield lambda what: None
        return
    with _display(lambda bars: [
        bars.SpinnerColumn(), bars.TextColumn("{task.description}", markup=False),
        bars.TimeElapsedColumn(),
    ]) as progress:  # fmt: skip
        task = progress.add_task(visible(what), total=None)
        yield lambda what: progress.update(task, description=visible(what))
