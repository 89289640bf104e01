"""The authorizer's bulk load from an :class:`~aclog.image.acl_table.AclTable`: the ACLs
grouped by resource pattern with numpy instead of a dict lookup per ACL.

:func:`index_from_table` gives the :class:`~aclog.authorizer.acl_index.AclIndex` that
``AclIndex.build(table.records())`` gives: the table's pattern keys (resource type, pattern
type and name code packed in one word, :meth:`~aclog.image.acl_table.AclTable.pattern_keys`)
are sorted once, stably, so each pattern's ACLs are one run in image order; each run becomes
the pattern's tuple of records, and the patterns are filed by
:meth:`~aclog.authorizer.acl_index.AclIndex.build_grouped`, the reference's own filing (its
bulk path: one fill per map for LITERAL and PREFIXED, the GLOB path as for any batch). The
patterns are handed over in the order the reference fills each map with them (where their
first ACL is in image order), so even the iteration orders agree.

>>> import uuid
>>> from aclog.image.acl_table import AclTable
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

Pure; thread-safe (the table is only read). Cost: one stable argsort of one word per ACL and
one of one word per pattern, one record per ACL (:meth:`~aclog.image.acl_table.AclTable.
records`), a tuple per pattern made in C, then the filing (a :class:`Rules` per pattern).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.names import Grouped, Records
from aclog.image.acl_table import AclTable
from aclog.records.enums import ResourceType
from aclog.records.types import AccessControlEntryRecord

_PAIR_SHIFT = np.uint64(48)
_NAME_MASK = np.uint64((1 << 48) - 1)

Runs = tuple[Any, Any]
"""Where each pattern's run of rows starts and ends in the sorted order."""


def index_from_table(table: AclTable) -> AclIndex:
    """The index of the ACLs of ``table``: equal to ``AclIndex.build(table.records())``, the
    same ``ValueError`` for an ACL that cannot be indexed (an invalid GLOB pattern, a
    pattern type that is not stored). Cost: see the module docstring."""
    keys = table.pattern_keys()
    if not len(keys):
        return AclIndex.build(())
    order = np.argsort(keys, kind="stable")  # stable: a pattern's ACLs stay in image order
    ordered_keys = keys[order]
    starts = np.flatnonzero(ordered_keys[1:] != ordered_keys[:-1]) + 1
    starts = np.concatenate([np.zeros(1, dtype=starts.dtype), starts])
    ends = np.append(starts[1:], len(keys))
    # Patterns by (resource type, pattern type), then where their first ACL is: the order in
    # which the reference's grouping meets them, and so fills each map.
    pairs = ordered_keys[starts] >> _PAIR_SHIFT
    by_pair = np.argsort((pairs << _PAIR_SHIFT) | order[starts].astype(np.uint64), kind="stable")
    ordered = table.records_at(order)
    starts, ends = starts[by_pair], ends[by_pair]
    names = table.pool.array()[(ordered_keys[starts] & _NAME_MASK).astype(np.intp)].tolist()
    return AclIndex.build_grouped(_grouped(ordered, (starts, ends), names, pairs[by_pair]))


def _grouped(
    ordered: list[AccessControlEntryRecord], runs: Runs, names: list[str], pairs: Any
) -> dict[ResourceType, Grouped[Records]]:
    """The patterns' ACLs as :meth:`AclIndex.build_grouped` takes them: ``runs`` of
    ``ordered`` (by pair, then first appearance), named by ``names``, with their pair codes
    ``pairs``. Each pattern's tuple is made in C (a slice per run, no Python step)."""
    starts, ends = runs
    patterns: list[Records] = list(
        map(tuple, map(ordered.__getitem__, map(slice, starts.tolist(), ends.tolist())))
    )
    bounds = np.flatnonzero(pairs[1:] != pairs[:-1]) + 1
    firsts = np.concatenate([np.zeros(1, dtype=bounds.dtype), bounds])
    lasts = np.append(bounds, len(pairs))
    grouped: dict[ResourceType, dict[Any, dict[str, Records]]] = {}
    # The order of the pairs is the reference's own: it files the types and pattern types of
    # a batch in the order of a set of them.
    for first, last in zip(firsts.tolist(), lasts.tolist(), strict=True):
        sample = patterns[first][0]
        kinds = grouped.setdefault(sample.resource_type, {})
        kinds[sample.pattern_type] = dict(zip(names[first:last], patterns[first:last], strict=True))
    return grouped  # type: ignore[return-value]
