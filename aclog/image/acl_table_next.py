"""The table of an applied ACL delta: a base table with a delta's ordered changes applied.

:func:`next_table` is what :meth:`~aclog.image.acls.AclsDelta.apply` gives over a table-backed
image (or the empty one): the base's rows less every changed id it stores, then the changes'
records in commit order, exactly as the delta's one-by-one replay orders them. Two applies
that cannot decline for changes replay accepted (removals first, so a binding removed and
added again is stored nowhere when it is added); a table rebuilt from the records if one
declines anyway.

Thread-safe (reads the tables, makes new ones). Cost: O(changes log ACLs); a rebuild O(ACLs).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

import numpy as np

from aclog.image.acl_column_rows import of_records, words_of
from aclog.image.acl_table import AclTable
from aclog.records.types import AccessControlEntryRecord

Changes = Mapping[uuid.UUID, AccessControlEntryRecord | None]
_NO_IDS = (np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.uint64))


def next_table(
    table: AclTable | None, changes: Changes, touched: Sequence[uuid.UUID] | None
) -> AclTable:
    """``table`` (``None``: no ACL) with ``changes`` applied; ``touched`` names the base ids
    the changes remove or replace (``None``: a snapshot delta's, looked up in the table)."""
    additions = [record for record in changes.values() if record is not None]
    if table is None:
        return _built(additions)
    words = words_of(list(changes) if touched is None else touched)
    if touched is None:  # a snapshot delta: the changed ids the base stores
        stored = table.contains_words(words)
        words = words[0][stored], words[1][stored]
    removed = table.applied(of_records([]), words) if len(words[0]) else table
    applied = None if removed is None else removed.applied(of_records(additions), _NO_IDS)
    if applied is not None:
        return applied
    return _built([*(a for a in table.records() if a.id not in changes), *additions])


def _built(acls: list[AccessControlEntryRecord]) -> AclTable:
    """The table of ``acls``, which replay accepted (so no id or binding is twice)."""
    built = AclTable.from_records(acls)
    if built is None:
        raise AssertionError("replay accepted an ACL id or binding twice")
    return built
