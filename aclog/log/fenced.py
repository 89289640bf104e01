"""Fenced bytes: what a deposed leader appended to its segment after a newer leader's log
began, the one rule every reader ends a segment by, and the report of those bytes that
``verify`` and ``dump`` give (README, "Epoch fencing").

The rule (:func:`segment_ends`): a segment ends where the next segment begins, or at a newer
epoch's fence above its base, whichever comes first. A newer leader of epoch E writes only into
segments starting at E's fence or above, so every batch of a segment starting below a fence F,
at F or after, is of an older epoch: fenced, never acknowledged, never replayed. The fence ends
the segment before the newer leader's segment exists; the next segment's base, once it does.
Fenced bytes are reported as fenced, never as damage, and stay where they are (retention
removes them with their segment). Every reader (:mod:`aclog.log.reader`, the scrub in
:mod:`aclog.log.check`, :func:`fenced_tails`) takes its segments' ends from here.

A reader: takes no lock and never writes. Thread-safe: each call opens its own files. Cost of
:func:`segment_ends`: one directory scan and a small read per fence above the first segment's
base (none in a log without elections); of :func:`fenced_tails`, per segment that has an end,
an index lookup and a scan of the bytes after its last index entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aclog.log import files
from aclog.log.batch import HEADER_SIZE, parse_header
from aclog.log.claims import fences_above
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
            f"appended after offset {self.end - 1} by a leader deposed when a newer epoch's "
            f"log began at {self.end}; never acknowledged, not part of the log"
        )


def segment_ends(
    directory: Path, segments: list[tuple[int, Path]], first: int = 0
) -> list[int | None]:
    """Where each of ``segments`` (by base offset, as :func:`list_segments` gives them) ends for
    a reader, from the ``first`` read on (those before it: ``None``, unread): the next
    segment's base or a newer epoch's fence above the segment's base, whichever is lower;
    ``None`` for the newest segment while no fence lies above its base (it ends where its
    whole batches do)."""
    if first >= len(segments):
        return [None] * len(segments)
    fences = [fence.offset for fence in fences_above(directory, segments[first][0])]
    ends: list[int | None] = [None] * first
    for i in range(first, len(segments)):
        base = segments[i][0]
        bounds = [offset for offset in fences if offset > base]
        if i + 1 < len(segments):
            bounds.append(segments[i + 1][0])
        ends.append(min(bounds) if bounds else None)
    return ends


def fenced_tails(directory: Path) -> list[FencedTail]:
    """Every segment's fenced bytes, oldest segment first (damage before a segment's end is
    the reads' to report: :func:`~aclog.log.read_batches`)."""
    segments = list_segments(directory)
    found = []
    for (base, path), end in zip(segments, segment_ends(directory, segments), strict=True):
        if end is None:
            continue
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
