"""ACL ids and bindings as pairs of 64-bit words, and their sorted lookups: how an
:class:`~aclog.image.acl_table.AclTable` finds an id or a binding without a Python object
or hash per ACL.

- An id is its UUID's two halves (``hi``, ``lo``: most and least significant 64 bits).
- A binding is seven small integers once its strings are pool codes
  (:mod:`aclog.image.acl_pool`): ``name << 32 | principal`` and
  ``host << 32 | rt << 24 | pt << 16 | op << 8 | perm``, the codes normalised as the record
  builders map them (a code without an enum member is that enum's ``UNKNOWN``, 0): two ACLs
  are the same binding exactly when their records are.
- A pair's *fingerprint* mixes both words into one ``uint64``; a :class:`SortedKeys` holds
  the fingerprints of some rows sorted, and a lookup (:func:`matches`) finds every row whose
  fingerprint equals a query's, then keeps those whose two words equal the query's. Equal
  fingerprints of different pairs are rare (2^-64 per pair) and handled, never assumed away.

Thread-safe (pure functions over arrays they never change). Cost: a few numpy passes per key;
a lookup is two binary searches per query.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclog.records.build import ACL_CODE_TABLES

Words = tuple[Any, Any]
"""Two ``uint64`` arrays of equal length: the words of some ids or bindings."""

_U64 = np.uint64
_M1, _M2 = _U64(0xBF58476D1CE4E5B9), _U64(0x94D049BB133111EB)
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_NO_ROWS = np.empty(0, dtype=np.intp)


def _normal_table(codes: dict[int, Any]) -> Any:
    """code -> the code of its enum member (0, ``UNKNOWN``, for a code without one)."""
    return np.array([code if code in codes else 0 for code in range(256)], dtype=np.uint64)


_NORMAL = tuple(_normal_table(table) for table, _ in ACL_CODE_TABLES)
"""Per code field (resource type, pattern type, operation, permission)."""


def _mix(x: Any) -> Any:
    """SplitMix64's finaliser: every input bit moves every output bit."""
    x = (x ^ (x >> _U64(30))) * _M1
    x = (x ^ (x >> _U64(27))) * _M2
    return x ^ (x >> _U64(31))


def fingerprints(words: Words) -> Any:
    """One ``uint64`` per pair of ``words``."""
    hi, lo = words
    return _mix(hi ^ _mix(lo + _GOLDEN))


def binding_words(codes: tuple[Any, Any, Any, Any], strings: tuple[Any, Any, Any]) -> Words:
    """The words of bindings given as their (resource type, pattern type, operation,
    permission) codes (``uint8`` arrays, kept as written) and (name, principal, host) pool
    codes (non-negative integer arrays)."""
    rt, pt, op, perm = (table[values] for table, values in zip(_NORMAL, codes, strict=True))
    name, principal, host = (values.astype(_U64) for values in strings)
    low = (rt << _U64(24)) | (pt << _U64(16)) | (op << _U64(8)) | perm
    return (name << _U64(32)) | principal, (host << _U64(32)) | low


def is_member(field: int, code: int) -> bool:
    """True when ``code`` is a member of the ``field``-th code field's enum (the only codes a
    record, and so a binding key, holds)."""
    return 0 <= code < 256 and int(_NORMAL[field][code]) == code


class SortedKeys:
    """The fingerprints of some rows, sorted (``keys``), and the row of each (``rows``).

    A lookup among many keys first reads a directory of where each run of keys sharing their
    top bits starts (about one key per run), so that it steps through a run of a few keys
    rather than searching the whole array: two or three memory reads a query, not twenty.
    The directory is made on the first lookup (one counting pass); two threads may both make
    it, equally."""

    __slots__ = ("_directory", "keys", "rows")

    def __init__(self, keys: Any, rows: Any) -> None:
        self.keys, self.rows = keys, rows
        self._directory: tuple[Any, Any] | None = None

    @classmethod
    def of(cls, prints: Any) -> SortedKeys:
        """The sorted keys of rows ``0..len(prints)-1``, the rows of equal keys ascending (a
        stable sort's order). Cost: one unstable argsort (several times cheaper than a stable
        one on 64-bit keys) and one pass checking for equal keys; where some are equal, the
        stable argsort instead. Distinct keys have one sorted order, so both give the same."""
        order = np.argsort(prints)
        keys = prints[order]
        if len(keys) > 1 and bool((keys[1:] == keys[:-1]).any()):
            order = np.argsort(prints, kind="stable")
            keys = prints[order]
        return cls(keys, order)

    def lower_bounds(self, ordered: Any) -> Any:
        """Where each of the fingerprints ``ordered`` would go in :attr:`keys` (as
        ``np.searchsorted``; sorted, they are read in order, a little faster)."""
        if len(self.keys) < _DIRECT or len(ordered) < _FEW:
            return np.searchsorted(self.keys, ordered)
        directory = self._directory
        if directory is None:
            directory = self._directory = _directory_of(self.keys)
        starts, shift = directory
        run = (ordered >> shift).astype(np.intp)
        at, stop = starts[run].astype(np.intp), starts[run + 1]
        long = np.flatnonzero(stop - at > _STEPS)
        last = len(self.keys) - 1
        for _ in range(_STEPS):  # step through each query's run while its keys are smaller
            at += (at < stop) & (self.keys[np.minimum(at, last)] < ordered)
        # Longer runs are rare (or the keys are not spread): search those queries instead.
        if long.size:
            at[long] = np.searchsorted(self.keys, ordered[long])
        return at


_DIRECT = 1 << 12
"""Below this many keys (or for few queries) a plain binary search is as fast."""
_FEW = 64
"""Fewer queries than this are searched for (a directory is made for many)."""
_STEPS = 3
"""Steps through a run; the queries of longer runs are searched for instead."""


def _directory_of(keys: Any) -> tuple[Any, Any]:
    """The start of each run of ``keys`` (sorted) sharing their top bits (``int32``, one
    past the last run: the end) and the shift that gives a key's run: about one run per
    key, so that a run holds at most three keys but for one query in a thousand or so."""
    bits = len(keys).bit_length()
    shift = _U64(64 - bits)
    counts = np.bincount((keys >> shift).astype(np.intp), minlength=1 << bits)
    starts = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=starts[1:])
    return starts, shift


def merged_keys(runs: list[tuple[SortedKeys, int]]) -> SortedKeys:
    """One :class:`SortedKeys` of several (each with the number added to its rows): a
    stable sort of sorted runs is one merge pass, not a sort afresh."""
    keys = np.concatenate([run.keys for run, _ in runs])
    rows = np.concatenate([run.rows + start for run, start in runs])
    order = np.argsort(keys, kind="stable")
    return SortedKeys(keys[order], rows[order])


def matches(sorted_keys: SortedKeys, queries: SortedKeys) -> tuple[Any, Any]:
    """(query index, row) of every row whose fingerprint equals a query's (``queries``: the
    queries' fingerprints, their rows the query indexes; sorted they are read in order, a
    little faster, in any order the answer is the same); the caller compares the words.
    Cost: a few memory reads per query (:meth:`SortedKeys.lower_bounds`), plus one entry per
    fingerprint that several rows share."""
    keys = sorted_keys.keys
    ordered, order = queries.keys, queries.rows
    if not len(keys) or not len(ordered):
        return _NO_ROWS, _NO_ROWS
    left = sorted_keys.lower_bounds(ordered)
    last = len(keys) - 1
    hit = keys[np.minimum(left, last)] == ordered
    # A fingerprint several rows share: the next key equals it too.
    shared = hit & (left < last) & (keys[np.minimum(left + 1, last)] == ordered)
    if not shared.any():
        found = np.flatnonzero(hit)
        return order[found], sorted_keys.rows[left[found]]
    counts = np.where(hit, np.searchsorted(keys, ordered, side="right") - left, 0)
    starts = np.repeat(left - (np.cumsum(counts) - counts), counts)
    return np.repeat(order, counts), sorted_keys.rows[starts + np.arange(int(counts.sum()))]


def duplicated(words: Words, sorted_keys: SortedKeys) -> bool:
    """True when two rows hold the same pair of ``words`` (``sorted_keys`` sorted from their
    fingerprints). Cost: one pass over the sorted keys."""
    keys = sorted_keys.keys
    same = np.flatnonzero(keys[1:] == keys[:-1])
    if not len(same):
        return False
    rows = np.unique(np.concatenate([sorted_keys.rows[same], sorted_keys.rows[same + 1]]))
    hi, lo = words
    pairs = list(zip(hi[rows].tolist(), lo[rows].tolist(), strict=True))
    return len(set(pairs)) != len(pairs)
