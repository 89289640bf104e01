"""The pieces the aclog source (:mod:`aclog.pipeline.source`) reads, one Spark partition each:
a :class:`LogPiece` (the log batches whose base offset lies in a range) or a
:class:`SnapshotPiece` (one snapshot file), and how a data directory is cut into them. A large
segment is split at its sparse-index entries, so a stale entry can move a split point but never
duplicate or drop a batch (a piece owns the batches whose base offset it holds). Paths are
resolved where the plan is made, beside the driver: executors run in their own directories.

Planning runs in one thread; the pieces are immutable once made and travel to the executors.
Cost: listing the segments and snapshots, and loading the index of each segment to be split.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pyspark.sql.datasource import InputPartition

from aclog.log.index import OffsetIndex
from aclog.log.segment import list_segments
from aclog.snapshot import list_snapshots

DEFAULT_SPLIT_BYTES = 16 << 20


@dataclass
class LogPiece(InputPartition):
    """The log batches whose base offset is in ``[low, high)`` (``high`` None: to the end);
    records below ``from_offset`` are skipped."""

    directory: str
    low: int
    high: int | None
    from_offset: int

    def __post_init__(self) -> None:
        InputPartition.__init__(self, (self.directory, self.low, self.high))


@dataclass
class SnapshotPiece(InputPartition):
    """Every record of one snapshot file."""

    path: str

    def __post_init__(self) -> None:
        InputPartition.__init__(self, self.path)


def plan_pieces(
    directory: Path,
    *,
    from_offset: int = 0,
    split_bytes: int = DEFAULT_SPLIT_BYTES,
    min_partitions: int = 1,
) -> list[LogPiece]:
    """The log pieces of ``directory``: one per segment, large segments split at index entries
    so that no piece is much over ``split_bytes`` and there are about ``min_partitions``."""
    segments = list_segments(directory)
    sizes = [path.stat().st_size for _, path in segments]
    target = max(1, min(split_bytes, sum(sizes) // max(min_partitions, 1) or 1))
    pieces: list[LogPiece] = []
    for i, (base, path) in enumerate(segments):
        high = segments[i + 1][0] if i + 1 < len(segments) else None
        if high is not None and high <= from_offset:
            continue
        bounds = [base, *_split_offsets(path, base, sizes[i], target)]
        ends: list[int | None] = [*bounds[1:], high]
        for low, end in zip(bounds, ends, strict=True):
            if end is not None and end <= from_offset:
                continue
            pieces.append(LogPiece(str(directory), low, end, from_offset))
    return pieces


def _split_offsets(path: Path, base: int, size: int, target: int) -> list[int]:
    """Split offsets about ``target`` bytes apart, each just after an index entry's offset:
    the first offset of the batch after the entry's (a Kafka index entry holds its batch's last
    offset; in an older aclog index, its first, and the split falls inside the batch, which
    only moves it)."""
    if size <= target:
        return []
    index = OffsetIndex.load(path, base)
    splits: list[int] = []
    next_cut = target
    for offset, position in zip(index.offsets, index.positions, strict=True):
        if position >= next_cut and size - position >= target // 4:
            splits.append(offset + 1)
            next_cut = position + target
    return splits


def snapshot_paths(directory: Path, choice: str) -> list[str]:
    """The snapshot files the ``snapshots`` option names."""
    choice = choice.strip()
    if choice in ("", "none"):
        return []
    if choice == "all":
        return [str(s.path) for s in list_snapshots(directory)]
    return [part.strip() for part in choice.split(",") if part.strip()]


def absolute_snapshots(choice: str) -> str:
    """The ``snapshots`` option with every listed path made absolute against this process's
    working directory: the driver resolves paths, because executors run in their own."""
    if choice.strip() == "all":
        return "all"
    return ",".join(str(Path(p).resolve()) for p in snapshot_paths(Path(), choice)) or "none"
