"""Reading the segments of a KRaft metadata log (``__cluster_metadata-0/*.log``).

Segments are named ``{base_offset:020d}.log`` and hold plain v2 record batches, the same layout
aclog's own log uses, so the scan is :class:`aclog.log.segment.SegmentScan`: every batch's header,
size, CRC-32C, offset continuity and epoch order are checked. Data batches are parsed with
:func:`aclog.log.batch.record_values` (kafka-python for compressed ones), control batches with
kafka-python's ``DefaultRecordBatch``, which keeps their keys.

Each batch becomes a :class:`KraftBatch`: the ACL, SCRAM and no-op records as aclog record
dataclasses with their offsets, a :class:`LeaderChangeRecord` for each leader-change control
record, and counts of everything skipped (other metadata api keys; other control types).

Read-only and safe on a live directory: no lock is taken, nothing is written, Kafka's ``.index``
and ``.timeindex`` files are not used, only names matching ``{20 digits}.log`` are segments (so
``.log.deleted``, ``.cleaned`` and ``.swap`` files are ignored), and an incomplete batch at the end
of the last segment (a write in progress) ends the read quietly. Damage followed by valid data,
or a hole between segments, raises :class:`KraftCorruptError`.

Thread-safe: each read opens its own files. Cost: O(bytes read); a batch of ACL records is
decoded from its bytes by numpy passes (:mod:`aclog.kraft.acl_batch`), any other batch value by
value and its ACL/SCRAM values a field at a time (:mod:`aclog.kraft.columns`); skipped records
cost three byte reads each.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from itertools import compress, repeat
from operator import is_not, not_
from pathlib import Path
from typing import NamedTuple

from kafka.record.default_records import DefaultRecordBatch

from aclog.kraft.acl_batch import decode_acl_batch
from aclog.kraft.codec import LEADER_CHANGE, control_record_type, leader_change_leader
from aclog.kraft.columns import Decoded, decode_metadata_values
from aclog.kraft.errors import KraftCorruptError
from aclog.log.batch import HEADER_SIZE, parse_header, record_values
from aclog.log.segment import (
    CRC_MISMATCH,
    RawBatch,
    ScanProblem,
    SegmentScan,
    list_segments,
    segment_base_offset,
)
from aclog.records import LeaderChangeRecord, Record


class KraftRecord(NamedTuple):
    """One decoded record with where and when KRaft committed it."""

    offset: int
    epoch: int
    timestamp_ms: int
    record: Record


@dataclass(frozen=True, slots=True)
class KraftBatch:
    """One KRaft batch, offsets ``base_offset..last_offset``, decoded into aclog records.

    ``records`` holds only what aclog tracks (ACL, SCRAM, no-op, leader change) in offset
    order; ``skipped`` counts the other metadata records by api key and ``skipped_control`` the
    other control records by control type. ``from_checkpoint`` marks the batch that stands for
    a whole ``.checkpoint`` snapshot (see :func:`aclog.kraft.checkpoint.checkpoint_batch`).
    ``timestamp_ms`` is the batch's max timestamp (KRaft writes one append time per batch).
    """

    base_offset: int
    last_offset: int
    epoch: int
    timestamp_ms: int
    records: tuple[KraftRecord, ...]
    skipped: Mapping[int, int] = field(default_factory=dict)
    skipped_control: Mapping[int, int] = field(default_factory=dict)
    is_control: bool = False
    source: Path | None = None
    position: int = 0
    from_checkpoint: bool = False

    @property
    def record_count(self) -> int:
        """How many records the KRaft batch holds (decoded or skipped)."""
        return self.last_offset - self.base_offset + 1


_NEW_RECORD: Callable[[tuple[int, int, int, Record]], KraftRecord] = partial(
    tuple.__new__, KraftRecord
)


def kraft_records(
    offsets: Iterable[int], epoch: int, timestamp_ms: int, records: Iterable[Record]
) -> tuple[KraftRecord, ...]:
    """``records`` at ``offsets``, all with ``epoch`` and ``timestamp_ms``: the tuples are
    made in C (a named tuple's own constructor is a Python call per record)."""
    rows = zip(offsets, repeat(epoch), repeat(timestamp_ms), records)
    return tuple(map(_NEW_RECORD, rows))


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
            yield decode_batch(raw, path)
        problem = scan.problem
        if problem is not None and problem.tail and is_last and on_tail is not None:
            on_tail(path, problem)
        if problem is not None and not (problem.tail and is_last):
            what = (
                "damage at the end of a segment that is not the last"
                if problem.tail
                else ("damage followed by valid batches")
            )
            raise KraftCorruptError(path, problem.position, f"{problem.reason} ({what})")
        if not is_last and segments[i + 1][0] != scan.next_offset:
            raise KraftCorruptError(
                segments[i + 1][1],
                None,
                f"the segment starts at offset {segments[i + 1][0]} but the previous one ends "
                f"before offset {scan.next_offset}: the log has a hole",
            )
        last_epoch = scan.last_epoch


def decode_batch(raw: RawBatch, path: Path, *, in_snapshot: bool = False) -> KraftBatch:
    """Decode one CRC-checked batch of ``path`` (a segment, or a snapshot when ``in_snapshot``)."""
    header = raw.header
    if header.is_control:
        return _decode_control(raw, path)
    api_keys, decoded = _data_values(raw, path, in_snapshot)
    epoch, timestamp = header.epoch, header.max_timestamp
    offsets: Iterable[int] = range(header.base_offset, header.base_offset + len(decoded))
    kept = list(map(is_not, decoded, repeat(None)))
    skipped = Counter(compress(api_keys, map(not_, kept)))
    found: Iterable[Record | None] = decoded
    if skipped:  # other api keys: count them, keep the rest with their own offsets
        offsets, found = compress(offsets, kept), compress(decoded, kept)
    records = kraft_records(offsets, epoch, timestamp, found)  # type: ignore[arg-type]
    return KraftBatch(
        header.base_offset,
        header.last_offset,
        epoch,
        timestamp,
        records,
        dict(skipped),
        {},
        False,
        path,
        raw.position,
    )


def snapshot_data_records(raw: RawBatch, path: Path) -> tuple[list[Record], Counter[int]]:
    """The aclog records of a snapshot's data batch and the counts of the skipped api keys:
    :func:`decode_batch` without the offsets a snapshot's records do not keep."""
    api_keys, decoded = _data_values(raw, path, True)
    kept = list(map(is_not, decoded, repeat(None)))
    records: list[Record] = list(compress(decoded, kept))  # type: ignore[arg-type]
    return records, Counter(compress(api_keys, map(not_, kept)))


def _data_values(raw: RawBatch, path: Path, in_snapshot: bool) -> Decoded:
    header = raw.header
    if not raw.data[22] & 0x27:  # neither compressed nor a control batch: try the fast path
        decoded = decode_acl_batch(raw.data, header.record_count)
        if decoded is not None:
            return decoded
    try:
        values = record_values(raw.data)
    except ValueError as err:
        raise KraftCorruptError(path, raw.position, str(err)) from None
    if len(values) != header.record_count:
        raise KraftCorruptError(
            path, raw.position, f"{len(values)} records, header says {header.record_count}"
        )
    where = f"{path} (snapshot offsets)" if in_snapshot else path
    return decode_metadata_values(values, path=where, first_offset=header.base_offset)


def control_records(raw: RawBatch, path: Path) -> list[tuple[int, int, bytes | None]]:
    """(offset, control type, value) of every record of a control batch, via kafka-python."""
    try:
        parsed = [(r.offset, r.key, r.value) for r in DefaultRecordBatch(raw.data)]
    except Exception as err:  # kafka-python raises CorruptRecordError, struct.error and friends
        raise KraftCorruptError(
            path, raw.position, f"control records do not parse: {err}"
        ) from None
    if len(parsed) != raw.header.record_count:
        raise KraftCorruptError(
            path, raw.position, f"{len(parsed)} records, header says {raw.header.record_count}"
        )
    return [
        (offset, control_record_type(key, path=path, offset=offset), value)
        for offset, key, value in parsed
    ]


def _decode_control(raw: RawBatch, path: Path) -> KraftBatch:
    header = raw.header
    epoch, timestamp = header.epoch, header.max_timestamp
    records: list[KraftRecord] = []
    skipped: Counter[int] = Counter()
    for offset, control_type, value in control_records(raw, path):
        if control_type == LEADER_CHANGE:
            leader = leader_change_leader(value, path=path, offset=offset)
            records.append(KraftRecord(offset, epoch, timestamp, LeaderChangeRecord(leader, epoch)))
        else:
            skipped[control_type] += 1
    return KraftBatch(
        header.base_offset,
        header.last_offset,
        epoch,
        timestamp,
        tuple(records),
        {},
        dict(skipped),
        True,
        path,
        raw.position,
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
