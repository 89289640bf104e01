"""Leaving no trace: what a command that may create a data directory (and its missing parents)
removes again when it writes nothing there, and what a writer that committed nothing to a
directory that was empty created in it.

Not thread-safe (for one command's process, which holds the log's lock while it empties a
directory). Cost: a ``stat`` per missing parent; a removal walks what was created.
"""

from __future__ import annotations

import shutil
from pathlib import Path


def first_missing(path: Path) -> Path | None:
    """The outermost of ``path`` and its parents that does not exist (``None``: it exists):
    what creating ``path`` creates, and so what :func:`remove_created` removes."""
    missing = None
    absolute = path.absolute()
    for candidate in (absolute, *absolute.parents):
        if candidate.exists():
            return missing
        missing = candidate
    return missing


def remove_created(created: Path | None) -> None:
    """Remove ``created`` (:func:`first_missing` before the command ran) and all below it."""
    if created is not None:
        shutil.rmtree(created, ignore_errors=True)


def empty_directory(directory: Path) -> None:
    """Remove everything in ``directory``: what a writer that committed nothing created in a
    directory that was empty before it opened, so a failed write leaves it empty."""
    for entry in directory.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
