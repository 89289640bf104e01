"""How a whole batch of records replays into a :class:`~aclog.image.metadata_delta.MetadataDelta`:
onto the image's table in one go, into an ACL delta over a mapping in one checked go, or one
record at a time, always with the result one-by-one replay gives (the same image, the same
first error at the same offset).

A batch of ACL records beside records that cannot fail (request contexts, no-ops, leader
changes: :data:`_BATCHABLE`) goes onto the table in one go
(:meth:`~aclog.image.acl_table_replay.AclTableReplay.batch`); when the table declines it, in the
largest pieces the table takes (:meth:`~aclog.image.acl_table_replay.AclTableReplay.
replay_split`), a single record it declines through the one-by-one reference, which raises the
first error. A batch of fewer than :data:`BULK_MIN` records, or one with a record that may fail
(SCRAM), is replayed one record at a time. In a backlog's replay
(:attr:`~aclog.image.acl_table_replay.AclTableReplay.queues`) a batch of records (no columns) is
too: its ACL records join the queue of the batches before it, and the queue is applied in
one go (so a log written a request at a time pays a few table applies, not one per batch).

Not thread-safe (a delta is owned by the task that replays). Cost: O(records); a batch decoded
from a segment builds no ACL record unless the table declines it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import count
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Protocol

from aclog.image.acls import AclsDelta
from aclog.image.errors import ReplayError
from aclog.records.decoded import DecodedRecords
from aclog.records.types import (
    AccessControlEntryRecord,
    LeaderChangeRecord,
    NoOpRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RequestContextRecord,
)

if TYPE_CHECKING:
    from aclog.image.acl_table_replay import AclTableReplay

BULK_MIN = 8
"""Smaller batches are replayed one by one (the batch check's setup, or a table apply's,
would cost more)."""
_ACL_RECORDS = frozenset({AccessControlEntryRecord, RemoveAccessControlEntryRecord})
_BATCHABLE = _ACL_RECORDS | {RequestContextRecord, NoOpRecord, LeaderChangeRecord}
"""Record classes a batch may hold and still replay in one go: ACL records, and records whose
replay cannot fail (so the ACL records' checks decide alone whether the batch applies)."""


class MetadataDelta(Protocol):
    """What the routes need of a :class:`~aclog.image.metadata_delta.MetadataDelta` (named
    here as a protocol so that the delta may import its routes without a cycle)."""

    def get_or_create_acls_delta(self) -> AclsDelta: ...
    def table_replay(self) -> AclTableReplay | None: ...
    def replay_pairs(self, pairs: Iterable[tuple[int, Record]]) -> None: ...


def replay_records(delta: MetadataDelta, records: Iterable[Record], first_offset: int) -> None:
    """Apply ``records`` to ``delta``, the first read at ``first_offset`` and the rest at the
    offsets after it, as :meth:`~aclog.image.metadata_delta.MetadataDelta.replay` would one by
    one: a batch of ACL records in one go where it can (see the module)."""
    if not isinstance(records, (list, tuple)):
        records = list(records)
    if not _replay_acl_batch(delta, records, first_offset):
        delta.replay_pairs(zip(count(first_offset), records))


def replay_decoded(delta: MetadataDelta, decoded: DecodedRecords, first_offset: int) -> None:
    """:func:`replay_records` of ``decoded.records``, its ACL records taken from the columnar
    decoder's columns (:func:`~aclog.image.acl_column_rows.of_kinds`): no ACL record is built
    unless the table declines the batch or the delta is read. A batch decoded record by record
    (no columns: ``decoded.columnar`` is false) replays its records."""
    if not decoded.columnar and decoded.count >= BULK_MIN:
        replay_records(delta, decoded.records, first_offset)
        return
    kinds, others = decoded.acl_kinds, decoded.others
    tables = delta.table_replay() if kinds else None
    # A batch of a few records (a log written one command at a time) goes through the
    # reference over the table, whose replays pile up until the next batch applies them
    # all at once: a table apply's fixed cost is that of many lookups.
    small = decoded.count < BULK_MIN
    if small or tables is None or not set(map(type, map(itemgetter(1), others))) <= _BATCHABLE:
        delta.replay_pairs(zip(count(first_offset), decoded.records))
        return
    from aclog.image.acl_column_rows import of_kinds, removal_words  # noqa: PLC0415  # numpy

    others_at = [(first_offset + row, record) for row, record in others]
    if not tables.batch(of_kinds(kinds), removal_words(kinds), _acl_records_of(decoded)):
        _replay_split(delta, tables, _acl_pairs(decoded.records, first_offset), others_at)
    delta.replay_pairs(others_at)


def _replay_acl_batch(delta: MetadataDelta, records: Sequence[Record], first_offset: int) -> bool:
    """A batch of ACL records and records that cannot fail, onto the table (declined:
    ``False``, nothing replayed)."""
    kinds = set(map(type, records))
    if not kinds <= _BATCHABLE or not kinds & _ACL_RECORDS:
        return False
    tables = delta.table_replay()
    if tables is None:
        return _replay_mapping_batch(delta, records, first_offset)
    if tables.queues:  # a backlog: queued with the batches around it, applied at once
        return False
    pairs = _acl_pairs(records, first_offset)
    others: list[tuple[int, Record]] = []
    if len(pairs) < len(records):  # a request context (or another record that cannot fail)
        at = zip(count(first_offset), records)
        others = [pair for pair in at if type(pair[1]) not in _ACL_RECORDS]
    if not tables.batch_of_records([record for _, record in pairs]):
        _replay_split(delta, tables, pairs, others)
    delta.replay_pairs(others)
    return True


def _replay_mapping_batch(
    delta: MetadataDelta, records: Sequence[Record], first_offset: int
) -> bool:
    """A batch into the ACL delta over an image held in a mapping (no replay onto a table
    runs), in one checked go (:meth:`~aclog.image.acls.AclsDelta.replay_batch`); ``False``
    when it declines (nothing replayed)."""
    pairs = _acl_pairs(records, first_offset)
    if len(pairs) < BULK_MIN:
        return False
    if not delta.get_or_create_acls_delta().replay_batch([r for _, r in pairs]):
        return False
    at = zip(count(first_offset), records)
    delta.replay_pairs(pair for pair in at if type(pair[1]) not in _ACL_RECORDS)
    return True


def _replay_split(
    delta: MetadataDelta,
    tables: AclTableReplay,
    pairs: list[tuple[int, Any]],
    others: list[tuple[int, Record]],
) -> None:
    """:meth:`AclTableReplay.replay_split` of a declined batch's ACL records; on an error,
    the batch's other records before it are replayed first (they cannot fail), so the
    delta is left as one-by-one replay leaves it (e.g. its latest request context)."""
    try:
        tables.replay_split(pairs)
    except ReplayError as error:
        failed_at = -1 if error.offset is None else error.offset
        delta.replay_pairs(pair for pair in others if pair[0] < failed_at)
        raise


def _acl_pairs(records: Sequence[Record], first_offset: int) -> list[tuple[int, Any]]:
    """The ACL records of ``records`` with their offsets, in order."""
    return [pair for pair in zip(count(first_offset), records) if type(pair[1]) in _ACL_RECORDS]


def _acl_records_of(decoded: DecodedRecords) -> Callable[[], list[Any]]:
    """Gives the ACL records of ``decoded`` in row order (built when called)."""
    return lambda: decoded.acls.in_order() if decoded.acls is not None else []
