"""Set-aside segments: a deposed leader's roll that a takeover found where the new epoch's log
begins, renamed ``{base:020d}.log.fenced-by-epoch-{E:010d}``
(:func:`~aclog.log.takeover.new_segment`; README, "Epoch fencing"). Every batch in one is
fenced: never acknowledged, never part of the log, read by no reader. It is kept for an operator
to look at: ``verify`` and ``dump`` name each one (:func:`~aclog.log.fenced.fenced_tails`), and
retention removes it once every offset it could hold is below the bound retention deletes
segments below (:func:`removable`).

Functions over files, no state of their own. Thread-safe. Cost: a directory scan, and per
file found a scan of its batches (at most a group's: its writer was deposed at its first
settle).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from aclog.log import files
from aclog.log.batch import HEADER_SIZE, MAGIC, parse_header
from aclog.log.segment import SegmentScan, segment_file_name

_NAME = re.compile(r"(\d{20})\.log\.fenced-by-epoch-(\d{10})")


def aside_path(directory: Path, base: int, epoch: int) -> Path:
    """Where the segment at ``base`` goes when epoch ``epoch``'s takeover sets it aside."""
    return directory / f"{segment_file_name(base)}.fenced-by-epoch-{epoch:010d}"


@dataclass(frozen=True, slots=True)
class SetAside:
    """``size`` bytes a deposed leader wrote in ``path``, a segment of its own at offset
    ``base`` that epoch ``epoch``'s takeover set aside; ``end`` is the offset after the last
    one its batches could hold (``None``: its bytes do not say, not even a whole header)."""

    path: Path
    base: int
    epoch: int
    size: int
    end: int | None

    def __str__(self) -> str:
        held = (
            "bytes that are no whole batch" if self.end is None else f"offsets up to {self.end - 1}"
        )
        gone = (
            "delete it once looked at"
            if self.end is None
            else f"retention removes it once a snapshot covers offset {self.end - 1}"
        )
        return (
            f"{self.path}: {self.size} bytes ({held}) a leader deposed by epoch {self.epoch} "
            f"wrote at offset {self.base}, where epoch {self.epoch}'s log begins; set aside, "
            f"never acknowledged, not part of the log ({gone})"
        )


def list_set_aside(directory: Path) -> list[SetAside]:
    """Every set-aside segment of ``directory``, by base offset."""
    found = []
    for path in sorted(directory.iterdir()):
        match = _NAME.fullmatch(path.name)
        if match is None:
            continue
        base, epoch = int(match.group(1)), int(match.group(2))
        try:
            size = path.stat().st_size
            found.append(SetAside(path, base, epoch, size, _end(path, base)))
        except FileNotFoundError:
            continue  # removed meanwhile
    return found


def removable(directory: Path, offset: int) -> list[Path]:
    """The set-aside segments every offset of which is below ``offset`` (those whose bytes do
    not say which offsets they hold are kept)."""
    return [
        aside.path
        for aside in list_set_aside(directory)
        if aside.end is not None and aside.end <= offset
    ]


def _end(path: Path, base: int) -> int | None:
    """The offset after the last batch the file at ``path`` could hold: after its last whole
    batch, or after the one its writer froze writing when that one's header is whole."""
    scan = SegmentScan(path, position=0, next_offset=base)
    for _ in scan:
        pass
    if scan.problem is None:
        return scan.next_offset
    if scan.size - scan.end_position < HEADER_SIZE:
        return None
    with files.open_reader(path) as file:
        file.seek(scan.end_position)
        header = parse_header(file.read(HEADER_SIZE))
    if header.magic != MAGIC or header.base_offset != scan.next_offset:
        return None
    return header.last_offset + 1
