"""The live rows of one :class:`~aclog.image.acl_table.AclTable` as plain columns in image
order, and the records of any of their rows: what a reader keeps when it refers to ACLs by
row and makes their records only when asked (the authorizer's rules after a bulk load,
:mod:`aclog.authorizer.table_rules`).

The columns are the table's own arrays (a single segment that lost no row: no copy) or a copy
of its live rows, made read-only, and the strings array of the table's pool as it was: a row
keeps its place and its strings whatever later tables derived from that one do (a segment
never changes, a derived table masks rows in a mask of its own, and a pool only appends).

>>> import uuid
>>> from aclog.image.acl_table import AclTable
>>> from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
>>> def acl(i):
...     return AccessControlEntryRecord(uuid.UUID(int=i), ResourceType.TOPIC, f"t{i}",
...         PatternType.LITERAL, "User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)
>>> table = AclTable.from_records([acl(1), acl(2), acl(3)])
>>> columns = TableColumns.of(table)
>>> [record.id.int for record in columns.records_at(np.array([2, 0]))]
[3, 1]
>>> columns.records_at(np.array([1])) == table.records()[1:2]
True

Immutable; thread-safe. Cost of :meth:`TableColumns.of`: none for one segment that lost no
row, else one copy of each column (about 32 bytes per ACL); :meth:`TableColumns.records_at`:
one record and one UUID per row, as :meth:`AclTable.records <aclog.image.acl_table.AclTable.
records>` makes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from aclog.image.acl_column_rows import CODE_FIELDS
from aclog.image.acl_segment import Codes, Names
from aclog.image.acl_table import AclTable
from aclog.image.acl_table_keys import Words
from aclog.image.acl_table_records import BLOCK, records_of
from aclog.records.build import acls_from_columns
from aclog.records.column_records import code_members
from aclog.records.types import AccessControlEntryRecord

_FEW = 32
"""At most this many rows are made a record at a time (:meth:`TableColumns._few`)."""
_MEMBERS = tuple(code_members(np.arange(256), field) for field in CODE_FIELDS)
"""Each code field's member by ``uint8`` code, as :func:`code_members` maps them."""


@dataclass(frozen=True, slots=True, eq=False)
class TableColumns:
    """Represents the live rows of a table, in image order: ``ids`` (hi, lo words), ``codes``
    (resource type, pattern type, operation, permission: ``uint8`` as written), ``names``
    (resource name, principal, host: pool codes) and ``strings``, the pool's strings by code
    (a numpy ``object`` array holding at least every code of these rows)."""

    ids: Words
    codes: Codes
    names: Names
    strings: Any

    @classmethod
    def of(cls, table: AclTable) -> TableColumns:
        """The live rows of ``table``. Cost: see the module docstring."""
        live = table.live_columns()
        return cls(_frozen(live.ids), _frozen(live.codes), _frozen(live.names), table.pool.array())

    def __len__(self) -> int:
        return len(self.ids[0])

    def records_at(self, rows: Any) -> list[AccessControlEntryRecord]:
        """The records of the ACLs at ``rows`` (an integer array of places in image order), in
        that order (new objects). Cost: a record and a UUID per row, a block at a time."""
        if len(rows) <= _FEW:
            return self._few(rows)
        parts = [self._records(rows[at : at + BLOCK]) for at in range(0, len(rows), BLOCK)]
        return list(chain.from_iterable(parts))

    def _few(self, rows: Any) -> list[AccessControlEntryRecord]:
        """:meth:`_records` of a few rows (a pattern's), a record at a time: the column
        builders' fixed cost (a numpy call per field and member table) is most of theirs."""
        strings = self.strings
        hi, lo = (half[rows].tolist() for half in self.ids)
        rt, pt, op, perm = (
            list(map(members.__getitem__, column[rows].tolist()))
            for members, column in zip(_MEMBERS, self.codes, strict=True)
        )
        name, principal, host = (strings[column[rows]].tolist() for column in self.names)
        ids = [(h << 64 | low).to_bytes(16, "big") for h, low in zip(hi, lo, strict=True)]
        built = acls_from_columns(ids, rt, name, pt, principal, host, op, perm, converted=True)
        return built  # type: ignore[return-value]

    def _records(self, rows: Any) -> list[AccessControlEntryRecord]:
        return records_of(self.strings, self, rows)


def _frozen(columns: tuple[Any, ...]) -> Any:
    """Read-only views of ``columns``: nobody may change a row another reader refers to."""
    views = tuple(column.view() for column in columns)
    for view in views:
        view.flags.writeable = False
    return views
