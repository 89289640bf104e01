"""Removing a log's segments: the files behind :meth:`~aclog.log.log.SegmentedLog.truncate_to`
(every record from an offset on) and :meth:`~aclog.log.log.SegmentedLog.delete_segments_below`
(whole segments below an offset). The log decides what goes and keeps its own view (segment
bases, recovery point, end offset); these functions change the files.

Not thread-safe: the log's single writer calls them under its lock. Cost: unlinking files, and
for a truncation one segment cut and its index rewritten.
"""

from __future__ import annotations

from pathlib import Path

from aclog.log import files
from aclog.log.active import ActiveSegment
from aclog.log.aside import removable
from aclog.log.durable import fsync_directory
from aclog.log.index import OffsetIndex, index_path
from aclog.log.recovery import cut_tail
from aclog.log.segment import segment_file_name


def truncate_segments(
    directory: Path, bases: list[int], offset: int, target: tuple[int, int]
) -> tuple[list[int], ActiveSegment]:
    """(the segment bases left, the new active segment) once the batch at ``offset``, at
    ``target`` (segment base, position), and everything after it are gone."""
    for base in [b for b in bases if b > offset or (b == offset and b != target[0])]:
        remove_segment(directory, base)
    kept = [b for b in bases if b <= target[0]]
    path = directory / segment_file_name(kept[-1])
    cut_tail(path, target[1], path.stat().st_size, "truncate_to")
    index = OffsetIndex.load(path, kept[-1])
    index.truncate_after(target[1])
    index.write(path)
    return kept, ActiveSegment(path, index, target[1])


def delete_below(
    directory: Path, bases: list[int], offset: int, *, active_empty: bool, fsync: bool
) -> list[Path]:
    """Delete the segments (popped from ``bases``) whose records are all below ``offset``,
    never the active one, and the set-aside segments (:mod:`aclog.log.aside`) all of whose
    offsets are. Returns the deleted files."""
    deleted = []
    while len(bases) > 1 and bases[1] <= offset:
        if len(bases) == 2 and active_empty:
            break  # keep the newest batch: its epoch fences stale writers after a reopen
        deleted.append(remove_segment(directory, bases.pop(0)))
    for aside in removable(directory, offset):  # a deposed leader's roll, set aside
        files.unlink(aside, missing_ok=True)
        deleted.append(aside)
    if deleted and fsync:
        fsync_directory(directory)
    return deleted


def remove_segment(directory: Path, base: int) -> Path:
    """Delete the segment starting at offset ``base`` and its index; returns its path."""
    path = directory / segment_file_name(base)
    files.unlink(index_path(path), missing_ok=True)
    files.unlink(path)
    return path
