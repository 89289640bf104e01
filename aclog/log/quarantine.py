"""Where a cut torn tail goes: a quarantine file beside its segment, never the void.

Before a writer cuts a torn tail off a segment, the bytes it cuts are copied to
``<segment>.<byte position>.quarantine`` (``.1``, ``.2``... appended when that name is taken)
and fsynced, so nothing that was on disk is destroyed: if a cut ever removes something that
mattered, it can be inspected (``aclog dump`` reads it as a segment) and restored by hand.
``aclog verify`` lists these files.

Thread-safe (functions over files). Cost: O(bytes quarantined) plus two fsyncs.
"""

from __future__ import annotations

import os
from pathlib import Path

from aclog.log import files
from aclog.log.durable import fsync_directory
from aclog.log.modes import open_private

SUFFIX = ".quarantine"


def quarantine_bytes(segment: Path, position: int, *, fsync: bool = True) -> Path:
    """Copy ``segment``'s bytes from ``position`` to its end into a new quarantine file and
    return that file's path. The segment is not changed."""
    with files.open_reader(segment) as source:
        source.seek(position)
        data = source.read()
    target, fd = _new_file(segment, position)
    try:
        files.write_all(fd, data, target)
        if fsync:
            files.fsync(fd, target)
    finally:
        os.close(fd)
    if fsync:
        fsync_directory(segment.parent)
    return target


def quarantine_name(segment: Path, position: int, attempt: int = 0) -> str:
    """The file name the bytes of ``segment`` from ``position`` are quarantined under."""
    return f"{segment.name}.{position}" + (f".{attempt}" if attempt else "") + SUFFIX


def _new_file(segment: Path, position: int) -> tuple[Path, int]:
    for attempt in range(1000):
        target = segment.with_name(quarantine_name(segment, position, attempt))
        try:
            return target, open_private(target, os.O_WRONLY | os.O_EXCL)
        except FileExistsError:
            continue
    raise FileExistsError(f"too many quarantine files for {segment} at byte {position}")


def list_quarantined(directory: Path) -> list[Path]:
    """Every quarantine file in ``directory``, by name."""
    return sorted(p for p in directory.glob(f"*{SUFFIX}") if p.is_file())
