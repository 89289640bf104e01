"""What every KRaft reader says about the bytes after the newest segment's last valid batch.

An incomplete batch there is routine on a live log (a write in progress, or one torn by a crash
that Kafka's recovery truncates): readers stay quiet and end the log before it. A whole batch
that fails its CRC-32C is damage, or a write landing at that instant: a reader that reads to the
end of the log tells its caller in :func:`~aclog.kraft.reader.tail_note`'s words (one wording
for every command) and answers from the batches before it. ``verify`` judges the same bytes
itself (a problem, exit 1).

- :func:`tail_warner`: the ``on_tail`` of :func:`~aclog.kraft.reader.read_kraft` that does so;
- :func:`check_newest_tail`: the same verdict without decoding anything, for a reader whose
  tasks read the segments elsewhere (the pipeline's driver);
- :func:`once_each`: a warning callback that passes each distinct message on once, for a
  command that reads the log twice (a diff, a timeline).

Thread-safe, except a :func:`once_each` callback (one per command). Cost: nothing, except
:func:`check_newest_tail`: a header read per batch of the newest segment, then a CRC-32C check of
its last two batches.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from aclog.kraft.reader import tail_note
from aclog.log.batch import HEADER_SIZE, MAGIC, BatchHeader, parse_header
from aclog.log.segment import CRC_MISMATCH, ScanProblem, SegmentScan, list_segments
from aclog.records.warning import OnWarning

OnTail = Callable[[Path, ScanProblem], None]
"""What :func:`~aclog.kraft.reader.read_kraft` tells of the bytes after the last valid batch."""


def tail_warner(on_warning: OnWarning) -> OnTail:
    """An ``on_tail`` that tells ``on_warning`` of a whole last batch failing its CRC (in
    :func:`~aclog.kraft.reader.tail_note`'s words); a torn, incomplete one stays quiet."""

    def judge(path: Path, problem: ScanProblem) -> None:
        if problem.reason == CRC_MISMATCH:
            on_warning(tail_note(path, problem))

    return judge


def check_newest_tail(
    directory: Path | str,
    on_warning: OnWarning,
    *,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
) -> None:
    """Warn as a replay of ``directory`` to the point would (see :func:`tail_warner`): when
    the newest segment ends in a whole batch that fails its CRC and the replay reads up to it,
    that is, the segment's last valid batch lies within the point (offset and time). Other
    damage is left to the reader of the segments, which raises."""
    segments = list_segments(Path(directory))
    if not segments:
        return
    base, path = segments[-1]
    try:
        position, next_offset = _before_last_batch(path, base)
        scan = SegmentScan(path, position=position, next_offset=next_offset)
    except FileNotFoundError:  # deleted by retention meanwhile: the segments' reader says so
        return
    last: BatchHeader | None = None
    for raw in scan:
        last = raw.header
    problem = scan.problem
    if problem is None or not problem.tail:
        return
    if last is None:  # the damaged batch opens the segment: the previous one ends at base - 1
        reached = at_offset is None or at_offset >= base - 1
    else:
        reached = _within(last, at_offset, at_time_ms)
    if reached:  # else the replay stops at the point, before the damaged bytes
        tail_warner(on_warning)(path, problem)


def _before_last_batch(path: Path, base: int) -> tuple[int, int]:
    """(position, base offset) of the last but one batch that fits in the segment, found by
    walking the headers alone (a seek per batch): a scan from there checks the last batch's CRC
    and what follows it, and yields the batch before it when that one is whole and sound.
    A header that makes no sense ends the walk: the scan from before it finds the damage."""
    size = path.stat().st_size
    starts = [(0, base)]
    position = 0
    with open(path, "rb") as file:
        while position + HEADER_SIZE <= size:
            file.seek(position)
            header = parse_header(file.read(HEADER_SIZE))
            if header.magic != MAGIC or not HEADER_SIZE <= header.size <= size - position:
                break
            starts = [starts[-1], (position, header.base_offset)]
            position += header.size
    return starts[0]


def _within(header: BatchHeader, at_offset: int | None, at_time_ms: int | None) -> bool:
    """Whether a replay to the point reads past the batch (the rule of whole batches)."""
    if at_offset is not None and header.last_offset > at_offset:
        return False
    return at_time_ms is None or header.max_timestamp <= at_time_ms


def once_each(on_warning: OnWarning) -> OnWarning:
    """``on_warning``, passing each distinct message on only the first time."""
    told: set[str] = set()

    def warn(message: str) -> None:
        if message not in told:
            told.add(message)
            on_warning(message)

    return warn
