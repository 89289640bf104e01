"""What reading back the active segment costs a roll (issue 35, item 3).

A writer reads back what it has written before each roll and every
:data:`~aclog.log.commit.CHECK_EVERY` bytes. A template data directory holds one active
segment of one-ACL batches (what a controller writes for one ``kafka-acls --add``), filled to
``CHECK_EVERY`` (the most a roll reads back) or to a whole segment (64 MiB, the default size,
at full size: what a roll would read back without the checks in between). Each trial copies
it, opens a writer on the copy (the opening scan is not timed; it leaves the segment in the
page cache, as a writer that has just written it finds it), marks the whole segment as not yet
checked, and times ``roll()`` with fsync: with the read-back check (what the writer does) and,
in turn, without it (a writer whose check is a no-op).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from aclog.log import BatchSpec, SegmentedLog
from aclog.log.commit import CHECK_EVERY
from aclog.records import encode
from benchmarks.harness import best_in_turn
from benchmarks.probe_scrub import _acl  # the one-ACL batch its probe writes
from benchmarks.report import Report, Row


class _Unchecked(SegmentedLog):
    """A writer that seals without reading back: the baseline the check's cost is against."""

    def _check_written(self) -> None:
        return None


def _fill(directory: Path, segment_bytes: int) -> int:
    """Fill one segment of ``directory`` to about ``segment_bytes``; the batches written."""
    spec = BatchSpec([encode(_acl(0))], 1, 1000)
    with SegmentedLog(directory, segment_bytes=segment_bytes * 2, fsync=False) as log:
        written = 0
        while log.end_offset == 0 or _size(directory) < segment_bytes:
            log.append_batches([spec] * 100)
            written += 100
    return written


def _size(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.glob("*.log"))


def run(report: Report, quick: bool) -> None:
    """Rows: a roll with and without the check, timed in turn, when :data:`CHECK_EVERY` bytes
    are unchecked (the most a roll reads back) and when a whole segment is (what a roll would
    read back without the checks every :data:`CHECK_EVERY` bytes)."""
    for segment_bytes in (CHECK_EVERY, (4 if quick else 64) << 20):
        _roll_rows(report, segment_bytes, 2 if quick else 3)


def _roll_rows(report: Report, segment_bytes: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / "template"
        batches = _fill(template, segment_bytes)

        def roll(kind: type[SegmentedLog]) -> float:
            trial = Path(tmp) / "trial"
            shutil.rmtree(trial, ignore_errors=True)
            shutil.copytree(template, trial)
            with kind(trial, segment_bytes=segment_bytes * 2) as log:
                # As if this writer had written the whole segment since it last checked (its
                # opening scan would otherwise count as the last check).
                log._checked = (log.start_offset, 0)
                return best_in_turn([log.roll], 1)[0]

        rolls: dict[str, list[float]] = {"with": [], "without": []}
        for _ in range(repeat):
            rolls["with"].append(roll(SegmentedLog))
            rolls["without"].append(roll(_Unchecked))
    size = f"{segment_bytes >> 10} KiB" if segment_bytes < 1 << 20 else f"{segment_bytes >> 20} MiB"
    for kind, seconds in rolls.items():
        report.add(
            Row(
                "log",
                "aclog",
                f"roll (fsync) with {size} unchecked, {kind} the read-back check",
                batches,
                "latency",
                min(seconds) * 1000,
                "ms",
                note=f"{batches} one-ACL batches; best of {len(seconds)}, timed in turn",
            )
        )
