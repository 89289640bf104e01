"""The ACL ids removed up to a point, as sorted numpy arrays a task can look ids up in.

A 16-byte ACL id is two unsigned 64-bit words (:func:`id_words`). :class:`RemovedIds` holds each
removed id once, sorted by its words, with the offset of its last removal: an ACL addition is
gone when a removal of its id comes after it (:meth:`RemovedIds.removed_after`), the rule of
:func:`~aclog.pipeline.state.acl_state` (replay is strict, so an id's additions and removals
alternate and only the last removal matters). Arrays rather than a Python set because the
driver broadcasts them to every task (about 24 bytes an id, pickled as three buffers) and a
task looks up a whole batch of ids with two vectorised ``searchsorted`` passes.

Immutable; thread-safe. Cost: building sorts the removals (O(n log n)); a lookup of m ids is
O(m log n) in numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from aclog.records import id_bytes


def id_words(ids: pa.Array) -> Any:
    """The ``(n, 2)`` uint64 words of ``n`` 16-byte ids (a ``fixed_size_binary(16)`` array, no
    nulls), first word the id's first eight bytes."""
    if len(ids) == 0:
        return no_words()
    return id_bytes.id_words(id_bytes.id_column_bytes(ids)).astype(np.uint64)


def no_words() -> Any:
    """An empty ``(0, 2)`` array of id words."""
    return np.empty((0, 2), dtype=np.uint64)


@dataclass(frozen=True)
class RemovedIds:
    """Removed ids sorted by ``(high, low)`` word, each once, with ``last`` the offset of its
    last removal."""

    high: Any
    low: Any
    last: Any

    @classmethod
    def of(cls, words: Any, offsets: Any) -> RemovedIds:
        """The removed ids from every removal's id words and offset (any order, repeats)."""
        order = np.lexsort((offsets, words[:, 1], words[:, 0]))
        high, low, last = words[order, 0], words[order, 1], np.asarray(offsets)[order]
        # Sorted by offset within an id: the last row of each id holds its last removal.
        final = np.ones(len(order), dtype=bool)
        final[:-1] = (high[1:] != high[:-1]) | (low[1:] != low[:-1])
        return cls(high[final], low[final], last[final].astype(np.int64))

    def __len__(self) -> int:
        return len(self.high)

    def removed_after(self, words: Any, offsets: Any) -> Any:
        """For each id (``(m, 2)`` words) added at ``offsets``: whether a removal of it comes
        later (a boolean array)."""
        gone = np.zeros(len(words), dtype=bool)
        if len(self.high) == 0 or len(words) == 0:
            return gone
        start = np.searchsorted(self.high, words[:, 0], "left")
        found = np.flatnonzero(self.high[np.minimum(start, len(self.high) - 1)] == words[:, 0])
        if len(found) == 0:
            return gone
        end = np.searchsorted(self.high, words[found, 0], "right")
        single = end - start[found] == 1
        rows, at = found[single], start[found[single]]
        gone[rows] = (self.low[at] == words[rows, 1]) & (self.last[at] > offsets[rows])
        # Ids sharing a first word (rare among random ids): look through the run.
        for row, first, stop in zip(
            found[~single].tolist(),
            start[found[~single]].tolist(),
            end[~single].tolist(),
            strict=True,
        ):
            match = first + np.flatnonzero(self.low[first:stop] == words[row, 1])
            gone[row] = bool(len(match)) and bool(self.last[match[0]] > offsets[row])
        return gone
