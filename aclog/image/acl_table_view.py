"""An :class:`~aclog.image.acl_table.AclTable` seen as ``Mapping[UUID, AccessControlEntryRecord]``:
what ``AclsImage.acls`` is today, so that a table can stand where that dict stood.

It behaves as the dict of the same ACLs in image order does: ``get``, ``in``, ``len``,
iteration (ids in image order), ``items``/``values`` (records in image order) and equality
with any mapping of the same items.

Immutable; thread-safe (reads only). Cost: a lookup is O(log ACLs); iterating builds every
record once per pass (:meth:`~aclog.image.acl_table.AclTable.records`), so a reader that
walks the ACLs should take ``values()`` or ``items()``, not a key at a time.
"""

from __future__ import annotations

import uuid
from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from typing import Protocol

from aclog.records.types import AccessControlEntryRecord


class StoredAcls(Protocol):
    """What the view reads of a table (an :class:`~aclog.image.acl_table.AclTable`): the view
    needs only these, so the table's module imports the view and not the other way round."""

    def get(self, acl_id: uuid.UUID) -> AccessControlEntryRecord | None: ...

    def __contains__(self, acl_id: object) -> bool: ...

    def __len__(self) -> int: ...

    def records(self) -> list[AccessControlEntryRecord]: ...


class AclTableView(Mapping[uuid.UUID, AccessControlEntryRecord]):
    """Represents the ACLs of a table by id, in image order."""

    __slots__ = ("_table",)

    def __init__(self, table: StoredAcls) -> None:
        self._table = table

    def __getitem__(self, acl_id: uuid.UUID) -> AccessControlEntryRecord:
        record = self._table.get(acl_id) if isinstance(acl_id, uuid.UUID) else None
        if record is None:
            raise KeyError(acl_id)
        return record

    def __contains__(self, acl_id: object) -> bool:
        return acl_id in self._table

    def __len__(self) -> int:
        return len(self._table)

    def __iter__(self) -> Iterator[uuid.UUID]:
        return (record.id for record in self._table.records())

    def items(self) -> ItemsView[uuid.UUID, AccessControlEntryRecord]:
        return _Items(self)

    def values(self) -> ValuesView[AccessControlEntryRecord]:
        return _Values(self)

    def __repr__(self) -> str:
        return f"AclTableView({len(self)} ACLs)"


class _Items(ItemsView[uuid.UUID, AccessControlEntryRecord]):
    """The items from one pass over the records (the default looks each id up)."""

    _mapping: AclTableView

    def __iter__(self) -> Iterator[tuple[uuid.UUID, AccessControlEntryRecord]]:
        return ((record.id, record) for record in self._mapping._table.records())


class _Values(ValuesView[AccessControlEntryRecord]):
    _mapping: AclTableView

    def __iter__(self) -> Iterator[AccessControlEntryRecord]:
        return iter(self._mapping._table.records())
