"""Choosing the snapshot to load for a point in the log: the one definition of that rule, for
aclog's snapshots (:func:`newest_valid_snapshot`, and :func:`newest_valid_contents` for the ACL
table) and KRaft's checkpoints
(:mod:`aclog.kraft.replay`) alike (:func:`choose_for_point`).

The rule: snapshots are tried newest first, among those at or below the target offset and taken
at or before the target time. One that fails verification is skipped (reported, with which
snapshot or the full log is used instead) and the next older one is tried. A snapshot is
returned only after it was read and checked, so a caller never builds state from part of one.

A snapshot is only useful if the log still holds every record after it. When log segments
have been deleted below a snapshot (see :mod:`aclog.snapshot.policy`), pass the log's start
offset: older snapshots are then unusable, and if no usable snapshot is left the state cannot
be rebuilt at all, which raises :class:`NoUsableSnapshotError` instead of returning ``None``.

Thread-safe (each call reads its own files). Cost: reading and decoding the chosen snapshot,
plus whatever corrupt newer snapshots cost before they were rejected (and, for a point in
time, the header and checksum of each newer snapshot taken after it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from aclog.records.types import Record
from aclog.records.warning import OnWarning
from aclog.snapshot.contents import SnapshotContents
from aclog.snapshot.errors import NoUsableSnapshotError, SnapshotCorruptError, SnapshotError
from aclog.snapshot.header import SnapshotInfo
from aclog.snapshot.naming import SnapshotId, list_snapshots
from aclog.snapshot.reader import SnapshotReader, read_snapshot


class Candidate(Protocol):
    """A snapshot file as listed, before it is read: the last log offset it covers."""

    @property
    def last_offset(self) -> int: ...


C = TypeVar("C", bound=Candidate)
T = TypeVar("T")


def choose_for_point(
    candidates: Sequence[C],
    read: Callable[[C], T],
    *,
    unusable: tuple[type[Exception], ...],
    on_skip: Callable[[C, Exception], None],
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    taken_at: Callable[[C], int] | None = None,
    log_start_offset: int = 0,
) -> tuple[C, T] | None:
    """The newest of ``candidates`` (listed oldest first) that serves the state at
    ``at_offset`` (``None``: the end of the log) and ``at_time_ms`` (``None``: now), with what
    ``read`` made of it; ``None`` when none does (replay the log from its start).

    A candidate serves when its last offset is at most ``at_offset``, ``taken_at`` (its state's
    time; required with ``at_time_ms``) is at most ``at_time_ms``, the log continues from it
    (its last offset is at least ``log_start_offset - 1``: older ones are not tried), and
    ``read`` succeeds. A candidate whose ``taken_at`` or ``read`` raises one of ``unusable``
    (or ``FileNotFoundError``: deleted meanwhile) goes to ``on_skip`` and an older one is tried.
    """
    if at_time_ms is not None and taken_at is None:
        raise ValueError("a point in time needs taken_at")
    for candidate in reversed(candidates):
        if at_offset is not None and candidate.last_offset > at_offset:
            continue
        if candidate.last_offset + 1 < log_start_offset:
            break  # this one and every older one: the log no longer continues from them
        try:
            if at_time_ms is not None and taken_at is not None and taken_at(candidate) > at_time_ms:
                continue
            return candidate, read(candidate)
        except FileNotFoundError as error:
            on_skip(candidate, error)
        except unusable as error:
            on_skip(candidate, error)
    return None


def newest_valid_snapshot(
    directory: Path | str,
    *,
    at_or_below: int | None = None,
    at_time_ms: int | None = None,
    on_warning: OnWarning,
    log_start_offset: int = 0,
) -> tuple[SnapshotInfo, list[Record]] | None:
    """The newest snapshot in ``directory`` that verifies, with all its records, for the state
    at ``at_or_below`` and ``at_time_ms`` (see :func:`choose_for_point`).

    ``None`` means no snapshot applies: replay the log from offset 0. ``on_warning`` receives
    one message per skipped corrupt snapshot. ``log_start_offset`` is the first offset the log
    still holds; :class:`NoUsableSnapshotError` when it is above 0 and no snapshot serves.
    """
    return _newest(
        directory, SnapshotReader.read_all, at_or_below, at_time_ms, on_warning, log_start_offset
    )


def newest_valid_contents(
    directory: Path | str,
    *,
    at_or_below: int | None = None,
    at_time_ms: int | None = None,
    on_warning: OnWarning,
    log_start_offset: int = 0,
) -> tuple[SnapshotInfo, SnapshotContents] | None:
    """:func:`newest_valid_snapshot` (the same choice, warnings and errors), with the chosen
    snapshot's ACL chunks left as columns (:meth:`SnapshotReader.read_columns`) for
    ``AclTable.from_chunks``; a snapshot whose chunks do not decode is skipped as any
    corrupt one is."""
    return _newest(
        directory,
        SnapshotReader.read_columns,
        at_or_below,
        at_time_ms,
        on_warning,
        log_start_offset,
    )


def _newest(
    directory: Path | str,
    read: Callable[[SnapshotReader], T],
    at_or_below: int | None,
    at_time_ms: int | None,
    on_warning: OnWarning,
    log_start_offset: int,
) -> tuple[SnapshotInfo, T] | None:
    """The one selection of both: what ``read`` makes of the chosen, verified snapshot."""
    skipped: list[tuple[SnapshotId, str]] = []

    def skip(snapshot: SnapshotId, error: Exception) -> None:
        if isinstance(error, SnapshotCorruptError):
            skipped.append((snapshot, error.reason))
        elif isinstance(error, FileNotFoundError):
            skipped.append((snapshot, "the file was deleted while it was being read"))
        else:
            skipped.append((snapshot, str(error)))

    def read_whole(snapshot: SnapshotId) -> tuple[SnapshotInfo, T]:
        reader = read_snapshot(snapshot.path)
        return reader.info, read(reader)

    found = choose_for_point(
        list_snapshots(directory),
        read_whole,
        unusable=(SnapshotError,),
        on_skip=skip,
        at_offset=at_or_below,
        at_time_ms=at_time_ms,
        taken_at=_taken_at,
        log_start_offset=log_start_offset,
    )
    if found is not None:
        snapshot, (info, contents) = found
        _warn(skipped, f"snapshot {snapshot.path.name}", on_warning)
        return info, contents
    if log_start_offset > 0:
        raise NoUsableSnapshotError(_no_usable_message(directory, skipped, log_start_offset))
    _warn(skipped, "the full log", on_warning)
    return None


def _taken_at(snapshot: SnapshotId) -> int:
    """The time of the snapshot's state, from its verified header."""
    return read_snapshot(snapshot.path).info.timestamp_ms


def _warn(skipped: list[tuple[SnapshotId, str]], instead: str, on_warning: OnWarning) -> None:
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
