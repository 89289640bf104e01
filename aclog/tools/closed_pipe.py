"""What ``aclog`` does when whoever reads its stdout goes away (``aclog dump DIR | head -1``):
stop writing and exit 0 without a word, as ``cat`` stops, instead of reporting an error.

:class:`QuietOnClosedPipe` is the command group of the ``aclog`` app, so this is handled once,
around every command: a write that meets a closed pipe (``BrokenPipeError``, EPIPE) ends the
run, and stdout is flushed before the command returns, so that Python's own flush at exit,
which would print "Exception ignored ... BrokenPipeError" and exit 120, has nothing left to do.

Not thread-safe (it swaps file descriptor 1); the CLI runs one command per process. Cost: one
flush per command.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import typer
from typer.core import TyperGroup


class QuietOnClosedPipe(TyperGroup):
    """The ``aclog`` command group: a closed stdout ends the command quietly with exit 0."""

    def invoke(self, ctx: Any) -> Any:
        try:
            try:
                return super().invoke(ctx)
            finally:
                sys.stdout.flush()
        except BrokenPipeError:
            _discard_stdout()
            raise typer.Exit(0) from None  # the reader had enough: not a failure


def _discard_stdout() -> None:
    """Point file descriptor 1 at /dev/null: what is still buffered then goes nowhere instead of
    failing again when Python flushes stdout at exit."""
    try:
        descriptor = sys.stdout.fileno()
    except (OSError, ValueError):  # an in-memory stdout (tests) has no descriptor to swap
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)
