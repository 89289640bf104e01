"""A string-keyed map split into dict shards, so that a copy-on-write change copies one shard.

The index needs big hash maps (every LITERAL name, every prefix) that readers probe without a
lock while the writer publishes whole new versions. Copying a million-entry dict per change would
be O(ACLs); a :class:`ShardedMap` copies only the shards a transaction touches (about
:data:`TARGET` entries each) plus the list of shards.

A map of ``2**b`` shards puts a key in shard ``hash(key) >> (64 - b)``: the top ``b`` bits of the
signed 64-bit string hash, a number in ``[-2**(b-1), 2**(b-1))``, which is a valid index of the
list of shards (negative ones count from the end; ``b = 0`` gives 0 or -1, both the one shard).
The top bits keep the dicts inside a shard, which use the low bits, spreading their keys; one
shift is the cheapest selector. Readers inline ``shards[hash(key) >> shift]``
(:mod:`aclog.authorizer.decide`); :meth:`ShardedMap.get` is the readable form.

A map made with an ``edge`` (-1 for a map of prefixes, 0 for a map of suffixes) also counts its
keys by length and edge character (the key's last, or first, character): ``lengths`` is the
sorted tuple of the distinct key lengths, so a reader looking for every key that is a prefix (or
suffix) of a name probes one slice per length; ``probes`` pairs each length with the set of edge
characters its keys have, so that the reader first tests the one character of the name where a
key of that length would end (or start), a cheap index and set probe, and slices, hashes and
probes only when it is there. Prefixes usually end at a separator or a digit, so most lengths of
a name are ruled out by that test. The map of LITERAL names has no edge and keeps no lengths.

Copy-on-write like the rest of the index: a map created or copied under a transaction token is
changed in place by that transaction only; published maps are never changed. Thread-safe for
readers. ``get`` is one hash plus one dict probe. A transaction's :meth:`ShardedMap.owned` copies
the list of shards (O(size / TARGET)) and :meth:`ShardedMap.update` copies each shard it touches
(O(TARGET)): with a million ACLs, one change copies about 2,000 shard references and 170
entries, which balances the two copies' cache misses. ``update`` is O(size) when the shard count
doubles.
"""

from __future__ import annotations

import itertools
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Generic, TypeVar

V = TypeVar("V")

HASH_BITS = sys.hash_info.width
TARGET = 256
"""Entries per shard aimed at: the map doubles its shard count when shards average twice this."""

_MISSING = object()

Mark = tuple[int, str]
"""A key's length and edge character (``""`` for the empty key)."""
Probe = tuple[int, frozenset[str]]
"""A key length and the edge characters of the keys of that length."""


def mark(key: str, edge: int) -> Mark:
    """The (length, edge character) ``key`` is counted under in a map with that ``edge``."""
    return len(key), key[edge] if key else ""


def probes_of(marks: Iterable[Mark]) -> tuple[Probe, ...]:
    """The ``probes`` of a map whose keys have these marks: by length, ascending."""
    edges: dict[int, set[str]] = {}
    for length, char in marks:
        edges.setdefault(length, set()).add(char)
    return tuple((length, frozenset(edges[length])) for length in sorted(edges))


class ShardedMap(Generic[V]):
    """Represents a copy-on-write map from strings to values (see the module docstring)."""

    __slots__ = (
        "_copied",
        "_counts",
        "edge",
        "lengths",
        "owner",
        "probes",
        "shards",
        "shift",
        "size",
    )

    def __init__(self, owner: object, edge: int | None = None) -> None:
        self.owner = owner
        self.edge = edge
        self.shards: list[dict[str, V]] = [{}]
        self.shift = HASH_BITS
        self.size = 0
        self.lengths: tuple[int, ...] = ()
        self.probes: tuple[Probe, ...] = ()
        self._counts: dict[Mark, int] = {}  # keys by (length, edge character); only with an edge
        self._copied: set[int] = {0}  # shards this owner may change in place

    def get(self, key: str) -> V | None:
        """The value of ``key``, or ``None``."""
        return self.shards[hash(key) >> self.shift].get(key)

    def __len__(self) -> int:
        return self.size

    def items(self) -> Iterator[tuple[str, V]]:
        """Every (key, value), in no particular order."""
        for shard in self.shards:
            yield from shard.items()

    def values(self) -> Iterator[V]:
        """Every value, in no particular order."""
        for shard in self.shards:
            yield from shard.values()

    def owned(self, token: object) -> ShardedMap[V]:
        """This map if ``token`` owns it, else a copy owned by ``token`` that shares every shard
        until it changes one. O(shards)."""
        if self.owner is token:
            return self
        copy: ShardedMap[V] = ShardedMap.__new__(ShardedMap)
        copy.owner = token
        copy.edge = self.edge
        copy.probes = self.probes
        copy.shards = list(self.shards)
        copy.shift = self.shift
        copy.size = self.size
        copy.lengths = self.lengths
        copy._counts = dict(self._counts)
        copy._copied = set()
        return copy

    def update(self, changes: Mapping[str, V | None]) -> None:
        """Set each key of ``changes`` to its value, or remove it for ``None`` (a missing key is
        ignored). Only on a map owned by the caller's transaction."""
        if not changes:
            return
        if not self.size:
            self.fill(((k, v) for k, v in changes.items() if v is not None), len(changes))
            return
        counts, edge = self._counts, self.edge
        new_marks = False
        for key, value in changes.items():
            index = (hash(key) >> self.shift) % len(self.shards)
            shard = self.shards[index]
            if index not in self._copied:
                self.shards[index] = shard = shard.copy()  # the fast path even with holes
                self._copied.add(index)
            if value is None:
                if shard.pop(key, _MISSING) is not _MISSING:
                    self.size -= 1
                    if edge is not None:
                        new_marks |= _uncount(counts, mark(key, edge))
            else:
                if key not in shard:
                    self.size += 1
                    if edge is not None:
                        new_marks |= _count(counts, mark(key, edge))
                shard[key] = value
        if self.size > 2 * TARGET * len(self.shards):
            self.fill(list(self.items()), self.size)
        elif new_marks:
            self._reprobe()

    def fill(self, entries: Iterable[tuple[str, V]], count: int) -> None:
        """Replace the content with ``entries`` (about ``count`` of them, distinct keys), choosing
        the shard count for their number: the bulk load, without an intermediate dict."""
        bits = 0
        while TARGET << bits < count:
            bits += 1
        self.shift = shift = HASH_BITS - bits
        shards: list[dict[str, V]] = [{} for _ in range(1 << bits)]
        self.shards = shards
        for key, value in entries:
            shards[hash(key) >> shift][key] = value
        self._copied = set(range(len(shards)))
        self.size = sum(map(len, shards))
        edge = self.edge
        if edge is not None:
            keys = itertools.chain.from_iterable(shards)
            self._counts = dict(Counter(mark(key, edge) for key in keys))
            self._reprobe()

    def _reprobe(self) -> None:
        self.probes = probes_of(self._counts)
        self.lengths = tuple(length for length, _ in self.probes)


def _count(counts: dict[Mark, int], key_mark: Mark) -> bool:
    """Count one more key under ``key_mark``; True when it is the first."""
    old = counts.get(key_mark, 0)
    counts[key_mark] = old + 1
    return not old


def _uncount(counts: dict[Mark, int], key_mark: Mark) -> bool:
    """Count one key less under ``key_mark``; True when it was the last."""
    left = counts[key_mark] - 1
    if left:
        counts[key_mark] = left
        return False
    del counts[key_mark]
    return True
