"""Choosing the snapshot to load: the newest one that reads back completely.

Snapshots are tried newest first. One that fails verification is skipped with a warning that
says which snapshot (or the full log) is used instead, and the next older one is tried. A
snapshot is returned only after every record of it was read and checked, so a caller never
builds state from part of one.

A snapshot is only useful if the log still holds every record after it. When log segments
have been deleted below a snapshot (see :mod:`aclog.snapshot.policy`), pass the log's start
offset: older snapshots are then unusable, and if no usable snapshot is left the state cannot
be rebuilt at all, which raises :class:`NoUsableSnapshotError` instead of returning ``None``.

Thread-safe (each call reads its own files). Cost: reading and decoding the chosen snapshot,
plus whatever corrupt newer snapshots cost before they were rejected.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from aclog.records.types import Record
from aclog.snapshot.errors import NoUsableSnapshotError, SnapshotCorruptError
from aclog.snapshot.header import SnapshotInfo
from aclog.snapshot.naming import SnapshotId, list_snapshots
from aclog.snapshot.reader import read_snapshot


def newest_valid_snapshot(
    directory: Path | str,
    *,
    at_or_below: int | None = None,
    on_warning: Callable[[str], None],
    log_start_offset: int = 0,
) -> tuple[SnapshotInfo, list[Record]] | None:
    """The newest snapshot in ``directory`` that verifies, with all its records.

    ``at_or_below`` limits the choice to snapshots whose last offset is at most that offset
    (the state as of an older offset). ``None`` means no snapshot applies: replay the log
    from offset 0. ``on_warning`` receives one message per skipped corrupt snapshot.
    ``log_start_offset`` is the first offset the log still holds; a snapshot whose last
    offset is below ``log_start_offset - 1`` is unusable, since the records after it are gone.
    """
    skipped: list[tuple[SnapshotId, str]] = []
    for snapshot in _candidates(directory, at_or_below):
        if snapshot.last_offset + 1 < log_start_offset:
            break  # this one and every older one: the log no longer continues from them
        try:
            reader = read_snapshot(snapshot.path)
            records = reader.read_all()
        except SnapshotCorruptError as err:
            skipped.append((snapshot, err.reason))
            continue
        except FileNotFoundError:
            skipped.append((snapshot, "the file was deleted while it was being read"))
            continue
        _warn(skipped, f"snapshot {snapshot.path.name}", on_warning)
        return reader.info, records
    if log_start_offset > 0:
        raise NoUsableSnapshotError(_no_usable_message(directory, skipped, log_start_offset))
    _warn(skipped, "the full log", on_warning)
    return None


def _candidates(directory: Path | str, at_or_below: int | None) -> list[SnapshotId]:
    snapshots = list_snapshots(directory)
    if at_or_below is not None:
        snapshots = [s for s in snapshots if s.last_offset <= at_or_below]
    return snapshots[::-1]


def _warn(
    skipped: list[tuple[SnapshotId, str]], instead: str, on_warning: Callable[[str], None]
) -> None:
    for snapshot, reason in skipped:
        on_warning(
            f"skipped snapshot {snapshot.path} (last offset {snapshot.last_offset}): {reason}; "
            f"loading {instead} instead"
        )


def _no_usable_message(
    directory: Path | str, skipped: list[tuple[SnapshotId, str]], log_start_offset: int
) -> str:
    bad = "; ".join(f"{s.path.name}: {reason}" for s, reason in skipped) or "none"
    return (
        f"no usable snapshot in {directory}, and its log starts at offset {log_start_offset}, "
        f"so the records before it exist nowhere else (corrupt snapshots: {bad}). Restore a "
        "snapshot or the deleted segments from a backup or another replica"
    )
