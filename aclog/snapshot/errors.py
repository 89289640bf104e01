"""Errors of the snapshot layer. Each message names the file and says what is wrong."""

from __future__ import annotations

from pathlib import Path


class SnapshotError(Exception):
    """Base class of every snapshot error."""


class SnapshotCorruptError(SnapshotError):
    """A snapshot file that must not be loaded: truncated, damaged, or of an unknown format.

    ``path`` is the file and ``reason`` what is wrong with it; the message says both.
    """

    def __init__(self, path: Path | str, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"snapshot {self.path} cannot be used: {reason}")


class NoUsableSnapshotError(SnapshotError):
    """No snapshot can be loaded and the log no longer starts at offset 0.

    Replaying the log alone would then silently miss the records that were deleted, so the
    state cannot be rebuilt from this data directory.
    """
