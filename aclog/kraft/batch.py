"""One KRaft batch decoded into aclog records: :class:`KraftBatch`, its :class:`KraftRecord`
rows, and :func:`decode_batch`, which turns a CRC-checked raw batch of a segment or a snapshot
into one. The ACL, SCRAM and no-op records become aclog record dataclasses with their offsets,
each leader-change control record a :class:`LeaderChangeRecord`, and everything else is counted
as skipped (other metadata api keys; other control types). Data batches are parsed with
:func:`aclog.log.batch.record_values` (kafka-python for compressed ones), control batches with
kafka-python's ``DefaultRecordBatch``, which keeps their keys.

Immutable values and pure functions; thread-safe. Cost: a batch of ACL records is decoded from
its bytes by numpy passes (:mod:`aclog.kraft.acl_batch`), any other batch value by value and
its ACL/SCRAM values a field at a time (:mod:`aclog.kraft.columns`); skipped records cost three
byte reads each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
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
from aclog.log.batch import record_values
from aclog.log.segment import RawBatch
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
