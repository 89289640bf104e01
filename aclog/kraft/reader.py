"""Reading the segments of a KRaft metadata log (``__cluster_metadata-0/*.log``).

Segments are named ``{base_offset:020d}.log`` and hold plain v2 record batches, the same layout
aclog's own log uses, so the scan is :class:`aclog.log.segment.SegmentScan`: every batch's header,
size, CRC-32C, offset continuity and epoch order are checked.

Each batch becomes a :class:`~aclog.kraft.batch.KraftBatch` (:mod:`aclog.kraft.batch`): the
ACL, SCRAM and no-op records as aclog record dataclasses with their offsets, a
``LeaderChangeRecord`` for each leader-change control record, and counts of everything skipped
(other metadata api keys; other control types).

Read-only and safe on a live directory: no lock is taken, nothing is written, Kafka's ``.index``
and ``.timeindex`` files are not used, only names matching ``{20 digits}.log`` are segments (so
``.log.deleted``, ``.cleaned`` and ``.swap`` files are ignored), and an incomplete batch at the end
of the last segment (a write in progress) ends the read quietly. Damage followed by valid data,
or a hole between segments, raises :class:`KraftCorruptError`.

Thread-safe: each read opens its own files. Cost: O(bytes read), plus decoding each batch
(:mod:`aclog.kraft.batch`).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from aclog.kraft.batch import KraftBatch, decode_batch
from aclog.kraft.column_batch import KraftColumnBatch, decode_batch_as_columns
from aclog.kraft.errors import KraftCorruptError
from aclog.log.batch import HEADER_SIZE, parse_header
from aclog.log.segment import (
    CRC_MISMATCH,
    RawBatch,
    ScanProblem,
    SegmentScan,
    list_segments,
    segment_base_offset,
)

_Batch = TypeVar("_Batch", KraftBatch, KraftBatch | KraftColumnBatch)


def tail_note(path: Path, problem: ScanProblem) -> str:
    """What the bytes after the newest segment's last valid batch are, in words: an incomplete
    batch is one being written or torn by a crash; a whole batch that fails its CRC is damage,
    unless Kafka was writing it just then (which reading again tells apart)."""
    where = f"{path} at byte {problem.position}, after offset {problem.offset - 1}"
    if problem.reason == CRC_MISMATCH:
        return (
            f"{where}: the last batch is whole but fails its CRC-32C: damage, or a write in "
            "progress if Kafka is running (read again; if it stays, check the broker's disk)"
        )
    return (
        f"{where}: {problem.reason}: a batch still being written, or torn by a crash (Kafka "
        "truncates it when it recovers); read as the end of the log"
    )


def read_kraft(
    directory: Path | str,
    from_offset: int = 0,
    to_offset: int | None = None,
    *,
    on_tail: Callable[[Path, ScanProblem], None] | None = None,
) -> Iterator[KraftBatch]:
    """Every batch of the KRaft log in ``directory`` holding an offset in
    ``[from_offset, to_offset)`` (``None``: to the end), oldest first.

    Bytes after the last valid batch of the newest segment are read as a batch not yet (or
    never wholly) written, as Kafka's recovery truncates them; ``on_tail`` is told of them
    (the segment and where its scan stopped), so a check can report them.

    A batch straddling a bound is returned whole; callers that need exact bounds filter its
    records. Snapshots (``.checkpoint`` files) are not read here; see
    :mod:`aclog.kraft.checkpoint` and :mod:`aclog.kraft.replay`.
    """
    return _read(directory, from_offset, to_offset, on_tail, decode_batch)


def read_kraft_columns(
    directory: Path | str,
    from_offset: int = 0,
    to_offset: int | None = None,
    *,
    on_tail: Callable[[Path, ScanProblem], None] | None = None,
) -> Iterator[KraftBatch | KraftColumnBatch]:
    """:func:`read_kraft`, each batch the column decoder takes as a :class:`KraftColumnBatch`
    (:func:`~aclog.kraft.column_batch.decode_batch_as_columns`): what a replay reads."""
    return _read(directory, from_offset, to_offset, on_tail, decode_batch_as_columns)


def _read(
    directory: Path | str,
    from_offset: int,
    to_offset: int | None,
    on_tail: Callable[[Path, ScanProblem], None] | None,
    decode: Callable[[RawBatch, Path], _Batch],
) -> Iterator[_Batch]:
    directory = Path(directory)
    segments = list_segments(directory)
    bases = [base for base, _ in segments]
    first = max(bisect.bisect_right(bases, from_offset) - 1, 0)
    last_epoch = -1
    for i in range(first, len(segments)):
        base, path = segments[i]
        if to_offset is not None and base >= to_offset:
            return
        is_last = i == len(segments) - 1
        try:
            scan = SegmentScan(
                path, position=0, next_offset=base, last_epoch=last_epoch, skip_below=from_offset
            )
        except FileNotFoundError:
            raise KraftCorruptError(
                path,
                None,
                "the segment was deleted while being read (Kafka's retention "
                "removed it); read again, from a later offset or the newest snapshot",
            ) from None
        for raw in scan:
            if to_offset is not None and raw.header.base_offset >= to_offset:
                return
            yield decode(raw, path)
        _check_segment_end(scan, path, segments[i + 1] if not is_last else None, on_tail)
        last_epoch = scan.last_epoch


def _check_segment_end(
    scan: SegmentScan,
    path: Path,
    following: tuple[int, Path] | None,
    on_tail: Callable[[Path, ScanProblem], None] | None,
) -> None:
    """After a segment's scan: tell ``on_tail`` of the newest segment's last bytes, raise
    :class:`KraftCorruptError` for damage, or for a hole before the ``following`` segment."""
    problem = scan.problem
    is_last = following is None
    if problem is not None and problem.tail and is_last and on_tail is not None:
        on_tail(path, problem)
    if problem is not None and not (problem.tail and is_last):
        what = (
            "damage at the end of a segment that is not the last"
            if problem.tail
            else ("damage followed by valid batches")
        )
        raise KraftCorruptError(path, problem.position, f"{problem.reason} ({what})")
    if following is not None and following[0] != scan.next_offset:
        raise KraftCorruptError(
            following[1],
            None,
            f"the segment starts at offset {following[0]} but the previous one ends "
            f"before offset {scan.next_offset}: the log has a hole",
        )


def read_kraft_segment(
    path: Path | str, *, on_tail: Callable[[Path, ScanProblem], None] | None = None
) -> Iterator[KraftBatch]:
    """Every batch of one segment file read on its own (its base offset from its name, else from
    its first batch); bytes after its last valid batch end the read, told to ``on_tail``."""
    path = Path(path)
    base = segment_base_offset(path)
    if base is None:
        with open(path, "rb") as file:
            head = file.read(HEADER_SIZE)
        base = parse_header(head).base_offset if len(head) == HEADER_SIZE else 0
    scan = SegmentScan(path, position=0, next_offset=base)
    for raw in scan:
        yield decode_batch(raw, path)
    problem = scan.problem
    if problem is not None and problem.tail and on_tail is not None:
        on_tail(path, problem)
    if problem is not None and not problem.tail:
        reason = f"{problem.reason} (damage followed by valid batches)"
        raise KraftCorruptError(path, problem.position, reason)
