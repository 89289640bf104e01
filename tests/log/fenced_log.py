"""A log with a deposed leader's appends after the next segment's base, as the epoch-fencing
protocol leaves one (README, "Epoch fencing"): built from real appends, then the stale batches'
bytes moved to the end of the older segment, as a frozen leader writing on would put them."""

from __future__ import annotations

from pathlib import Path

from aclog.log import SegmentedLog
from aclog.log.reader import read_batches
from aclog.log.segment import list_segments


def fenced_log(
    directory: Path, old: list[list[bytes]], stale: list[list[bytes]], new: list[list[bytes]]
) -> int:
    """Write ``old`` batches (epoch 1) to segment 0, then the new leader's ``new`` batches
    (epoch 2) to a segment of their own; the deposed leader's ``stale`` batches (epoch 1) land
    after segment 0's last batch. Returns how many stale bytes segment 0 holds."""
    with SegmentedLog(directory, fsync=False) as log:
        for values in old:
            log.append(values, 1, timestamp_ms=1)
        log.roll()
        for values in new:
            log.append(values, 2, timestamp_ms=3)
    scratch = directory.parent / f"{directory.name}-stale"
    with SegmentedLog(scratch, fsync=False) as log:
        for values in old + stale:
            log.append(values, 1, timestamp_ms=1)
    first = sum(len(values) for values in old)
    data = list_segments(scratch)[0][1].read_bytes()
    position = next((b.position for b in read_batches(scratch) if b.base_offset == first), None)
    stale_bytes = b"" if position is None else data[position:]
    with list_segments(directory)[0][1].open("ab") as segment:
        segment.write(stale_bytes)
    return len(stale_bytes)
