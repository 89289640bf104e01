"""Finding the closed segments' offset indexes that older aclog wrote, and rebuilding them.

Older aclog indexed each batch's *first* offset; Kafka, and aclog now, its *last*
(:mod:`aclog.log.index`). Readers use either as they are (a read never writes), but Kafka's
``kafka-dump-log.sh --verify-index-only`` reports each first-offset entry at a batch of more than
one record as a mismatch. So the writer, when it opens a log, rebuilds them: the last segment's
index always (:func:`~aclog.log.recovery.recover_tail`), each older segment's with
:func:`upgrade_closed_indexes` when its index is not Kafka's.

An index is taken as Kafka's when its first *telling* entry (one at a batch of more than one
record, where the first and last offsets differ) holds the batch's last offset: an index file is
written whole in one convention, by one writer. An index whose entries all sit at one-record
batches reads the same under both and is left as it is; one whose entry points at no batch
holding its offset is stale and is rebuilt, and so is one that cannot be read.

Not thread-safe: the directory's writer calls it while it holds the lock. Cost per closed
segment: one 61-byte read per entry up to the first telling one; a rebuild scans the segment once
(O(segment bytes), CRC-32C included) and replaces its index file.
"""

from __future__ import annotations

import logging
from pathlib import Path

from aclog.log import files
from aclog.log.index import OffsetIndex, span_at
from aclog.log.segment import SegmentScan

logger = logging.getLogger(__name__)


def upgrade_closed_indexes(segments: list[tuple[int, Path]]) -> list[Path]:
    """Rebuild the index of each of ``segments`` (base offset, path; the closed ones, not the
    active one) that is not Kafka's; returns the segments whose index was rebuilt."""
    rebuilt = []
    for base, path in segments:
        index = OffsetIndex.load(path, base)
        if index.unreadable or not follows_kafka(index, path):
            rebuild_index(path, base)
            rebuilt.append(path)
    if rebuilt:
        logger.info(
            "rebuilt the offset index of %d segment(s) in Kafka's convention (last offset of "
            "each batch), first %s",
            len(rebuilt),
            rebuilt[0],
        )
    return rebuilt


def follows_kafka(index: OffsetIndex, segment: Path) -> bool:
    """Whether ``index`` maps last offsets to their batches, as far as its first telling
    entry shows (see the module's docstring)."""
    with files.open_reader(segment) as file:
        for offset, position in zip(index.offsets, index.positions, strict=True):
            span = span_at(file, position)
            if span is None or not index.base_offset <= span[0] <= offset <= span[1]:
                return False  # stale, or not this segment's
            if span[0] != span[1]:
                return offset == span[1]
    return True


def rebuild_index(segment: Path, base: int) -> None:
    """Replace the index of ``segment`` with one built from its batches. A scan that stops at
    damage indexes the batches before it and leaves the damage to readers and ``verify``,
    which report it (the index is a hint: rebuilding it cuts nothing)."""
    scan = SegmentScan(segment, position=0, next_offset=base)
    index = OffsetIndex(base)
    for raw in scan:
        index.note(raw.header.last_offset, raw.position)
    if scan.problem is not None:
        logger.warning(
            "%s: indexed the batches before byte %d only (%s)",
            segment,
            scan.problem.position,
            scan.problem.reason,
        )
    index.write(segment)
