"""A table's rows searched for a few ids or bindings: the fast path beside the vectorised
reference (:meth:`~aclog.image.acl_segment.Rows.located` over
:func:`~aclog.image.acl_segment.found` and :func:`~aclog.image.acl_table_keys.matches`).

A batch of one admin request asks about a handful of ids and bindings, and the reference pays
a dozen numpy calls per segment whatever their number. Here each segment is searched once for
all the queries (one ``np.searchsorted``), and each match's words and liveness are read in
Python: the same (segment, query indexes, rows), in the same order.

Thread-safe (reads arrays it never changes). Cost: one binary search per segment, a few
Python steps per query per segment and per match; for :data:`FEW` queries at most.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from aclog.image.acl_table_keys import SortedKeys, Words


class Searched(Protocol):
    """What is read of a segment here (:class:`~aclog.image.acl_segment.Segment` is one)."""

    @property
    def ids(self) -> Words: ...
    @property
    def bindings(self) -> Words: ...
    @property
    def id_keys(self) -> SortedKeys: ...
    @property
    def binding_keys(self) -> SortedKeys: ...


FEW = 8
"""At most this many queries are searched here; more go through the vectorised reference.
Measured on a 100k-ACL table of four segments: this path is faster up to about 12 queries."""


def located_few(
    segments: Sequence[Searched],
    masks: Sequence[Any],
    words: Words,
    queries: SortedKeys,
    *,
    binding: bool,
) -> list[tuple[int, Any, Any]]:
    """What :meth:`~aclog.image.acl_segment.Rows.located` gives for these segments and their
    live-row masks (``queries``: the words' sorted fingerprints, each with its query index as its
    row)."""
    prints, order = queries.keys.tolist(), queries.rows.tolist()
    his, los = words[0].tolist(), words[1].tolist()
    hits = []
    for at, (segment, mask) in enumerate(zip(segments, masks, strict=True)):
        keys = segment.binding_keys if binding else segment.id_keys
        stored = segment.bindings if binding else segment.ids
        asked: list[int] = []
        found: list[int] = []
        places = np.searchsorted(keys.keys, queries.keys).tolist()
        for fingerprint, query, place in zip(prints, order, places, strict=True):
            for row in _rows_of(keys, place, fingerprint):
                live = mask is None or bool(mask[row])
                if live and int(stored[0][row]) == his[query] and int(stored[1][row]) == los[query]:
                    asked.append(query)
                    found.append(row)
        if found:
            hits.append((at, np.array(asked, dtype=np.intp), np.array(found, dtype=np.intp)))
    return hits


def _rows_of(keys: SortedKeys, place: int, fingerprint: int) -> list[int]:
    """The rows of ``keys`` from ``place`` on whose fingerprint is ``fingerprint``."""
    rows = []
    while place < len(keys.keys) and int(keys.keys[place]) == fingerprint:
        rows.append(int(keys.rows[place]))
        place += 1
    return rows
