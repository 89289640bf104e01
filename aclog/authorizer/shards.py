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

The map also counts its keys by length: ``lengths`` is the sorted tuple of the distinct key
lengths, so a reader looking for every key that is a prefix (or suffix) of a name probes one
slice per length.

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


class ShardedMap(Generic[V]):
    """Represents a copy-on-write map from strings to values (see the module docstring)."""

    __slots__ = ("_copied", "_counts", "lengths", "owner", "shards", "shift", "size")

    def __init__(self, owner: object) -> None:
        self.owner = owner
        self.shards: list[dict[str, V]] = [{}]
        self.shift = HASH_BITS
        self.size = 0
        self.lengths: tuple[int, ...] = ()
        self._counts: dict[int, int] = {}
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
        counts = self._counts
        new_lengths = False
        for key, value in changes.items():
            index = (hash(key) >> self.shift) % len(self.shards)
            shard = self.shards[index]
            if index not in self._copied:
                self.shards[index] = shard = shard.copy()  # the fast path even with holes
                self._copied.add(index)
            if value is None:
                if shard.pop(key, _MISSING) is not _MISSING:
                    self.size -= 1
                    counts[len(key)] -= 1
                    if not counts[len(key)]:
                        del counts[len(key)]
                        new_lengths = True
            else:
                if key not in shard:
                    self.size += 1
                    new_lengths |= len(key) not in counts
                    counts[len(key)] = counts.get(len(key), 0) + 1
                shard[key] = value
        if self.size > 2 * TARGET * len(self.shards):
            self.fill(list(self.items()), self.size)
        elif new_lengths:
            self.lengths = tuple(sorted(counts))

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
        self._counts = dict(Counter(map(len, itertools.chain.from_iterable(shards))))
        self.lengths = tuple(sorted(self._counts))
