"""Checking that a log's batches are whole without decoding them: the integrity half of a read,
for the bytes a reader would otherwise skip (those a snapshot covers, those after a point in
time) and for a server's scrub of what it has acknowledged.

Every batch is checked as :func:`~aclog.log.read_batches` checks it (header, size, CRC-32C,
offset continuity, epoch order, the newest batch's epoch against the recovery point), by the
one validating scan, :class:`~aclog.log.segment.SegmentScan`; damage raises
:class:`~aclog.log.CorruptLogError` naming the file and the byte, and a torn tail above the
recovery point ends the check quietly, as it ends a read.

A reader: takes no lock and never writes. Thread-safe: each check opens its own files. Cost:
O(bytes checked), no record decoded: the segment is read 4 MiB at a time and each batch
costs a header unpack and a CRC-32C (the C extension; the ``log`` suite's ``read (CRC + batch
parse)`` row bounds it); only a segment that fails that quick pass is scanned again by
:class:`SegmentScan`, which decides what is wrong (the rules stay defined there).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from crc32c import crc32c as calc_crc32c  # kafka-python's own choice, without importing kafka

from aclog.log import files
from aclog.log.batch import CRC_START, HEADER_SIZE, LENGTH_PREFIX, MAGIC
from aclog.log.errors import CorruptLogError
from aclog.log.fenced import segment_ends
from aclog.log.index import index_start
from aclog.log.recovery_point import RecoveryPoint, read_recovery_point
from aclog.log.segment import SegmentScan, list_segments
from aclog.log.torn import check_epoch, confirm_tail


def check_batches(directory: Path, from_offset: int = 0, to_offset: int | None = None) -> int:
    """Check every batch holding an offset in ``[from_offset, to_offset)`` (``None``: to the
    end), starting where a read of ``from_offset`` starts (the segment's index entry at or
    below it); returns the bytes checked. Raises :class:`CorruptLogError` for damage."""
    point = read_recovery_point(directory)
    segments = list_segments(directory)
    checked = 0
    for (base, path), end in zip(segments, segment_ends(directory, segments), strict=True):
        if end is not None and end <= from_offset:
            continue  # wholly below the range
        if to_offset is not None and base >= to_offset:
            break
        start = index_start(path, base, from_offset)
        checked += _check_segment(path, start, (to_offset, end), point)
    return checked


def check_written(path: Path, start: tuple[int, int], point: RecoveryPoint) -> int:
    """Check the batches a writer has written to its active segment at ``path``, from
    ``start`` (the first offset and byte no check has covered yet) to its end; returns the
    bytes checked. The writer holds the lock and its writes returned, so a torn end is damage
    here too: raises :class:`CorruptLogError` naming the file and the byte."""
    return _check_segment(path, start, (None, None), point, torn_ok=False)


def _check_segment(
    path: Path,
    start: tuple[int, int],
    bounds: tuple[int | None, int | None],
    point: RecoveryPoint,
    *,
    torn_ok: bool = True,
) -> int:
    """Check one segment's batches from ``start`` (first offset, byte) up to the first
    starting at ``to_offset`` or at ``end`` (``bounds``; ``end`` is the next segment's base,
    ``None`` for the last segment, whose tail may be torn when ``torn_ok``); the bytes
    checked."""
    to_offset, end = bounds
    whole, stop = _quick_check(path, start, bounds, point)
    if whole:
        return stop - start[1]
    scan = SegmentScan(path, position=start[1], next_offset=start[0], end_offset=end)
    for raw in scan:
        if to_offset is not None and raw.header.base_offset >= to_offset:
            return raw.position - start[1]
        check_epoch(path, raw, point)
    problem = scan.problem
    if problem is not None:
        if not (problem.tail and end is None and torn_ok):
            raise CorruptLogError(str(path), problem.position, problem.reason)
        confirm_tail(path, problem)  # raises for damage below the recovery point
    return scan.end_position - start[1]


_QUICK = struct.Struct(">qiibIhi")
"""The header fields the quick pass reads: base offset, length, epoch, magic, CRC, attributes,
last offset delta."""
_RECORD_COUNT = struct.Struct(">i")
_RECORD_COUNT_AT = HEADER_SIZE - 4


_CHUNK = 1 << 22
"""Bytes the quick pass reads at a time (a larger batch is read whole). Read, not mapped: a
mapped file that a writer truncates meanwhile would kill the reading process (SIGBUS)."""


def _quick_check(
    path: Path,
    start: tuple[int, int],
    bounds: tuple[int | None, int | None],
    point: RecoveryPoint,
) -> tuple[bool, int]:
    """``(True, where it stopped)`` when every batch of the segment from ``start`` up to the
    first starting at ``to_offset`` passes what :class:`SegmentScan` checks; ``(False, _)``
    at the first doubt, for the scan to say what it is. Conservative: it never passes what
    the scan refuses."""
    walk = _QuickWalk(start, bounds, point)
    with files.open_reader(path) as file:
        size = os.fstat(file.fileno()).st_size
        while walk.position < size:
            file.seek(walk.position)
            wanted = min(max(_CHUNK, walk.need), size - walk.position)
            data = file.read(wanted)
            verdict = walk.walk(data, size)
            if verdict is not None:
                return verdict, walk.position
            if len(data) < wanted:
                return False, walk.position  # shorter than it was: let the scan decide
    return walk.position == size, walk.position


class _QuickWalk:
    """Where the quick pass is: the byte and offset the next batch must start at, the epoch
    it must not go below, and how many bytes the next batch needs when a read cut it."""

    def __init__(
        self,
        start: tuple[int, int],
        bounds: tuple[int | None, int | None],
        point: RecoveryPoint,
    ) -> None:
        self.expected, self.position = start
        self.end = bounds[1]
        # A batch starting here is past the range, or past the segment's end (the bytes after
        # which are fenced: the scan stops there too).
        self.stop_at = min((bound for bound in bounds if bound is not None), default=None)
        self.point = point
        self.epoch_floor = -1
        self.need = 0

    def walk(self, data: bytes, size: int) -> bool | None:
        """Check the whole batches in ``data`` (the file's bytes from :attr:`position`):
        ``True`` at ``to_offset``, ``False`` at a doubt, ``None`` for more bytes."""
        view, at = memoryview(data), 0
        while at + HEADER_SIZE <= len(data):
            offset, length, epoch, magic, crc, _, delta = _QUICK.unpack_from(view, at)
            if self.stop_at is not None and offset >= self.stop_at and offset == self.expected:
                return True
            batch = length + LENGTH_PREFIX
            if at + batch > len(data) and HEADER_SIZE <= batch <= size - self.position:
                self.need = batch  # whole, but not all read yet
                return None
            if at + batch > len(data):
                return False  # runs past the end of the file
            (count,) = _RECORD_COUNT.unpack_from(view, at + _RECORD_COUNT_AT)
            if not self._plausible(offset, batch, epoch, magic, count, delta) or (
                calc_crc32c(view[at + CRC_START : at + batch]) != crc
            ):
                return False
            at += batch
            self.position += batch
            self.expected, self.epoch_floor = offset + count, epoch
        if self.position >= size or self.position + HEADER_SIZE <= size:
            return None  # the end of the file, or more to read
        return False  # a partial header at the end

    def _plausible(
        self, offset: int, batch: int, epoch: int, magic: int, count: int, delta: int
    ) -> bool:
        newest = self.point.offset - 1
        return (
            magic == MAGIC
            and batch >= HEADER_SIZE
            and offset == self.expected
            and epoch >= self.epoch_floor
            and count == delta + 1 >= 1
            and (self.end is None or offset + delta < self.end)
            and not (offset + delta == newest and epoch != self.point.epoch)
        )
