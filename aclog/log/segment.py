"""Segment files: naming, and a validating scan over the batches of one segment.

A segment ``{base_offset:020d}.log`` is a plain concatenation of v2 batches whose first batch
starts at ``base_offset``. A scan checks each batch's header, size, CRC-32C, offset continuity
and epoch order, and stops at the first problem, which it classifies:

- *tail damage*: nothing valid follows the problem, as after a crash in the middle of a write
  (a partial header, a batch running past the end of the file, a bad CRC on the last batch,
  zero-filled space). Only the last segment may end this way, and only above the recovery
  point (:mod:`aclog.log.recovery_point`): below it the bytes were fsynced, so damage there is
  corruption too. The writer quarantines a torn tail and truncates the segment there.
- *corruption*: a valid batch follows the damaged one, or a CRC-valid batch has the wrong
  offset or epoch. That is never cut away silently.

Not thread-safe: a scan owns its file object. Cost: O(bytes scanned), plus a search of the bytes
after a problem when one is found.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from aclog.log import files
from aclog.log.batch import HEADER_SIZE, MAGIC, BatchHeader, crc_ok, parse_header

SEGMENT_SUFFIX = ".log"
_SEGMENT_NAME = re.compile(r"^(\d{20})\.log$")
MAX_BATCH_BYTES = 1 << 30


def segment_file_name(base_offset: int) -> str:
    """``00000000000000000042.log`` for base offset 42."""
    return f"{base_offset:020d}{SEGMENT_SUFFIX}"


def segment_base_offset(path: Path) -> int | None:
    """The base offset a segment file name encodes, or ``None`` for other files."""
    match = _SEGMENT_NAME.match(path.name)
    return int(match.group(1)) if match else None


def list_segments(directory: Path) -> list[tuple[int, Path]]:
    """Every segment file in ``directory`` as (base offset, path), by base offset."""
    found = []
    for entry in os.scandir(directory):
        path = Path(entry.path)
        base = segment_base_offset(path)
        if base is not None and entry.is_file():
            found.append((base, path))
    return sorted(found)


@dataclass(frozen=True, slots=True)
class RawBatch:
    """One validated batch: its header, where it starts in its segment, and its bytes."""

    header: BatchHeader
    position: int
    data: bytes


CRC_MISMATCH = "CRC-32C mismatch"
"""The reason of a :class:`ScanProblem` at a whole batch whose bytes do not check."""


@dataclass(frozen=True, slots=True)
class ScanProblem:
    """Where a scan stopped early and why: the byte, the offset and epoch a batch there had to
    continue from, and ``tail``, True when nothing valid follows (whether a tail is *torn*
    also depends on the recovery point: :func:`aclog.log.recovery.is_torn`)."""

    position: int
    reason: str
    tail: bool
    offset: int
    epoch: int


class SegmentScan:
    """An iterator over the valid batches of one segment, from ``position`` to the file's end.

    After iteration, ``problem`` holds the first problem found (or ``None``), ``end_position``
    where the valid bytes end, ``next_offset`` the offset after the last valid batch and
    ``last_epoch`` its epoch. ``size`` is fixed when the scan starts, so bytes a writer appends
    meanwhile are not read.

    With ``end_offset`` (the next segment's base), the segment ends there: the scan stops
    before a batch starting at it, and ``fenced`` holds the bytes left after it (a deposed
    leader's appends, never part of the log: README, "Epoch fencing"); a batch running past
    it is corruption.
    """

    def __init__(
        self,
        path: Path,
        *,
        position: int,
        next_offset: int,
        last_epoch: int = -1,
        skip_below: int = 0,
        end_offset: int | None = None,
    ) -> None:
        self.path = path
        self.end_position = position
        self.next_offset = next_offset
        self.last_epoch = last_epoch
        self.skip_below = skip_below
        self.end_offset = end_offset
        self.problem: ScanProblem | None = None
        self.fenced = 0
        self.size = path.stat().st_size

    def __iter__(self) -> Iterator[RawBatch]:
        with files.open_reader(self.path, buffering=1 << 20) as file:
            file.seek(self.end_position)
            while self.end_position < self.size:
                if self.end_offset is not None and self.next_offset >= self.end_offset:
                    self.fenced = self.size - self.end_position
                    return
                batch = self._next(file)
                if batch is None:
                    return
                self.end_position += batch.header.size
                self.next_offset = batch.header.last_offset + 1
                self.last_epoch = batch.header.epoch
                if batch.data:
                    yield batch

    def _next(self, file: BinaryIO) -> RawBatch | None:
        """The next valid batch, or ``None`` after recording the problem that stops the scan."""
        position, remaining = self.end_position, self.size - self.end_position
        if remaining < HEADER_SIZE:
            return self._stop(file, f"partial batch header ({remaining} of {HEADER_SIZE} bytes)")
        head = file.read(HEADER_SIZE)
        header = parse_header(head)
        if header.magic != MAGIC or not HEADER_SIZE <= header.size <= MAX_BATCH_BYTES:
            return self._stop(file, f"no batch header (magic {header.magic}, size {header.size})")
        if header.size > remaining:
            return self._stop(
                file, f"batch of {header.size} bytes runs past the end ({remaining} bytes left)"
            )
        if header.last_offset < self.skip_below and header.base_offset == self.next_offset:
            file.seek(header.size - HEADER_SIZE, os.SEEK_CUR)
            return RawBatch(header, position, b"")
        data = head + file.read(header.size - HEADER_SIZE)
        if not crc_ok(data):
            return self._stop(file, CRC_MISMATCH)
        reason = self._inconsistency(header)
        if reason:
            self.problem = ScanProblem(position, reason, False, self.next_offset, self.last_epoch)
            return None
        return RawBatch(header, position, data)

    def _inconsistency(self, header: BatchHeader) -> str | None:
        if header.base_offset != self.next_offset:
            return f"batch base offset {header.base_offset}, expected {self.next_offset}"
        if self.end_offset is not None and header.last_offset >= self.end_offset:
            return (
                f"batch of offsets {header.base_offset}..{header.last_offset} runs past "
                f"{self.end_offset}, where the next segment begins"
            )
        if header.epoch < self.last_epoch:
            return f"epoch {header.epoch} follows the newer epoch {self.last_epoch}"
        if header.record_count < 1 or header.record_count != header.last_offset_delta + 1:
            return (
                f"record count {header.record_count} does not fit last offset delta "
                f"{header.last_offset_delta}"
            )
        return None

    def _stop(self, file: BinaryIO, reason: str) -> RawBatch | None:
        """Record why the scan stops here, classifying it as tail damage or corruption."""
        file.seek(self.end_position)
        # Only up to the size taken at the start: bytes a writer appended since must not turn
        # a torn tail into "damage followed by valid batches".
        rest = file.read(self.size - self.end_position)
        tail = not _valid_batch_follows(rest, self.next_offset)
        self.problem = ScanProblem(
            self.end_position, reason, tail, self.next_offset, self.last_epoch
        )
        return None


def _valid_batch_follows(rest: bytes, min_offset: int) -> bool:
    """True when a CRC-valid batch at or after ``min_offset`` starts anywhere after byte 0."""
    magic_at = HEADER_SIZE - 45  # the magic byte sits 16 bytes into the header
    start = 1
    while True:
        found = rest.find(bytes((MAGIC,)), start + magic_at)
        if found < 0:
            return False
        candidate = found - magic_at
        start = candidate + 1
        if candidate + HEADER_SIZE > len(rest):
            return False
        header = parse_header(memoryview(rest)[candidate:])
        end = candidate + header.size
        if (
            header.base_offset >= min_offset
            and header.size >= HEADER_SIZE
            and end <= len(rest)
            and crc_ok(memoryview(rest)[candidate:end])
        ):
            return True
