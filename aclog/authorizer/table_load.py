"""The authorizer's bulk load from an :class:`~aclog.image.acl_table.AclTable`: the rules of
every resource pattern built from the table's columns, no record made.

:func:`index_from_table` gives the :class:`~aclog.authorizer.acl_index.AclIndex` that
``AclIndex.build(table.records())`` gives: the rows are laid out by pattern
(:func:`~aclog.authorizer.table_rules.layout_of`), each pattern's rules built from its rows
(:func:`~aclog.authorizer.table_rules.rules_of_layout`: equal rules, their records made when
a reader first asks), and the patterns filed by
:meth:`~aclog.authorizer.acl_index.AclIndex.of_rules`, the reference's own filing. The
patterns are handed over in the order the reference fills each map with them (where their
first ACL is in image order), so even the iteration orders agree. A table the reference
refuses (an invalid GLOB, a pattern type that is not stored) gets the reference's own error:
the load is done again by the reference, which names the ACL it meets first.

>>> import uuid
>>> from aclog.image.acl_table import AclTable
>>> from aclog.records.types import AccessControlEntryRecord
>>> from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
>>> def acl(i, name):
...     return AccessControlEntryRecord(uuid.UUID(int=i), ResourceType.TOPIC, name,
...         PatternType.LITERAL, "User:alice", "*", AclOperation(i + 1), AclPermissionType.ALLOW)
>>> acls = [acl(1, "orders"), acl(2, "audit"), acl(3, "orders")]
>>> index = index_from_table(AclTable.from_records(acls))
>>> [a.id.int for a in index.names(ResourceType.TOPIC).exact(PatternType.LITERAL, "orders").acls]
[1, 3]
>>> index.listing() == AclIndex.build(acls).listing()
True

Pure; thread-safe (the table is only read; the rules refer to its rows, which no later table
moves: :mod:`aclog.image.acl_table_columns`). Cost: one sort of a word per ACL, one stable
sort of a word per pattern, a few numpy passes, a dict per pattern and the filing; no record.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclog.acl.matchers import WILDCARD_HOST, WILDCARD_PRINCIPAL
from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.grouped import Grouped
from aclog.authorizer.rules import Rules
from aclog.authorizer.table_rules import layout_of, rules_of_layout
from aclog.image.acl_table import AclTable
from aclog.image.acl_table_columns import TableColumns
from aclog.records.column_records import code_members
from aclog.records.enums import ResourceType

_PAIR_SHIFT = np.uint64(48)
_NAME_MASK = np.uint64((1 << 48) - 1)


def index_from_table(table: AclTable) -> AclIndex:
    """The index of the ACLs of ``table``: equal to ``AclIndex.build(table.records())``, the
    same ``ValueError`` for an ACL that cannot be indexed (an invalid GLOB pattern, a
    pattern type that is not stored). Cost: see the module docstring."""
    keys = table.pattern_keys()
    if not len(keys):
        return AclIndex.build(())
    try:
        return _index(table, keys)
    except ValueError:
        # Refused: the reference's own error, naming the first ACL it meets (rare; slow).
        return AclIndex.build(table.records())


def _index(table: AclTable, keys: Any) -> AclIndex:
    columns = TableColumns.of(table)
    layout = layout_of(keys, columns.names[1])
    codes = (table.pool.code_of(WILDCARD_PRINCIPAL), table.pool.code_of(WILDCARD_HOST))
    built = rules_of_layout(columns, layout, *(-1 if c is None else c for c in codes))
    # Patterns by (resource type, pattern type), then where their first ACL is: the order in
    # which the reference's grouping meets them, and so fills each map.
    pairs = layout.keys >> _PAIR_SHIFT
    by_pair = np.argsort((pairs << _PAIR_SHIFT) | layout.firsts.astype(np.uint64), kind="stable")
    names = columns.strings[(layout.keys[by_pair] & _NAME_MASK).astype(np.intp)].tolist()
    counts = (layout.ends - layout.starts)[by_pair]
    ordered = list(map(built.__getitem__, by_pair.tolist()))
    return AclIndex.of_rules(*_grouped(ordered, names, pairs[by_pair], counts))


def _grouped(
    rules: list[Rules], names: list[str], pairs: Any, counts: Any
) -> tuple[dict[ResourceType, Grouped[Rules]], dict[ResourceType, int]]:
    """The patterns' rules as :meth:`AclIndex.of_rules` takes them, with the number of ACLs
    of each resource type: ``rules`` named by ``names`` (by pair, then first appearance),
    with their pair codes ``pairs`` and ACL ``counts``."""
    bounds = np.flatnonzero(pairs[1:] != pairs[:-1]) + 1
    firsts = np.concatenate([np.zeros(1, dtype=bounds.dtype), bounds])
    lasts = np.append(bounds, len(pairs))
    codes = pairs[firsts].astype(np.int64)
    types = code_members(codes >> 8, "resource_type")
    kinds_of = code_members(codes & 0xFF, "pattern_type")
    grouped: dict[ResourceType, dict[Any, dict[str, Rules]]] = {}
    sizes: dict[ResourceType, int] = {}
    # The order of the pairs is the reference's own: it files the types and pattern types of
    # a batch in the order of a set of them.
    for first, last, resource_type, kind in zip(
        firsts.tolist(), lasts.tolist(), types, kinds_of, strict=True
    ):
        kinds = grouped.setdefault(resource_type, {})
        kinds[kind] = dict(zip(names[first:last], rules[first:last], strict=True))
        sizes[resource_type] = sizes.get(resource_type, 0) + int(counts[first:last].sum())
    return grouped, sizes  # type: ignore[return-value]
