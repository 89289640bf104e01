"""A run of ACL rows held as columns, with the sorted lookups of their ids and bindings: the
building block of :class:`~aclog.image.acl_table.AclTable`.

A table is a few segments in image order: the ACLs it was built with, then the additions of
the batches applied since (small ones merged as they pile up, so a lookup searches a handful).
A segment never changes; a table marks its removed rows in a mask of its own.

Immutable; thread-safe. Cost: building one is O(rows) numpy passes plus two argsorts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from aclog.image.acl_column_rows import AclColumnRows
from aclog.image.acl_pool import StringPool
from aclog.image.acl_table_keys import SortedKeys, Words, binding_words, fingerprints, matches

Codes = tuple[Any, Any, Any, Any]
Names = tuple[Any, Any, Any]


@dataclass(frozen=True, slots=True, eq=False)
class Segment:
    """Rows of ACLs: ``ids`` (hi, lo words), ``codes`` (resource type, pattern type,
    operation, permission: ``uint8`` as written), ``names`` (resource name, principal, host:
    ``int32`` pool codes), their ``bindings`` words, and the sorted fingerprints of both."""

    ids: Words
    codes: Codes
    names: Names
    bindings: Words
    id_keys: SortedKeys
    binding_keys: SortedKeys

    def __len__(self) -> int:
        return len(self.ids[0])

    @classmethod
    def of(cls, ids: Words, codes: Codes, names: Names) -> Segment:
        """The segment of these columns (their keys computed and sorted here)."""
        bindings = binding_words(codes, names)
        return cls(
            ids,
            codes,
            names,
            bindings,
            SortedKeys.of(fingerprints(ids)),
            SortedKeys.of(fingerprints(bindings)),
        )

    def taken(self, rows: Any) -> Segment:
        """The segment of the rows ``rows`` (increasing), in that order."""
        return Segment.of(_take(self.ids, rows), _take(self.codes, rows), _take(self.names, rows))


def interned(rows: AclColumnRows, pool: StringPool) -> Names:
    """The pool codes of each string field of ``rows`` (strings new to the pool added)."""
    names = [pool.codes(distinct)[index] for distinct, index in rows.strings]
    return names[0], names[1], names[2]


def concatenated(segments: list[Segment], keep: list[Any]) -> Segment:
    """One segment of the rows of ``segments`` that ``keep`` (a mask each, or ``None``: all)
    keeps, in order."""
    parts = [
        (s.ids, s.codes, s.names)
        if mask is None
        else (_take(s.ids, mask), _take(s.codes, mask), _take(s.names, mask))
        for s, mask in zip(segments, keep, strict=True)
    ]
    ids, codes, names = (
        tuple(np.concatenate(columns) for columns in zip(*[p[i] for p in parts], strict=True))
        for i in range(3)
    )
    return Segment.of(ids, codes, names)  # type: ignore[arg-type]


def found(segment: Segment, words: Words, prints: Any, *, binding: bool) -> tuple[Any, Any]:
    """(query index, row) of each row of ``segment`` whose id (or binding) equals a query's
    ``words`` (``prints`` their fingerprints)."""
    keys, stored = (
        (segment.binding_keys, segment.bindings) if binding else (segment.id_keys, segment.ids)
    )
    queries, rows = matches(keys, prints)
    same = (stored[0][rows] == words[0][queries]) & (stored[1][rows] == words[1][queries])
    return queries[same], rows[same]


def _take(columns: tuple[Any, ...], rows: Any) -> Any:
    return tuple(column[rows] for column in columns)


@dataclass(frozen=True, slots=True)
class Rows:
    """Segments in image order, with the rows each keeps: a ``bool`` mask (``None``: all)
    and how many that is."""

    segments: tuple[Segment, ...]
    live: tuple[Any, ...]
    counts: tuple[int, ...]

    def located(self, words: Words, *, binding: bool) -> list[tuple[int, Any, Any]]:
        """(segment, query indexes, rows) of the live rows whose id (or binding) equals a
        query's ``words``, each segment that has some."""
        prints = fingerprints(words)
        hits = []
        for at, (segment, mask) in enumerate(zip(self.segments, self.live, strict=True)):
            queries, rows = found(segment, words, prints, binding=binding)
            if mask is not None and len(rows):
                alive = mask[rows]
                queries, rows = queries[alive], rows[alive]
            if len(rows):
                hits.append((at, queries, rows))
        return hits
