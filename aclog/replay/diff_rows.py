"""A diff's ACL changes as columns: the fast path beside the reference in :mod:`aclog.replay.diff`
(``_acl_changes``, which builds every change; a diff between mapping-held images takes it).

:class:`ChangeRows` is the ACL changes between two images whose ACLs tables hold, in the
reference's order (by offset, changes without a batch last; where offsets tie, additions
before removals, each in image order), and builds a :class:`~aclog.replay.diff_events.Change`
(a record, its dict) only for the rows read: the UI's Diff page reads 500 of the hundreds of
thousands a bulk import makes, and ``aclog diff --json`` walks them a block at a time instead
of holding a record, a dict and a change for each at once. :func:`last_of` finds each
change's last record among the :class:`~aclog.replay.diff_events.AclEvents` by the ids'
words. ``tests/replay/test_diff_rows.py`` holds it equal to the reference.

Immutable; thread-safe (its tables and events are only read). Cost: a lookup of ``n`` ids
among ``m`` records is an argsort of each side's fingerprints and a few memory reads per id;
a :class:`ChangeRows` is that, a search of each table's ids in the other and one stable
argsort of its offsets, then a record and a dict per change read.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np

from aclog.image.acl_column_rows import words_of_id_bytes
from aclog.image.acl_table import AclTable
from aclog.image.acl_table_keys import SortedKeys, Words, fingerprints, matches
from aclog.records import record_to_dict
from aclog.replay.diff_events import AclEvents, Change

_BLOCK = 4096
"""Changes built at a time when a :class:`ChangeRows` is walked whole."""


class ChangeRows(Sequence[Change]):
    """The ACL changes from the image whose table is ``before`` to the one whose table is
    ``after``, each with its last record in ``events`` (see the module)."""

    def __init__(self, before: AclTable, after: AclTable, events: AclEvents) -> None:
        self._tables = (after, before)
        after_ids, before_ids = after.ids(), before.ids()
        added = np.flatnonzero(~before.contains_words(after_ids))
        removed = np.flatnonzero(~after.contains_words(before_ids))
        self._positions = np.concatenate([added, removed])
        self._added = len(added)
        self._places = events.places
        words = _picked(after_ids, added, before_ids, removed)
        self._offsets, self._place = last_of(events, words)
        key = np.where(self._offsets < 0, np.iinfo(np.int64).max, self._offsets)
        self._order = np.argsort(key, kind="stable")

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, index: int) -> Change: ...

    @overload
    def __getitem__(self, index: slice) -> list[Change]: ...

    def __getitem__(self, index: int | slice) -> Change | list[Change]:
        if isinstance(index, slice):
            return self._built(self._order[index])
        return self._built(self._order[[range(len(self))[index]]])[0]

    def __iter__(self) -> Iterator[Change]:
        for start in range(0, len(self), _BLOCK):
            yield from self._built(self._order[start : start + _BLOCK])

    def _built(self, rows: Any) -> list[Change]:
        """The changes at ``rows`` (places in the added-then-removed columns), in order."""
        added = rows < self._added
        records: list[Any] = [None] * len(rows)
        for mask, table in ((added, self._tables[0]), (~added, self._tables[1])):
            at = np.flatnonzero(mask)
            if len(at):
                picked = table.records_at(self._positions[rows[at]])
                for place, record in zip(at.tolist(), picked, strict=True):
                    records[place] = record
        changes = []
        for row, record in zip(rows.tolist(), records, strict=True):
            kind = "added" if row < self._added else "removed"
            offset = int(self._offsets[row])
            if offset < 0:
                changes.append(Change(kind, record_to_dict(record), None, None, None))
                continue
            timestamp, author = self._places[self._place[row]]
            changes.append(Change(kind, record_to_dict(record), offset, timestamp, author))
        return changes


def _picked(first: Words, at_first: Any, second: Words, at_second: Any) -> Words:
    """The words of ``first`` at ``at_first`` followed by those of ``second`` at
    ``at_second``."""
    return (
        np.concatenate([first[0][at_first], second[0][at_second]]),
        np.concatenate([first[1][at_first], second[1][at_second]]),
    )


def last_of(events: AclEvents, words: Words) -> tuple[Any, Any]:
    """:meth:`AclEvents.last_by_id` of each id of ``words`` as two arrays, the offset and
    the place index (``-1`` each for an id no record names), in one vectorised lookup."""
    count = len(words[0])
    offsets = np.full(count, -1, dtype=np.int64)
    places = np.full(count, -1, dtype=np.int32)
    runs = events.runs
    if not runs or not count:
        return offsets, places
    hi, lo = words_of_id_bytes(b"".join(run[0] for run in runs))
    at = np.concatenate([np.frombuffer(run[1], np.int64) for run in runs])
    place = np.repeat([run[2] for run in runs], [len(run[1]) for run in runs])
    asked, rows = matches(SortedKeys.of(fingerprints((hi, lo))), SortedKeys.of(fingerprints(words)))
    same = (hi[rows] == words[0][asked]) & (lo[rows] == words[1][asked])
    asked, rows = asked[same], rows[same]
    order = np.lexsort((at[rows], asked))  # an id's last record: its highest offset
    last = np.ones(len(order), dtype=bool)
    last[:-1] = asked[order][1:] != asked[order][:-1]
    asked, rows = asked[order][last], rows[order][last]
    offsets[asked] = at[rows]
    places[asked] = place[rows]
    return offsets, places
