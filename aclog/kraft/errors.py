"""Errors of the KRaft reader. Each message names the file and where in it the problem is."""

from __future__ import annotations

from pathlib import Path


class KraftError(Exception):
    """Base class of every error reading a KRaft metadata log or snapshot."""


class KraftFormatError(KraftError):
    """A record this build cannot decode: a bad frame, a newer version of a record type whose
    layout is unknown, or a body that does not parse.

    ``path``, ``offset``, ``api_key`` and ``version`` locate it (the last two are ``None`` when
    the frame itself is unreadable); the message says the same.
    """

    def __init__(
        self,
        path: Path | str | None,
        offset: int | None,
        reason: str,
        *,
        api_key: int | None = None,
        version: int | None = None,
    ) -> None:
        self.path = None if path is None else str(path)
        self.offset = offset
        self.api_key = api_key
        self.version = version
        self.reason = reason
        where = "KRaft record" if offset is None else f"KRaft record at offset {offset}"
        if self.path is not None:
            where = f"{self.path}: {where}"
        super().__init__(f"{where}: {reason}")


class KraftCorruptError(KraftError):
    """A damaged batch, a damaged snapshot, or a log with a hole in it.

    ``path`` and ``position`` (a byte position, or ``None``) locate the damage.
    """

    def __init__(self, path: Path | str, position: int | None, reason: str) -> None:
        self.path = str(path)
        self.position = position
        self.reason = reason
        where = self.path if position is None else f"{self.path} at byte {position}"
        super().__init__(f"cannot read KRaft metadata {where}: {reason}")


class KraftLayoutError(KraftError):
    """The directory cannot give the requested state: segments are missing below the log start
    and no snapshot covers them, or nothing there is a KRaft metadata log."""


class ImportTargetError(ValueError):
    """The target directory cannot receive an import (not empty, or inside the source)."""
