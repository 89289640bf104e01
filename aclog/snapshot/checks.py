"""What verifying each snapshot of a data directory finds: the one rule behind ``aclog snapshot
list`` (each snapshot with whether it verifies) and ``aclog snapshot verify`` (the problems).

Thread-safe (reads only). Cost: decoding every record of every snapshot once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aclog.snapshot.errors import SnapshotError
from aclog.snapshot.header import SnapshotInfo
from aclog.snapshot.naming import SnapshotId, list_snapshots
from aclog.snapshot.reader import verify_snapshot


@dataclass(frozen=True)
class SnapshotCheck:
    """One snapshot file and what verifying it found: its ``info`` when every record decodes,
    else the ``error`` that says what is wrong with it. Immutable."""

    snapshot: SnapshotId
    info: SnapshotInfo | None
    error: SnapshotError | None

    @property
    def valid(self) -> bool:
        """Whether the snapshot verified."""
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        """As ``aclog snapshot list --json`` lists it: the snapshot's info and ``valid``, or
        its name's offset and epoch, ``valid`` false and the ``error``."""
        if self.info is not None:
            return {**self.info.to_dict(), "valid": True}
        return {
            "path": str(self.snapshot.path),
            "last_offset": self.snapshot.last_offset,
            "epoch": self.snapshot.epoch,
            "valid": False,
            "error": str(self.error),
        }


def check_snapshots(directory: Path) -> list[SnapshotCheck]:
    """Every complete snapshot of ``directory``, oldest first, each verified
    (:func:`~aclog.snapshot.reader.verify_snapshot`); ``OSError`` when the directory cannot be
    listed."""
    return [_check(snapshot) for snapshot in list_snapshots(directory)]


def _check(snapshot: SnapshotId) -> SnapshotCheck:
    try:
        return SnapshotCheck(snapshot, verify_snapshot(snapshot.path), None)
    except SnapshotError as error:
        return SnapshotCheck(snapshot, None, error)
