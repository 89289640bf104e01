"""The ``aclog`` entry point run in-process as a shell runs it (argv and stdin in; exit code,
stdout and stderr out), and a fingerprint of a directory tree to show a command left it alone.

Going through :func:`aclog.tools.main.main` rather than the typer app means a test sees what a
user sees, last line of defence included. Typer builds the click command tree from the
annotations on every call of the app (about 45 ms here); a process does that once, so the
harness builds it once too and hands ``main`` the built tree."""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

import typer
from typer.testing import CliRunner

from aclog.tools import main as entry_point


class _BuiltApp:
    """The ``aclog`` app with its click command built once; called as ``main`` calls the app."""

    def __init__(self) -> None:
        self.command = typer.main.get_command(entry_point.app)

    def __call__(self) -> object:
        return self.command.main(prog_name="aclog")


_BUILT: _BuiltApp | None = None


@dataclass(frozen=True)
class Run:
    """How one command line ended."""

    code: int
    stdout: str
    stderr: str


def run_main(*argv: str, stdin: bytes | str | None = None, cwd: Path | None = None) -> Run:
    """Run ``aclog ARGV`` in this process, without ``$ACLOG_DATA_DIR``, in ``cwd``."""
    runner = CliRunner()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        streams = stack.enter_context(runner.isolation(input=stdin, env={"ACLOG_DATA_DIR": None}))
        saved, sys.argv = sys.argv, ["aclog", *argv]
        saved_app, entry_point.app = entry_point.app, _built()  # type: ignore[assignment]
        try:
            entry_point.main()
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        finally:
            sys.argv, entry_point.app = saved, saved_app
        stdout, stderr = streams[0], streams[1]
        return Run(
            code,
            stdout.getvalue().decode("utf-8", "replace"),
            stderr.getvalue().decode("utf-8", "replace"),
        )


def _built() -> _BuiltApp:
    global _BUILT  # noqa: PLW0603  (built on first use, after every command registered)
    if _BUILT is None:
        _BUILT = _BuiltApp()
    return _BUILT


def tree_digest(root: Path) -> dict[str, str]:
    """Every path under ``root`` (relative) with its kind, mode and, for files, a hash of its
    bytes: equal digests mean nothing was created, removed, changed or re-permissioned."""
    found: dict[str, str] = {}
    for directory, names, files in os.walk(root):
        for name in names + files:
            path = Path(directory, name)
            info = path.lstat()
            kind = "dir" if stat.S_ISDIR(info.st_mode) else "file"
            entry = f"{kind} {stat.S_IMODE(info.st_mode):o}"
            if stat.S_ISREG(info.st_mode):
                entry += " " + hashlib.sha256(path.read_bytes()).hexdigest()
            found[str(path.relative_to(root))] = entry
    return found


def tree_stamps(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every path under ``root`` (relative) with its size, mtime in nanoseconds and, for files,
    a hash of its bytes: equal stamps mean nothing was created, removed, rewritten or touched
    (a rewrite of the same bytes still moves the mtime, which backup and sync tools act on)."""
    found: dict[str, tuple[int, int, str]] = {}
    for directory, names, files in os.walk(root):
        for name in names + files:
            path = Path(directory, name)
            info = path.lstat()
            digest = "dir"
            if stat.S_ISREG(info.st_mode):
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            found[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns, digest)
    return found
