"""A small real file system for full-disk tests: a tmpfs mounted for one test (needs root and
``mount``; otherwise :func:`tests.gates.unavailable` says so)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.gates import unavailable


@contextmanager
def small_tmpfs(mount_point: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (``192k``) mounted at ``mount_point`` (made here), unmounted after."""
    if os.geteuid() != 0:
        unavailable("the full-disk tests mount a tmpfs: run the tests as root to include them")
    mount_point.mkdir()
    command = ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(mount_point)]
    mounted = subprocess.run(command, capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        unavailable(f"the full-disk tests cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "--lazy", str(mount_point)], check=True)


def fill(mount_point: Path, leave: int = 0) -> Path:
    """Fill the file system at ``mount_point`` up to ``leave`` free bytes with one file (the
    operator's to delete); returns it."""
    filler = mount_point / "filler"
    free = os.statvfs(mount_point).f_bavail * os.statvfs(mount_point).f_frsize
    # Full a few blocks early is fine: full is what was asked for.
    with filler.open("wb") as file, contextlib.suppress(OSError):
        file.write(bytes(max(free - leave, 0)))
    return filler
