"""An immutable, insertion-ordered mapping whose next version costs about the size of the change.

A metadata image is replaced on every commit, and the controller and each broker derive the next
one from the last. Copying a dict of every ACL per commit made each commit O(ACLs), several
times per commit. :class:`LayeredMap` shares one
base dict between versions and keeps the changes since that base in a small overlay; a new
version copies only the overlay. When the overlay outgrows about twice the square root of the
map's size it is folded into a new base, which keeps both the per-version copy and the amortized
cost of folding at O(sqrt(n)) per changed key.
"""

from __future__ import annotations

from collections.abc import Collection, ItemsView, Iterable, Iterator, Mapping, ValuesView
from itertools import chain, repeat
from math import isqrt
from operator import is_
from typing import Any, Generic, TypeVar, cast, overload

K = TypeVar("K")
V = TypeVar("V")
D = TypeVar("D")

_GONE: Any = object()
"""In the overlay, stands for a key of the base that this version no longer has."""

_MISSING: Any = object()

MIN_OVERLAY = 64
"""The overlay may always hold this many keys: folding a small map often gains nothing."""


class LayeredMap(Mapping[K, V], Generic[K, V]):
    """Represents an immutable mapping in insertion order; replacing a key's value moves the
    key to the end, as deleting and re-adding it in a dict does.

    Immutable; thread-safe (no version is ever changed after it is built). Lookups cost two
    dict probes at most; :meth:`updated` costs O(overlay + changes), plus O(n) when it folds
    the overlay into a new base (at most once every ~2·sqrt(n) changed keys). Iterating while
    an overlay exists folds it into a temporary copy first (O(n) at C speed).
    """

    __slots__ = ("_base", "_len", "_top")

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        self._base: dict[K, V] = dict(items)
        self._top: dict[K, V] = {}
        self._len = len(self._base)

    @classmethod
    def adopt(cls, base: dict[K, V]) -> LayeredMap[K, V]:
        """A map over ``base`` without copying it; the caller must never change ``base`` again."""
        layered: LayeredMap[K, V] = cls.__new__(cls)
        layered._base, layered._top, layered._len = base, {}, len(base)
        return layered

    # -- Mapping -------------------------------------------------------------------------------

    def __getitem__(self, key: K) -> V:
        value = self._top.get(key, _MISSING)
        if value is _MISSING:
            return self._base[key]
        if value is _GONE:
            raise KeyError(key)
        return cast(V, value)

    @overload
    def get(self, key: K, /) -> V | None: ...

    @overload
    def get(self, key: K, default: V | D, /) -> V | D: ...

    def get(self, key: K, default: Any = None, /) -> Any:
        value = self._top.get(key, _MISSING)
        if value is _MISSING:
            return self._base.get(key, default)
        return default if value is _GONE else value

    def __contains__(self, key: object) -> bool:
        value = self._top.get(cast(K, key), _MISSING)
        if value is _MISSING:
            return key in self._base
        return value is not _GONE

    def absent(self, keys: set[K]) -> set[K]:
        """The keys of ``keys`` that this map does not hold.

        Cost: one probe per key with the hash the set already stored (``set.difference`` of
        a dict runs in C and hashes nothing: a key type may hash in Python, as ``uuid.UUID``
        does); the keys the overlay holds (at most its size) are hashed once more.
        """
        if not self._top:
            return missing_from(keys, self._base)
        below = missing_from(keys, self._top)  # decided by the base
        missing = missing_from(below, self._base)
        top = self._top
        missing.update(key for key in keys - below if top[key] is _GONE)
        return missing

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[K]:
        return iter(self._base) if not self._top else iter(_fold(self._base, self._top))

    def items(self) -> ItemsView[K, V]:
        # Iterating the base's own view runs at C speed; Mapping's would look up every key.
        return self._base.items() if not self._top else _Items(self)

    def values(self) -> ValuesView[V]:
        return self._base.values() if not self._top else _Values(self)

    def _pairs(self) -> Iterator[tuple[K, V]]:
        # Testing each base key against the overlay would hash it, and some key types hash in
        # Python (uuid.UUID): folding into a copy hashes only the overlay's keys.
        return iter(_fold(self._base, self._top).items())

    def __repr__(self) -> str:
        return f"LayeredMap({dict(self.items())!r})"

    # -- versions ------------------------------------------------------------------------------

    def updated(self, changes: Iterable[tuple[K, V | None]]) -> LayeredMap[K, V]:
        """The next version: each ``(key, value)`` sets ``key`` (moving it to the end), and
        ``(key, None)`` removes it if present. This version is unchanged."""
        base, top, size = self._base, dict(self._top), self._len
        for key, value in changes:
            old = top.pop(key, _MISSING)
            present = key in base if old is _MISSING else old is not _GONE
            if value is None:
                size -= present
                if key in base:
                    top[key] = _GONE
            else:
                size += not present
                top[key] = value
        return self._derive(base, top, size)

    def merged(self, changes: Mapping[K, V | None], touched: Collection[K]) -> LayeredMap[K, V]:
        """The next version for a caller that knows which keys of this map it removes or
        replaces: each key of ``touched`` (present here, each once) is removed, then each
        ``(key, value)`` of ``changes`` sets ``key`` at the end, or removes it when ``None``
        (so ``touched`` must name every key of ``changes`` that is present here).

        A change set larger than the overlay may grow is folded at C speed (one copy, one
        ``update`` that reuses the changes' stored hashes, work per touched key only); a
        smaller one goes through :meth:`updated`.
        """
        kept = len(changes) - sum(map(is_, changes.values(), repeat(None)))
        if len(changes) <= _bound(self._len - len(touched) + kept):
            return self.updated(chain(zip(touched, repeat(None)), changes.items()))
        folded = _fold(self._base, self._top)
        for key in touched:
            folded.pop(key, None)  # a replaced key moves to the end, as in updated()
        folded.update(changes)  # type: ignore[arg-type]  # the removals go just below
        if kept < len(changes):
            for key in touched:
                if folded.get(key, _MISSING) is None:
                    del folded[key]
        return LayeredMap.adopt(folded)

    def _derive(self, base: dict[K, V], top: dict[K, V], size: int) -> LayeredMap[K, V]:
        if len(top) > _bound(size):
            return LayeredMap.adopt(_fold(base, top))
        layered: LayeredMap[K, V] = LayeredMap.__new__(LayeredMap)
        layered._base, layered._top, layered._len = base, top, size
        return layered


class _Items(ItemsView[K, V]):
    _mapping: LayeredMap[K, V]

    def __iter__(self) -> Iterator[tuple[K, V]]:
        return self._mapping._pairs()


class _Values(ValuesView[V]):
    _mapping: LayeredMap[Any, V]

    def __iter__(self) -> Iterator[V]:
        return (value for _, value in self._mapping._pairs())


def missing_from(keys: set[K], mapping: dict[K, Any]) -> set[K]:
    """``{key for key in keys if key not in mapping}``, at C speed and hashing nothing:
    CPython's ``set.difference`` of a dict probes it with the hash each set entry stored."""
    return keys.difference(mapping)


def _bound(size: int) -> int:
    """The most keys the overlay of a map of ``size`` keys may hold before it is folded."""
    return max(MIN_OVERLAY, 2 * isqrt(size))


def _fold(base: dict[K, V], top: dict[K, V]) -> dict[K, V]:
    """``base`` with the overlay applied, as a new dict in the map's order. ``base.copy()``
    reuses the stored hashes (a key type may hash in Python, as ``uuid.UUID`` does)."""
    folded = base.copy()
    for key in top:
        folded.pop(key, None)
    folded.update((key, value) for key, value in top.items() if value is not _GONE)
    return folded
