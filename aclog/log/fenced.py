"""Fenced bytes: what a deposed leader appended to its segment after a newer leader's segment
began, found so that ``verify`` and ``dump`` can say so (README, "Epoch fencing").

A segment ends where the next segment begins (every reader stops there: :mod:`aclog.log.reader`);
bytes after that point were written by a leader that a newer epoch had fenced off. They were
never acknowledged and are never replayed, so they are reported as fenced, never as damage, and
leave the log as it is (retention removes them with their segment).

A reader: takes no lock and never writes. Thread-safe: each call opens its own files. Cost: per
segment but the last, an index lookup and a scan of the bytes after its last index entry.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

from aclog.log import files
from aclog.log.batch import HEADER_SIZE, parse_header
from aclog.log.index import index_start
from aclog.log.segment import SegmentScan, list_segments


@dataclass(frozen=True, slots=True)
class FencedTail:
    """``size`` bytes of ``segment`` from byte ``position`` on, after the offset ``end`` at
    which the next segment begins; ``epoch`` is the first fenced batch's (``None`` when not
    even its header is there)."""

    segment: Path
    position: int
    end: int
    size: int
    epoch: int | None

    def __str__(self) -> str:
        epoch = "" if self.epoch is None else f" of epoch {self.epoch}"
        return (
            f"{self.segment}: {self.size} bytes{epoch} from byte {self.position} are fenced: "
            f"appended after offset {self.end - 1} by a leader deposed when the segment "
            f"at {self.end} began; never acknowledged, not part of the log"
        )


def fenced_tails(directory: Path) -> list[FencedTail]:
    """Every segment's fenced bytes, oldest segment first (damage before a segment's end is
    the reads' to report: :func:`~aclog.log.read_batches`)."""
    segments = list_segments(directory)
    found = []
    for (base, path), (end, _) in itertools.pairwise(segments):
        offset, position = index_start(path, base, end)
        scan = SegmentScan(
            path, position=position, next_offset=offset, skip_below=end, end_offset=end
        )
        for _ in scan:
            pass
        if scan.fenced:
            found.append(FencedTail(path, scan.end_position, end, scan.fenced, _epoch(scan)))
    return found


def _epoch(scan: SegmentScan) -> int | None:
    if scan.fenced < HEADER_SIZE:
        return None
    with files.open_reader(scan.path) as file:
        file.seek(scan.end_position)
        return parse_header(file.read(HEADER_SIZE)).epoch
