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
import pyarrow as pa

from aclog.image.acl_column_rows import AclColumnRows
from aclog.image.acl_pool import StringPool
from aclog.image.acl_segment_few import FEW, located_few
from aclog.image.acl_string_hashes import ArrowStrings
from aclog.image.acl_table_keys import (
    SortedKeys,
    Words,
    binding_words,
    fingerprints,
    matches,
    merged_keys,
)

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


def interned(rows: AclColumnRows, pool: StringPool) -> Names:
    """The pool codes of each string field of ``rows`` (strings new to the pool added).
    Fields that share one list of distinct strings (snapshot chunks') look it up once;
    fields held in Arrow (a decoded batch's) are looked up together, in one call."""
    lists = list({id(distinct): distinct for distinct, _ in rows.strings}.values())
    if len(lists) > 1 and all(isinstance(d, ArrowStrings) for d in lists):
        joined = ArrowStrings(pa.concat_arrays([d.arrow for d in lists]))  # type: ignore[attr-defined]
        cuts = np.cumsum([0, *map(len, lists)])
        every = pool.codes(joined)
        coded = {id(d): every[cuts[i] : cuts[i + 1]] for i, d in enumerate(lists)}
    else:
        coded = {id(d): pool.codes(d) for d in lists}
    names = [coded[id(distinct)][index] for distinct, index in rows.strings]
    return names[0], names[1], names[2]


def concatenated(segments: list[Segment], keep: list[Any]) -> Segment:
    """One segment of the rows of ``segments`` that ``keep`` (a mask each, or ``None``: all)
    keeps, in order. Its sorted keys are the parts' merged (a stable sort of sorted runs is
    one merge pass), not sorted afresh."""
    taken = [
        s if mask is None else _rows_of(s, mask) for s, mask in zip(segments, keep, strict=True)
    ]
    ids, codes, names, bindings = (
        tuple(np.concatenate(columns) for columns in zip(*group, strict=True))
        for group in zip(*[(s.ids, s.codes, s.names, s.bindings) for s in taken], strict=True)
    )
    starts = np.cumsum([0, *(len(s) for s in taken)])[:-1]
    id_keys = merged_keys([(k.id_keys, start) for k, start in zip(taken, starts, strict=True)])
    binding_keys = merged_keys(
        [(k.binding_keys, start) for k, start in zip(taken, starts, strict=True)]
    )
    return Segment(ids, codes, names, bindings, id_keys, binding_keys)  # type: ignore[arg-type]


def _rows_of(segment: Segment, mask: Any) -> Segment:
    """The rows of ``segment`` that ``mask`` keeps, with its sorted keys filtered, not
    sorted again."""
    renumbered = np.cumsum(mask) - 1
    sorted_keys = []
    for keys in (segment.id_keys, segment.binding_keys):
        alive = mask[keys.rows]
        sorted_keys.append(SortedKeys(keys.keys[alive], renumbered[keys.rows[alive]]))
    return Segment(
        _take(segment.ids, mask),
        _take(segment.codes, mask),
        _take(segment.names, mask),
        _take(segment.bindings, mask),
        sorted_keys[0],
        sorted_keys[1],
    )


def found(segment: Segment, words: Words, queries: SortedKeys, *, binding: bool) -> tuple[Any, Any]:
    """(query index, row) of each row of ``segment`` whose id (or binding) equals a query's
    ``words`` (``queries``: their sorted fingerprints)."""
    keys, stored = (
        (segment.binding_keys, segment.bindings) if binding else (segment.id_keys, segment.ids)
    )
    asked, rows = matches(keys, queries)
    same = (stored[0][rows] == words[0][asked]) & (stored[1][rows] == words[1][asked])
    return asked[same], rows[same]


def _take(columns: tuple[Any, ...], rows: Any) -> Any:
    return tuple(column[rows] for column in columns)


@dataclass(frozen=True, slots=True)
class Rows:
    """Segments in image order, with the rows each keeps: a ``bool`` mask (``None``: all)
    and how many that is."""

    segments: tuple[Segment, ...]
    live: tuple[Any, ...]
    counts: tuple[int, ...]

    def located(
        self, words: Words, *, binding: bool, queries: SortedKeys | None = None
    ) -> list[tuple[int, Any, Any]]:
        """(segment, query indexes, rows) of the live rows whose id (or binding) equals a
        query's ``words``, each segment that has some (``queries``: the words' sorted
        fingerprints, if the caller has them). A few queries are searched for in Python
        (:mod:`aclog.image.acl_segment_few`)."""
        if queries is None:
            queries = SortedKeys.of(fingerprints(words))
        if len(queries.keys) <= FEW:
            return located_few(self.segments, self.live, words, queries, binding=binding)
        hits = []
        for at, (segment, mask) in enumerate(zip(self.segments, self.live, strict=True)):
            asked, rows = found(segment, words, queries, binding=binding)
            if mask is not None and len(rows):
                alive = mask[rows]
                asked, rows = asked[alive], rows[alive]
            if len(rows):
                hits.append((at, asked, rows))
        return hits


def renumbered(segment: Segment, codes: Any) -> Segment:
    """``segment`` with each string code ``c`` replaced by ``codes[c]``: its bindings and their
    sorted keys made anew (a binding's words hold its codes); its ids keep theirs."""
    names = tuple(codes[column] for column in segment.names)
    bindings = binding_words(segment.codes, names)
    binding_keys = SortedKeys.of(fingerprints(bindings))
    return Segment(segment.ids, segment.codes, names, bindings, segment.id_keys, binding_keys)
