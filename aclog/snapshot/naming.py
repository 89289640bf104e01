"""Snapshot file names: ``{last_offset:020d}-{epoch:010d}.snapshot.avro`` in the data directory.

``last_offset`` is the offset of the last record the snapshot contains (inclusive) and ``epoch``
the controller epoch of that record's batch, so names sort by offset like segment names do. A
snapshot is first written as ``<name>.tmp`` and renamed when complete; a ``.tmp`` file is never
a snapshot (a crash left it half written) and :func:`remove_stale_temp_files` deletes it.

Thread-safe (no shared state). Cost: listing is one ``scandir`` of the directory.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

SNAPSHOT_SUFFIX = ".snapshot.avro"
TEMP_SUFFIX = ".tmp"
_SNAPSHOT_NAME = re.compile(r"^(\d{20})-(\d{10})\.snapshot\.avro$")
_TEMP_NAME = re.compile(r"^\d{20}-\d{10}\.snapshot\.avro\.tmp$")


@dataclass(frozen=True, slots=True, order=True)
class SnapshotId:
    """A snapshot file as its name describes it; sorts by (last_offset, epoch)."""

    last_offset: int
    epoch: int
    path: Path


def snapshot_file_name(last_offset: int, epoch: int) -> str:
    """``00000000000000000041-0000000003.snapshot.avro`` for last offset 41, epoch 3."""
    if last_offset < 0 or epoch < 0:
        raise ValueError(
            f"a snapshot needs last_offset >= 0 and epoch >= 0, not {last_offset}, {epoch}"
        )
    return f"{last_offset:020d}-{epoch:010d}{SNAPSHOT_SUFFIX}"


def temp_file_name(last_offset: int, epoch: int) -> str:
    """The name a snapshot is written under before it is complete."""
    return snapshot_file_name(last_offset, epoch) + TEMP_SUFFIX


def parse_snapshot_name(name: str) -> tuple[int, int] | None:
    """(last_offset, epoch) encoded in a snapshot file name, or ``None`` for any other name."""
    match = _SNAPSHOT_NAME.match(name)
    return (int(match.group(1)), int(match.group(2))) if match else None


def list_snapshots(directory: Path | str) -> list[SnapshotId]:
    """Every complete snapshot file in ``directory``, oldest (lowest offset) first.

    Temporary files, segments and anything else are ignored; so are names that merely look
    alike (the match is exact).
    """
    found = []
    for entry in os.scandir(directory):
        parsed = parse_snapshot_name(entry.name)
        if parsed is not None and entry.is_file():
            found.append(SnapshotId(parsed[0], parsed[1], Path(entry.path)))
    return sorted(found)


def remove_stale_temp_files(directory: Path | str) -> list[Path]:
    """Delete the ``.tmp`` files that crashed snapshot writes left behind; return them.

    Call this only where no snapshot is being written into ``directory`` (at startup, by the
    holder of the data directory's writer lock): it would delete a write in progress.
    """
    removed = []
    for entry in os.scandir(directory):
        if _TEMP_NAME.match(entry.name) and entry.is_file():
            path = Path(entry.path)
            path.unlink(missing_ok=True)
            removed.append(path)
    return sorted(removed)
