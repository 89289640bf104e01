"""Tailing a live KRaft metadata log: the complete batches appended since the last poll, in
the active segment and in segments rolled since, read-only (no lock, no writes, no side files).

A :class:`KraftTail` keeps a cursor (segment, byte position, next offset, epoch, and the header
of the last batch read) so a poll reads only new bytes. Per poll it lists the segments first,
then reads the current one from the cursor: Kafka creates a new segment only after its last
append to the old one, so when a newer segment was already listed the old one is complete.

What a poll decides about the bytes it finds:

- an incomplete batch at the end of the newest segment is a write in progress, and zeros
  there are space Kafka preallocated: wait for it;
- a batch in the newest segment that is complete (its length fits) but does not check (its
  CRC-32C, its offsets or its epoch) may be a write still landing, so it is read again at the
  next poll; still bad then, or at the end of a segment that is not the newest, it is damage:
  :class:`KraftCorruptError`;
- a segment that shrank below the cursor, or whose last read batch now has another epoch or
  other offsets (a new leader truncated the log and rewrote it), is truncation:
  :class:`KraftTruncatedError`;
- a next offset that no segment holds any more (Kafka deleted segments after a snapshot before
  they were read), or a hole between segments: :class:`KraftRolledError`.

Batches a poll yields are whole and CRC-checked; an error stops the poll after the last good
batch, and the cursor stays after it (the errors and their messages:
:mod:`aclog.kraft.tail_errors`). Not thread-safe: one tail per thread. Cost per poll: a
directory listing, a stat, one 61-byte header read, and O(new bytes).
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path

from aclog.kraft.batch import KraftBatch, decode_batch
from aclog.kraft.errors import KraftCorruptError
from aclog.kraft.tail_errors import (
    REIMPORT,
    KraftRolledError,
    KraftTruncatedError,
    damage,
    diverged,
    hole_message,
    rolled_message,
)
from aclog.log.batch import HEADER_SIZE, MAGIC, parse_header
from aclog.log.segment import CRC_MISMATCH, RawBatch, ScanProblem, SegmentScan, list_segments


@dataclass(frozen=True, slots=True)
class LastRead:
    """Where the last batch read sits and what its header said: its identity, which each poll
    checks is still there (other offsets or another CRC there mean the log was truncated)."""

    position: int
    base_offset: int
    last_offset: int
    epoch: int
    crc: int


@dataclass
class KraftTail:
    """A read-only cursor over ``directory``'s segments from offset ``next_offset`` on.

    ``last`` is the last batch read (checked at every poll for truncation); ``None`` at a
    position no batch of the current segment precedes (a snapshot's end offset, or the first
    batch of a segment).
    """

    directory: Path
    segment: Path
    segment_base: int
    position: int
    next_offset: int
    last_epoch: int = -1
    last: LastRead | None = None
    suspect: int | None = None
    skip_below: int = 0

    @classmethod
    def open(
        cls, directory: Path, next_offset: int, after: tuple[int, int, int] | None = None
    ) -> KraftTail:
        """A tail whose first batch holds ``next_offset``; ``after`` (base, last, epoch) is
        the batch read just before it, checked to be still there when its segment is."""
        segments = list_segments(directory)
        if not segments or segments[0][0] > next_offset:
            start = segments[0][0] if segments else None
            raise KraftRolledError(rolled_message(directory, next_offset, start))
        base, path = [(b, p) for b, p in segments if b <= next_offset][-1]
        tail = cls(directory, path, base, 0, base, skip_below=next_offset)
        if after is not None:
            _check_still_there(directory, segments, after)
            tail.last_epoch = after[2]
        tail._seek(next_offset)
        return tail

    def _seek(self, next_offset: int) -> None:
        """Put the cursor before the batch holding ``next_offset`` (or at the segment's end)."""
        scan = SegmentScan(
            self.segment, position=0, next_offset=self.segment_base, skip_below=next_offset
        )
        for raw in scan:
            self.position, self.next_offset = raw.position, raw.header.base_offset
            return
        self.position, self.next_offset = scan.end_position, scan.next_offset
        if scan.next_offset < next_offset:
            raise KraftTruncatedError(
                f"the KRaft log in {self.directory} now ends before offset {next_offset}, "
                f"below what was already imported: it was truncated, so changes imported from "
                f"it may never have been committed; {REIMPORT}"
            )

    def _advance(self, raw: RawBatch) -> None:
        """Move the cursor past ``raw``, remembering it for the truncation check."""
        header = raw.header
        self.last = LastRead(
            raw.position, header.base_offset, header.last_offset, header.epoch, header.crc
        )
        self.position = raw.position + header.size
        self.next_offset = header.last_offset + 1
        self.last_epoch = header.epoch

    def poll(self) -> Iterator[KraftBatch]:
        """Every complete batch appended since the last poll, oldest first (see the module
        docstring for what stops a poll)."""
        while True:
            segments = list_segments(self.directory)
            newer = [(base, path) for base, path in segments if base > self.segment_base]
            problem = yield from self._read_segment(newer)
            if not newer:
                self._judge_end(problem)
                return
            if problem is not None:
                raise damage(self.segment, problem, "at the end of a segment that is not the last")
            base, path = newer[0]
            if base != self.next_offset:
                raise KraftRolledError(hole_message(self.directory, self.next_offset, base))
            self.segment, self.segment_base, self.position, self.last = path, base, 0, None

    def _check_gone_segment(self, newer: list[tuple[int, Path]]) -> None:
        """The current segment is gone: fine when retention deleted it after it was read to its
        end; truncation when no newer segment exists (Kafka never deletes the active one, but
        truncating below its base does); else segments were deleted before they were read."""
        if newer and newer[0][0] == self.next_offset:
            return
        if not newer:
            raise KraftTruncatedError(
                f"{self.segment} was removed while it was the newest segment, after offsets up "
                f"to {self.next_offset - 1} were imported from it: the KRaft log was truncated, "
                f"so changes imported from it may never have been committed; {REIMPORT}"
            )
        raise KraftRolledError(rolled_message(self.directory, self.next_offset, None, self.segment))

    def _read_segment(
        self, newer: list[tuple[int, Path]]
    ) -> Generator[KraftBatch, None, ScanProblem | None]:
        """The new batches of the current segment; returns the problem its scan stopped at."""
        try:
            self._check_not_truncated(self.segment.stat().st_size)
            scan = SegmentScan(
                self.segment,
                position=self.position,
                next_offset=self.next_offset,
                last_epoch=self.last_epoch,
                skip_below=self.skip_below,
            )
            raws = iter(scan)
            first = next(raws, None)  # opens the file: once open, a deletion cannot hurt
        except FileNotFoundError:
            self._check_gone_segment(newer)
            return None
        for raw in chain([] if first is None else [first], raws):
            batch = decode_batch(raw, self.segment)
            self._advance(raw)
            self.suspect = None
            if batch.base_offset < self.skip_below:  # straddles the start: keep what follows
                kept = tuple(r for r in batch.records if r.offset >= self.skip_below)
                batch = replace(batch, records=kept)
            yield batch
        self.position = max(self.position, scan.end_position)
        return scan.problem

    def _check_not_truncated(self, size: int) -> None:
        """The segment still holds everything read from it, unchanged."""
        if size < self.position:
            raise KraftTruncatedError(
                f"{self.segment} shrank to {size} bytes, below the {self.position} bytes already "
                f"imported (offsets up to {self.next_offset - 1}): the KRaft log was truncated, "
                f"so changes imported from it may never have been committed; {REIMPORT}"
            )
        last = self.last
        if last is None:
            return
        with open(self.segment, "rb") as file:
            file.seek(last.position)
            head = file.read(HEADER_SIZE)
        header = parse_header(head) if len(head) == HEADER_SIZE else None
        seen = None if header is None else (header.base_offset, header.last_offset, header.crc)
        if seen != (last.base_offset, last.last_offset, last.crc):
            epoch = None if header is None else header.epoch
            raise KraftTruncatedError(
                diverged(self.directory, (last.base_offset, last.last_offset, last.epoch), epoch)
            )

    def _judge_end(self, problem: ScanProblem | None) -> None:
        """Wait for an incomplete batch; a complete bad one at two polls in a row is damage.

        Even "damage followed by valid batches" waits for the second look: the scan's view of
        a file a writer is appending to may mix two moments (its size is fixed when it starts,
        the check for valid data after a problem reads on to the file's current end).
        """
        if problem is None or not self._complete_at(problem.position):
            self.suspect = None  # nothing wrong, or a write in progress
            return
        if self.suspect == problem.position:
            raise damage(self.segment, problem, "a complete batch, still bad at the next poll")
        self.suspect = problem.position

    def _complete_at(self, position: int) -> bool:
        """Whether the file holds the whole batch whose header starts at ``position``; zero
        bytes there are space not yet written (a segment Kafka preallocated), not a batch."""
        with open(self.segment, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            file.seek(position)
            head = file.read(HEADER_SIZE)
        if len(head) < HEADER_SIZE or not any(head):
            return False
        header = parse_header(head)
        return header.magic != MAGIC or header.size <= size - position


def _check_still_there(
    directory: Path, segments: list[tuple[int, Path]], after: tuple[int, int, int]
) -> None:
    """Raise :class:`KraftTruncatedError` unless batch ``after`` (base, last, epoch) is still in
    the log; nothing to check when its segment was deleted (it was then below a snapshot, so
    committed)."""
    holding = [(b, p) for b, p in segments if b <= after[0]]
    if not holding:
        return
    base, path = holding[-1]
    scan = SegmentScan(path, position=0, next_offset=base, skip_below=after[0])
    for raw in scan:
        header = raw.header
        if (header.base_offset, header.last_offset, header.epoch) != after:
            raise KraftTruncatedError(diverged(directory, after, header.epoch))
        return
    problem = scan.problem
    # A batch imported whole cannot be a write in progress: bad bytes there are damage.
    if problem is not None and (not problem.tail or problem.reason == CRC_MISMATCH):
        raise KraftCorruptError(
            path,
            problem.position,
            f"{problem.reason} in KRaft batch {after[0]}..{after[1]}, which was imported whole "
            "before: the bytes changed on disk since. Check the broker's disk and logs; once "
            f"Kafka has repaired the log, restart the follow, or {REIMPORT}",
        )
    raise KraftTruncatedError(diverged(directory, after, None))
