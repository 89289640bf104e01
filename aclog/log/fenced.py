"""Fenced bytes: what a deposed leader appended to its segment after a newer leader's log
began, the one rule every reader ends a segment by, and the report of those bytes that
``verify`` and ``dump`` give (README, "Epoch fencing").

The rule (:func:`segment_ends`): a segment ends where the next segment begins, or at a newer
epoch's fence above its base, whichever comes first. A newer leader of epoch E writes only into
segments starting at E's fence or above, so every batch of a segment starting below a fence F,
at F or after, is of an older epoch: fenced, never acknowledged, never replayed. The fence ends
the segment before the newer leader's segment exists; the next segment's base, once it does.
Fenced bytes are reported as fenced, never as damage, and stay where they are (retention
removes them with their segment).

A segment a deposed leader created above a newer epoch's fence (a *stray*: its first batch of
an epoch older than that fence's, and older than the segment before it) is forbidden by the
protocol (a deposed leader's roll is at the fence, set aside, or refused), but a reader that
met one would read its batches as the log: every reader skips it whole instead, with one
WARNING per file naming it, its epoch and the fence (:class:`StraySegment`), and it does not
end the segment before it. Every reader (:mod:`aclog.log.reader`, the scrub in
:mod:`aclog.log.check`, :func:`fenced_tails`) takes its segments' ends from here.

A reader: takes no lock and never writes. Thread-safe: each call opens its own files. Cost of
:func:`segment_ends`: one directory scan and a small read per fence from the first segment's
base on (none in a log without elections), and in a log with elections a header read per
segment from the one before the first on; of :func:`fenced_tails`, per segment that has an end,
an index lookup and a scan of the bytes after its last index entry.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from aclog.log import files
from aclog.log.aside import SetAside, list_set_aside
from aclog.log.batch import HEADER_SIZE, MAGIC, parse_header
from aclog.log.claims import Fence, fences_from
from aclog.log.index import index_start
from aclog.log.segment import SegmentScan, list_segments

logger = logging.getLogger(__name__)
_warned: set[Path] = set()
"""Stray segments already named at WARNING by this process (each read meets them again)."""


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


@dataclass(frozen=True, slots=True)
class StraySegment:
    """``segment``, whose first batch is of ``epoch``, begins above the ``fence`` of a newer
    epoch: created by a deposed leader, never part of the log."""

    segment: Path
    epoch: int
    fence: Fence

    def __str__(self) -> str:
        return (
            f"{self.segment}: a segment of epoch {self.epoch} beginning above epoch "
            f"{self.fence.epoch}'s fence at offset {self.fence.offset}, created by a deposed "
            "leader: never acknowledged, not part of the log, skipped by every reader"
        )


def segment_ends(
    directory: Path, segments: list[tuple[int, Path]], first: int = 0
) -> list[int | None]:
    """Where each of ``segments`` (by base offset, as :func:`list_segments` gives them) ends for
    a reader, from the ``first`` read on (those before it: ``None``, unread): the next
    segment's base or a newer epoch's fence above the segment's base, whichever is lower;
    ``None`` for the newest segment while no fence lies above its base (it ends where its
    whole batches do). A stray segment ends at its own base (nothing of it is read) and ends
    no other."""
    return _plan(directory, segments, first)[0]


def read_plan(
    directory: Path, segments: list[tuple[int, Path]], index: int
) -> tuple[int, list[int | None]]:
    """Where a read of an offset that the file names place in segment ``index`` begins (that
    segment, or the nearest before it that is no stray) and :func:`segment_ends` from there."""
    ends, strays = _plan(directory, segments, index)
    while index > 0 and index in strays:
        index -= 1
        ends, strays = _plan(directory, segments, index)
    return index, ends


def _plan(
    directory: Path, segments: list[tuple[int, Path]], first: int
) -> tuple[list[int | None], dict[int, StraySegment]]:
    """:func:`segment_ends`, and the strays among the segments from ``first`` on, by index."""
    if first >= len(segments):
        return [None] * len(segments), {}
    fences = fences_from(directory, segments[first][0])
    strays = _strays(segments, first, fences) if fences else {}
    live = [i for i in range(first, len(segments)) if i not in strays]
    ends: list[int | None] = [None] * len(segments)
    for k, i in enumerate(live):
        base = segments[i][0]
        bounds = [fence.offset for fence in fences if fence.offset > base]
        if k + 1 < len(live):
            bounds.append(segments[live[k + 1]][0])
        ends[i] = min(bounds) if bounds else None
    for i, stray in strays.items():
        ends[i] = segments[i][0]
        if stray.segment not in _warned:
            _warned.add(stray.segment)
            logger.warning("%s", stray)
    return ends, strays


def _strays(
    segments: list[tuple[int, Path]], first: int, fences: list[Fence]
) -> dict[int, StraySegment]:
    """The segments from ``first`` on whose first batch's epoch is older than a fence below
    their base and than the first batch of the segment before them (epochs never go down
    along the log; an exclusive writer appending after a takeover that appended nothing keeps
    the older epoch, and is no stray)."""
    strays = {}
    floor = None  # the first epoch of the nearest segment before, part of the log
    for i in range(max(first - 1, 0), len(segments)):
        base, path = segments[i]
        epoch = _first_epoch(path)
        if epoch is None:
            continue  # empty, or not even a header yet: nothing to read as the log
        newer = [fence for fence in fences if fence.offset < base and fence.epoch > epoch]
        if i >= first and newer and floor is not None and epoch < floor:
            strays[i] = StraySegment(path, epoch, max(newer, key=lambda fence: fence.epoch))
            continue
        floor = epoch
    return strays


def older_than(path: Path, epoch: int) -> bool:
    """Whether the segment at ``path`` begins with a batch older than ``epoch``: no segment of
    the log may follow a batch of ``epoch`` so (epochs never go down along it), a stray does.
    Cost: one header read."""
    first = _first_epoch(path)
    return first is not None and first < epoch


def _first_epoch(path: Path) -> int | None:
    """The epoch of the first batch of the segment at ``path`` (``None``: no whole header)."""
    try:
        with files.open_reader(path) as file:
            head = file.read(HEADER_SIZE)
    except FileNotFoundError:
        return None  # removed by retention meanwhile
    if len(head) < HEADER_SIZE:
        return None
    header = parse_header(head)
    return header.epoch if header.magic == MAGIC else None


def fenced_tails(directory: Path) -> list[FencedTail | StraySegment | SetAside]:
    """Every segment's fenced bytes, oldest segment first, then the set-aside segments
    (:mod:`aclog.log.aside`): one report each for ``verify`` and ``dump`` (damage before a
    segment's end is the reads' to report: :func:`~aclog.log.read_batches`)."""
    segments = list_segments(directory)
    ends, strays = _plan(directory, segments, 0)
    found: list[FencedTail | StraySegment | SetAside] = []
    for i, ((base, path), end) in enumerate(zip(segments, ends, strict=True)):
        if i in strays:
            found.append(strays[i])
            continue
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
    return found + list_set_aside(directory)


def _epoch(scan: SegmentScan) -> int | None:
    if scan.fenced < HEADER_SIZE:
        return None
    with files.open_reader(scan.path) as file:
        file.seek(scan.end_position)
        return parse_header(file.read(HEADER_SIZE)).epoch
