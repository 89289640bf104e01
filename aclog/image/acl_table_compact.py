"""When and how a table's rows move to a smaller string pool: a pool that does not only grow.

A :class:`~aclog.image.acl_pool.StringPool` is append-only and shared by every table derived
from one, so a long-lived controller or broker that adds and removes ACLs with ever-new names
(and batches that were declined after their strings were coded) would grow it forever.
:func:`kept` decides, after each applied batch, whether the table takes a pool of only the
strings its live rows use: when the pool holds more than twice as many strings as the
table uses plus :data:`FLOOR`. Counting what the table uses is O(ACLs), so it is done only
once the pool has grown past the point where it could pay off, and then no sooner than half
as many new strings as the table used again (:func:`recount_after`): while the pool grows,
it never holds more than about 2.5 times the strings the table used at the last count plus
1.5 :data:`FLOOR` and a batch's. The compaction itself is O(ACLs) numpy passes and one sort
of the bindings' keys, and leaves the pool with only used strings, so it is amortised over
as many new strings as the table uses.
Codes are renumbered in their old order, so every order the codes give (a pattern key's name
code, :meth:`~aclog.image.acl_table.AclTable.pattern_keys`) is kept.

Thread-safe: the old rows and pool are only read; tables made before keep them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclog.image.acl_pool import StringPool
from aclog.image.acl_segment import Rows, concatenated, renumbered

FLOOR = 4096
"""Strings a pool may hold beyond twice what its table uses without a compaction."""


def recount_after(pool_size: int, used: int) -> int:
    """The pool size from which a table that uses ``used`` of a pool's ``pool_size``
    strings counts again: where a compaction could first pay off, and no sooner than half
    as many new strings again (so counting stays amortised)."""
    return max(2 * used + FLOOR, pool_size + (used + FLOOR) // 2)


def kept(rows: Rows, pool: StringPool, recount_at: int) -> tuple[Rows, StringPool, int]:
    """``rows`` over ``pool`` or, when the pool holds too many strings the rows do not use,
    the same rows over a new pool of only those (see the module); and the pool size to
    count again at."""
    size = len(pool)
    if size < recount_at:
        return rows, pool, recount_at
    used = _used(rows, size)
    count = int(used.sum())
    if size <= 2 * count + FLOOR:
        return rows, pool, recount_after(size, count)
    smaller = pool.subset(np.flatnonzero(used))
    codes = (np.cumsum(used) - 1).astype(np.int32)  # old code -> its place among the used
    if not rows.segments:
        return rows, smaller, recount_after(count, count)
    segment = renumbered(concatenated(list(rows.segments), list(rows.live)), codes)
    return Rows((segment,), (None,), (len(segment),)), smaller, recount_after(count, count)


def _used(rows: Rows, size: int) -> Any:
    """A flag per code of a pool of ``size`` strings: does a live row of ``rows`` use it."""
    used = np.zeros(size, dtype=bool)
    for segment, mask in zip(rows.segments, rows.live, strict=True):
        for column in segment.names:
            used[column if mask is None else column[mask]] = True
    return used
