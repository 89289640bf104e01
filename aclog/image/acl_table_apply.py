"""A batch's ACL additions and removals applied to a table's rows at once, or declined.

:func:`applied_rows` takes what a controller writes and declines everything else, so that
whatever it does apply is exactly what :class:`~aclog.image.acls.AclsDelta` gives replaying the
batch one record at a time, in the same order: removed rows gone, additions appended in row
order. It declines (returns ``None``; no table changed, though the batch's strings may have
joined the pool) when an id is named twice in the batch, an addition's id or binding is stored
(also a binding stored in a row the batch removes: removed then added applies one by one, added
then removed does not, so the order decides and the one-by-one replay must), a removal's id is
not stored, or two additions are one binding. The caller then replays the batch one record at a
time, which raises the error naming the offset.

Thread-safe (reads the rows it is given, returns new ones; the pool locks its own writes).
Cost: a few memory reads per ACL of the batch per segment, a copy of the removal mask of
each segment a removal touches (one byte per row), and the sorting of the additions; a merge
of the newest segments now and then (see :func:`settled`), amortised O(log) per addition.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclog.image.acl_column_rows import AclColumnRows
from aclog.image.acl_pool import StringPool
from aclog.image.acl_segment import Rows, Segment, concatenated, interned
from aclog.image.acl_table_keys import SortedKeys, Words, binding_words, duplicated, fingerprints

MERGE_RATIO = 2
"""The newest segment is merged into the one before it once that one holds at most this many
times its live rows: segments grow geometrically, so a table has O(log) of them."""


def applied_rows(
    rows: Rows, pool: StringPool, additions: AclColumnRows, removals: Words
) -> Rows | None:
    """``rows`` with the batch applied, or ``None`` (declined; see the module)."""
    ids: Words = tuple(np.concatenate(pair) for pair in zip(additions.ids, removals, strict=True))  # type: ignore[assignment]
    id_keys = SortedKeys.of(fingerprints(ids))
    if duplicated(ids, id_keys):
        return None
    added = len(additions)
    live, counts = list(rows.live), list(rows.counts)
    removed = 0
    for at, queries, hit in rows.located(ids, binding=False, queries=id_keys):
        if int(queries.min()) < added:
            return None  # an addition's id is stored
        old = live[at]  # each segment comes once: copied once, the table's own mask untouched
        live[at] = mask = np.ones(len(rows.segments[at]), bool) if old is None else old.copy()
        mask[hit] = False
        counts[at] -= len(hit)
        removed += len(hit)
    if removed != len(removals[0]):
        return None  # a removal's id is not stored
    # The strings join the pool before the checks: a declined batch may leave some there,
    # unused by any table (the one-by-one replay that follows mostly adds them anyway).
    names = interned(additions, pool)
    bindings = binding_words(additions.codes, names)
    binding_keys = SortedKeys.of(fingerprints(bindings))
    if duplicated(bindings, binding_keys) or rows.located(
        bindings, binding=True, queries=binding_keys
    ):
        return None  # two additions are one binding, or one is stored
    if not added:
        return settled(rows.segments, tuple(live), tuple(counts))
    head = id_keys.rows < added  # the additions' ids, sorted already
    segment = Segment(
        additions.ids,
        additions.codes,
        names,
        bindings,
        SortedKeys(id_keys.keys[head], id_keys.rows[head]),
        binding_keys,
    )
    return settled((*rows.segments, segment), (*live, None), (*counts, added))


def settled(segments: tuple[Segment, ...], live: tuple[Any, ...], counts: tuple[int, ...]) -> Rows:
    """The same rows with empty segments dropped and the newest merged while the one before
    holds at most :data:`MERGE_RATIO` times as many live rows."""
    kept = [at for at, count in enumerate(counts) if count]
    segs, masks, sizes = (
        [segments[i] for i in kept],
        [live[i] for i in kept],
        [counts[i] for i in kept],
    )
    while len(segs) >= 2 and sizes[-2] <= MERGE_RATIO * sizes[-1]:
        merged = concatenated(segs[-2:], masks[-2:])
        segs[-2:], masks[-2:], sizes[-2:] = [merged], [None], [sizes[-2] + sizes[-1]]
    return Rows(tuple(segs), tuple(masks), tuple(sizes))
