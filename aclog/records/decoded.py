"""The records of one decoded batch, a type at a time: what replay takes without a row-order pass.

:class:`DecodedRecords` is what :func:`~aclog.records.small_batch.decode_batch_records`
builds from the columnar decoder's kinds. The ACL records, nearly every record of a log, are
:class:`AclRows`: the additions' ids and records and the removals' ids, each
with their rows (their places in the batch), straight from the columns. They are built only
when read (one-by-one replay, the delta's changes): replay onto a table takes the ACL kinds'
columns (``acl_kinds``) and builds no record at all. The other records (a request context, a
no-op) are kept with their rows. :attr:`DecodedRecords.records` puts everything in row order,
for readers that want the batch as written (``dump``, ``explain``, one-by-one replay).

Immutable by convention (the lists are never changed once built); thread-safe (two threads
racing for :attr:`DecodedRecords.records` or ``acls`` build equal lists). Cost: O(1) until
``acls`` (a record and a UUID per ACL), ``records`` or :meth:`DecodedRecords.kinds` (one
C-level gather over the batch).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Protocol

from aclog.records.codec import DecodedKind
from aclog.records.types import (
    AccessControlEntryRecord,
    Record,
    RemoveAccessControlEntryRecord,
)

if TYPE_CHECKING:  # numpy and pyarrow load with the columnar decoder, not for a small batch
    from aclog.records.column_layout import KindColumns

Rows = Any
"""The rows of some records in their batch, increasing: an ``int64`` numpy array from the
columnar decoder, a list of ints from :meth:`DecodedRecords.of_records` (a batch decoded
record by record needs no numpy)."""


@dataclass(frozen=True, slots=True)
class AclRows:
    """The ACL records of a decoded batch, each list in row order: the additions' rows, ids
    and records, the removals' rows, ids and records."""

    add_rows: Rows
    add_ids: list[uuid.UUID]
    adds: list[AccessControlEntryRecord]
    remove_rows: Rows
    remove_ids: list[uuid.UUID]
    removes: list[RemoveAccessControlEntryRecord]

    @property
    def count(self) -> int:
        """How many ACL records there are."""
        return len(self.add_ids) + len(self.remove_ids)

    def in_order(self) -> list[AccessControlEntryRecord | RemoveAccessControlEntryRecord]:
        """The ACL records in row order. Cost: one gather."""
        return in_row_order([self.add_rows, self.remove_rows], [self.adds, self.removes])


class AclRowsBuilder(Protocol):
    """Builds the :class:`AclRows` of a batch's ACL kinds (the record builders live above
    this module: :func:`~aclog.records.column_records.acl_rows`)."""

    def __call__(self, kinds: list[KindColumns]) -> AclRows: ...


@dataclass(frozen=True)
class DecodedRecords:
    """The records of one batch of ``count`` records: the columns of its ACL kinds
    (``acl_kinds``, as the columnar decoder gave them; their records, :attr:`acls`, are built
    on first read by ``build_acls``), every other record with its row (``others``, in row
    order), and the rows of each (type, version) it was written with (``kind_rows``)."""

    count: int
    acl_kinds: list[KindColumns]
    others: list[tuple[int, Record]]
    kind_rows: list[tuple[DecodedKind, Rows]]
    build_acls: AclRowsBuilder = field(repr=False, compare=False)
    listed_kinds: list[DecodedKind] | None = field(default=None, repr=False, compare=False)
    """Each record's (type, version), in row order, for a batch decoded record by record
    (:meth:`of_records`); ``None`` for one decoded as columns."""

    @classmethod
    def of_records(cls, records: list[Record], kinds: list[DecodedKind]) -> DecodedRecords:
        """The batch of ``records``, decoded record by record, each written as ``kinds``
        says (:mod:`aclog.records.small_batch`). Cost: a few calls per record."""
        adds, removes, others = [], [], []
        for row, record in enumerate(records):
            if type(record) is AccessControlEntryRecord:
                adds.append((row, record))
            elif type(record) is RemoveAccessControlEntryRecord:
                removes.append((row, record))
            else:
                others.append((row, record))
        acls = None
        if adds or removes:
            added = [record for _, record in adds]
            removed = [record for _, record in removes]
            acls = AclRows(
                [row for row, _ in adds],
                [record.id for record in added],
                added,
                [row for row, _ in removes],
                [record.id for record in removed],
                removed,
            )
        kind_rows = _rows_by_kind(kinds)
        batch = cls(len(records), [], others, kind_rows, _no_columns, kinds)
        batch.__dict__.update(acls=acls, records=records)  # made with it, never from columns
        return batch

    @property
    def columnar(self) -> bool:
        """True when decoded as columns; a batch decoded record by record (:meth:`of_records`)
        has no ACL columns (``acl_kinds`` is empty whatever it holds): replay its records."""
        return self.listed_kinds is None

    @cached_property
    def acls(self) -> AclRows | None:
        """The ACL records (``None``: none), built once, on first read: replay onto a table
        takes the columns and never builds them."""
        return self.build_acls(self.acl_kinds) if self.acl_kinds else None

    @cached_property
    def records(self) -> list[Record]:
        """Every record in row order (what ``decode_framed`` gives for each value)."""
        rows: list[Rows] = []
        parts: list[list[Any]] = []
        acls = self.acls
        if acls is not None:
            rows += [acls.add_rows, acls.remove_rows]
            parts += [acls.adds, acls.removes]
        if self.others:
            rows.append([row for row, _ in self.others])
            parts.append([record for _, record in self.others])
        return in_row_order(rows, parts)

    def kinds(self) -> list[DecodedKind]:
        """The (type, version) each record was written with, in row order."""
        if self.listed_kinds is not None:
            return list(self.listed_kinds)
        if len(self.kind_rows) == 1:
            return [self.kind_rows[0][0]] * self.count
        kinds = [[kind] * len(rows) for kind, rows in self.kind_rows]
        return in_row_order([rows for _, rows in self.kind_rows], kinds)

    def leading_other(self) -> Record | None:
        """The record at row 0 if it is no ACL record (a request context leads a batch so),
        without building any ACL record."""
        return self.others[0][1] if self.others and self.others[0][0] == 0 else None

    def first(self) -> Record | None:
        """The record at row 0, if the batch has any, without putting the rest in order."""
        if self.others and self.others[0][0] == 0:
            return self.others[0][1]
        if "records" in self.__dict__ or self.acls is None:
            return self.records[0] if self.count else None
        if len(self.acls.add_rows) and self.acls.add_rows[0] == 0:
            return self.acls.adds[0]
        return self.acls.removes[0]


def _no_columns(kinds: list[KindColumns]) -> AclRows:
    """The ACL builder of a batch decoded record by record, whose ACL rows are made with it."""
    raise AssertionError("a batch decoded record by record has no ACL columns to build from")


def _rows_by_kind(kinds: list[DecodedKind]) -> list[tuple[DecodedKind, Rows]]:
    """The rows of each kind of ``kinds``, in order of first appearance."""
    rows: dict[DecodedKind, list[int]] = {}
    for row, kind in enumerate(kinds):
        rows.setdefault(kind, []).append(row)
    return list(rows.items())


def in_row_order(rows: list[Rows], parts: list[list[Any]]) -> list[Any]:
    """The items of ``parts`` (each in the order of its ``rows``, the rows of all parts
    together being 0..n-1 or any distinct numbers) merged in row order: one stable argsort
    and one C-level gather, no call per item; rows held in lists (a batch decoded record by
    record, a few records) are sorted in Python, which needs no numpy."""
    filled = [(r, p) for r, p in zip(rows, parts, strict=True) if len(p)]
    if not filled:
        return []
    if len(filled) == 1:
        return list(filled[0][1])
    joined_rows = [r for r, _ in filled]
    if all(isinstance(r, list) for r in joined_rows):
        order = sorted(range(sum(map(len, joined_rows))), key=list(chain(*joined_rows)).__getitem__)
    else:
        import numpy as np  # noqa: PLC0415  # rows from the columnar decoder: it loaded numpy

        order = np.argsort(np.concatenate(joined_rows), kind="stable").tolist()
    joined = list(chain.from_iterable(part for _, part in filled))
    gathered: tuple[Any, ...] = itemgetter(*order)(joined)  # two items at least: a tuple
    return list(gathered)
