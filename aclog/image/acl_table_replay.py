"""The ACL side of a metadata delta replayed onto a table: whole batches applied at once.

:class:`AclTableReplay` holds the table of the ACLs replayed so far on top of a table-backed
(or empty) image. A batch goes in whole through :meth:`~aclog.image.acl_table.AclTable.applied`
(no record object, no ``uuid.UUID`` per ACL for a batch decoded from a segment), which applies
exactly as :class:`~aclog.image.acls.AclsDelta` replays the records one by one, or declines;
a declined batch, and records replayed one at a time, go through an ``AclsDelta`` over the
current table (the reference), which raises the error naming the offset, and its applied
table is the next one. In a backlog's replay (``queue=True``) records replayed one at a time
are queued instead and applied as a run (:mod:`aclog.image.acl_table_net`: two table applies
for any number of small batches), in halves where the table declines, down to the reference
for a single record: the same table and the same first error, raised later (at the next
batch or :meth:`AclTableReplay.settle`).

The ordered changes (``AclsDelta.changes``, what publishers read) are not kept while
replaying: each batch leaves a way to get its ACL records, and :meth:`AclTableReplay.delta`
replays them into an ``AclsDelta`` over the base image when someone asks (a catch-up never
does). So an image replayed onto a table is the image one-by-one replay gives, and so is the
delta.

Not thread-safe; owned by the task that replays. Cost: per batch, the table's apply
(O(batch log ACLs) in numpy), per queued run two of them plus a dict step per record;
:meth:`AclTableReplay.delta` O(changes) in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain

from aclog.image.acl_column_rows import AclColumnRows
from aclog.image.acl_table import AclTable
from aclog.image.acl_table_keys import Words
from aclog.image.acl_table_net import applied_net
from aclog.image.acls import AclsDelta
from aclog.image.acls_image import AclsImage
from aclog.records.types import AccessControlEntryRecord, RemoveAccessControlEntryRecord

AclRecord = AccessControlEntryRecord | RemoveAccessControlEntryRecord
RecordsOf = Callable[[], Sequence[AclRecord]]
"""Gives a batch's ACL records in commit order (built when called, for the delta)."""


class AclTableReplay:
    """Represents the ACL records replayed onto the table of ``base`` (see the module)."""

    def __init__(
        self,
        base: AclsImage,
        table: AclTable,
        *,
        snapshot: bool = False,
        done: RecordsOf | None = None,
        queue: bool = False,
    ) -> None:
        self._base = base
        self._snapshot = snapshot
        self._table = table
        self._done: list[RecordsOf] = [] if done is None else [done]
        self._queue = queue
        self._queued: list[tuple[int, AclRecord]] = []
        self._pending: AclsDelta | None = None
        self._pending_records: list[AclRecord] = []

    @classmethod
    def over(cls, base: AclsImage, *, queue: bool = False) -> AclTableReplay | None:
        """A replay onto ``base``'s table (a new, empty one for
        :attr:`~aclog.image.acls_image.AclsImage.EMPTY`); ``None`` for an image held in a mapping
        (replayed one by one). ``queue``: records replayed one at a time are queued (see
        :meth:`replay`)."""
        if not base.replays_onto_a_table:
            return None
        return cls(base, _empty() if base.table is None else base.table, queue=queue)

    @classmethod
    def restated(
        cls, base: AclsImage, acls: list[AccessControlEntryRecord]
    ) -> AclTableReplay | None:
        """The snapshot delta of ``base`` (only :attr:`~aclog.image.acls_image.AclsImage.EMPTY`)
        whose ACLs are ``acls``, built in one go; ``None`` when an id or a binding is twice
        (replayed one by one, it raises) or for another base."""
        table = AclTable.from_records(acls) if base is AclsImage.EMPTY else None
        if table is None:
            return None
        return cls(base, table, snapshot=True, done=lambda: acls)

    @classmethod
    def of_snapshot_table(cls, base: AclsImage, table: AclTable) -> AclTableReplay | None:
        """The snapshot delta of ``base`` (only :attr:`~aclog.image.acls_image.AclsImage.EMPTY`)
        whose ACLs ``table`` holds, built in one go from a snapshot's columns; ``None`` for
        another base. The records are made only if the delta is read."""
        if base is not AclsImage.EMPTY:
            return None
        return cls(base, table, snapshot=True, done=table.records)

    @property
    def queues(self) -> bool:
        """Whether records replayed one at a time are queued (a backlog's replay: a batch of
        records is then best queued too, to be applied with its neighbours)."""
        return self._queue

    def batch(self, additions: AclColumnRows, removals: Words, records: RecordsOf) -> bool:
        """Apply a batch's ACL ``additions`` and removals (their ids' words) in one go,
        exactly as replaying ``records`` one by one would; ``False`` (nothing changed) when
        the table declines."""
        self.settle()
        table = self._table.applied(additions, removals)
        if table is None:
            return False
        self._table = table
        self._done.append(records)
        return True

    def batch_of_records(self, records: Sequence[AclRecord]) -> bool:
        """:meth:`batch` of ACL records handed over as objects (from memory), or of a run of
        many batches' records (:func:`~aclog.image.acl_table_net.applied_net`: an addition
        removed again within the run is no reason to decline)."""
        self.settle()
        return self._applied_net(records)

    def replay_split(self, pairs: Sequence[tuple[int, AclRecord]]) -> None:
        """Replay ACL records (each with its offset, in order) as one-by-one replay would, in
        the largest pieces the table takes: a piece it declines is halved, and a single record
        it declines goes through the reference, which raises the error naming its offset (or
        applies it: the table declines a little more than replay does). So one odd record in
        a big batch (a binding removed and added again) costs O(log) applies, not a lookup
        per record; a batch of many odd records costs about a reference apply per record."""
        self.settle()
        self._split(pairs)

    def replay(self, record: AclRecord, offset: int) -> None:
        """Replay one record through the reference, over the current table (applied to it at
        the next :meth:`settle`); raises its :class:`~aclog.image.errors.ReplayError`.

        A replay made with ``queue=True`` (a backlog's) queues the record instead: the queue
        is replayed at the next :meth:`settle` (or batch) as :meth:`replay_split` does, so a
        log of many small batches pays a few table applies, not a reference lookup per
        record, and that :meth:`settle` raises the error, naming the record's offset."""
        if self._queue:
            self._queued.append((offset, record))
            return
        if self._pending is None:
            self._pending = AclsDelta(AclsImage.of_table(self._table))
        self._pending.replay(record, offset)
        self._pending_records.append(record)

    def settle(self) -> None:
        """Apply the records replayed one by one since the last batch to the table, and
        replay the queued ones; raises the first queued one's
        :class:`~aclog.image.errors.ReplayError` (the table then holds the records before it)."""
        pending, records, queued = self._pending, self._pending_records, self._queued
        if pending is not None:
            self._pending, self._pending_records = None, []
            applied = pending.apply().table
            assert applied is not None  # a delta over a table applies to a table
            self._table = applied
            self._done.append(lambda: records)
        if queued:
            self._queued = []
            self._split(queued)

    def _split(self, pairs: Sequence[tuple[int, AclRecord]]) -> None:
        """:meth:`replay_split` with nothing pending or queued."""
        if not pairs or self._applied_net([record for _, record in pairs]):
            return
        if len(pairs) > 1:
            half = len(pairs) // 2
            self._split(pairs[:half])
            self._split(pairs[half:])
            return
        offset, record = pairs[0]
        reference = AclsDelta(AclsImage.of_table(self._table))
        reference.replay(record, offset)
        applied = reference.apply().table
        assert applied is not None  # a delta over a table applies to a table
        self._table = applied
        self._done.append(lambda: [record])

    def _applied_net(self, records: Sequence[AclRecord]) -> bool:
        """Apply ``records`` in one go (:func:`applied_net`); ``False`` when declined."""
        table = applied_net(self._table, records)
        if table is None:
            return False
        self._table = table
        self._done.append(lambda: records)
        return True

    def image(self) -> AclsImage:
        """The image of every record replayed (the base itself when there was none)."""
        self.settle()
        return AclsImage.of_table(self._table) if self._done else self._base

    def delta(self) -> AclsDelta:
        """The :class:`~aclog.image.acls.AclsDelta` of every record replayed, as one-by-one
        replay onto the base image makes it (same ordered changes). O(changes)."""
        self.settle()
        delta = AclsDelta(self._base, snapshot=self._snapshot)
        delta.take_replayed(chain.from_iterable(records() for records in self._done))
        return delta


def _empty() -> AclTable:
    table = AclTable.build([])
    assert table is not None  # nothing is twice in no ACLs
    return table
