"""KRaft batches in the shapes aclog's own batches have: the :class:`DecodedBatch` every tool
reads (:func:`kraft_decoded_batch`), and the :class:`~aclog.replay.batches.ReplayBatch` that
:func:`~aclog.replay.batches.replay_batches`, the one replay loop, reads
(:func:`kraft_replay_batch`), so that a KRaft log replays the way aclog's own log does.

A :class:`~aclog.kraft.KraftBatch` keeps only the records aclog tracks, each with its offset;
replay reads one record per offset from the batch's base offset. Where the KRaft batch held a
record aclog skips (another metadata api key, another control record type, or a record below
the snapshot a replay starts from), the replay batch holds a :class:`NoOpRecord`, which changes
nothing: every record is then replayed at its own offset, and a replay error names it.

A batch read as columns (:class:`~aclog.kraft.KraftColumnBatch`, see
:func:`~aclog.kraft.reader.read_kraft_columns`) needs neither: it is a :class:`DecodedBatch`
holding its columns (:func:`kraft_column_batch`), replayed onto the ACL table as aclog's own
decoded batches are.

Immutable values; a :class:`KraftTail` belongs to one replay. Cost: one C-level pass per batch to
take its records out of their offset tuples; a batch with skipped records one list of its size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter, sub

from aclog.kraft import KraftBatch, KraftColumnBatch
from aclog.records import NoOpRecord, Record
from aclog.records.build import consume
from aclog.records.types import RECORD_TYPES
from aclog.replay.stream import DecodedBatch, Entry

_NOTHING = NoOpRecord()
_OFFSET = itemgetter(0)  # KraftRecord.offset, without a Python call per record
_RECORD = itemgetter(3)  # KraftRecord.record


def kraft_decoded_batch(batch: KraftBatch) -> DecodedBatch:
    """A KRaft batch as the decoded batch every tool reads: entries at their KRaft offsets,
    KRaft record version 0, no author (KRaft does not record who asked)."""
    entries = tuple(
        Entry(
            r.offset,
            r.epoch,
            r.timestamp_ms,
            RECORD_TYPES[type(r.record)],
            0,
            r.record,
            batch.base_offset,
            None,
        )
        for r in batch.records
    )
    return DecodedBatch.of_entries(
        batch.base_offset, batch.last_offset, batch.epoch, batch.timestamp_ms, entries, None
    )


@dataclass(frozen=True, slots=True)
class KraftReplayBatch:
    """A KRaft batch as replay reads it: ``records[i]`` is the record at ``base_offset + i``
    (a :class:`NoOpRecord` where aclog skipped one), through ``last_offset``."""

    base_offset: int
    last_offset: int
    epoch: int
    timestamp_ms: int
    records: list[Record]


def kraft_replay_batch(batch: KraftBatch) -> KraftReplayBatch:
    """``batch`` with one record per offset, for :func:`~aclog.replay.batches.replay_batches`."""
    kept = batch.records
    records: list[Record] = list(map(_RECORD, kept))
    size = batch.last_offset - batch.base_offset + 1
    if len(records) != size:  # skipped records between them: each kept one at its offset
        placed: list[Record] = [_NOTHING] * size
        at = map(sub, map(_OFFSET, kept), repeat(batch.base_offset))
        consume(map(placed.__setitem__, at, records))
        records = placed
    return KraftReplayBatch(
        batch.base_offset, batch.last_offset, batch.epoch, batch.timestamp_ms, records
    )


class KraftTail:
    """The replay batches of a run of KRaft batches, in order, for one replay: it counts the
    records aclog tracks (:attr:`records`, what a rebuild reports as replayed) and tells
    ``on_batch`` of each batch, as a :class:`DecodedBatch`, once replay has taken it (when
    the replay asks for the next one). A batch read as columns
    (:class:`~aclog.kraft.KraftColumnBatch`) is replayed as a :class:`DecodedBatch` holding
    them, as aclog's own batches are: onto the ACL table with no record object."""

    def __init__(
        self,
        batches: Iterable[KraftBatch | KraftColumnBatch],
        on_batch: Callable[[DecodedBatch], None] | None = None,
    ) -> None:
        self._batches = batches
        self._on_batch = on_batch
        self.records = 0

    def __iter__(self) -> Iterator[KraftReplayBatch | DecodedBatch]:
        for batch in self._batches:
            if isinstance(batch, KraftBatch):
                self.records += len(batch.records)
                yield kraft_replay_batch(batch)
                decoded = None if self._on_batch is None else kraft_decoded_batch(batch)
            else:
                self.records += batch.count
                decoded = kraft_column_batch(batch)
                yield decoded
            if self._on_batch is not None and decoded is not None:  # resumed: replayed
                self._on_batch(decoded)


def kraft_column_batch(batch: KraftColumnBatch) -> DecodedBatch:
    """A KRaft batch read as columns as the decoded batch replay and every tool read: its
    records at their KRaft offsets, KRaft record version 0, no author (as
    :func:`kraft_decoded_batch` gives the same batch read as records)."""
    return DecodedBatch(
        batch.base_offset, batch.last_offset, batch.epoch, batch.timestamp_ms, None, batch.decoded
    )
