"""A :class:`~aclog.image.acl_pool.StringPool` lookup of a few strings: the fast path beside
the vectorised reference (``acl_pool._found`` over :func:`~aclog.image.acl_string_hashes.
string_hashes`).

An admin request names a handful of strings, and the reference's Arrow and numpy passes have
a fixed cost each (a hash, a search, a gather and a byte comparison per run of the pool):
for a few strings that fixed cost is all there is. Here each string is hashed in Python
(:func:`string_hash`, the same hash as :func:`~aclog.image.acl_string_hashes.string_hashes`,
so the pool's runs serve both paths), each run of the pool is searched once for all of them
(one ``np.searchsorted``), and a match is confirmed against the pool's own Python string. No
index is added: the memory cost is nil (a list of position weights as long as the longest
string hashed).

Thread-safe (the weights list is only replaced by a longer one with the same prefix; the
caller's runs and strings are read, never written). Cost: O(bytes) Python steps per string,
one binary search per run, a string comparison per match; about a Python call per byte, so
:data:`FEW` strings at most.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import mul
from typing import Any

import numpy as np

from aclog.image.acl_string_hashes import BYTE_VALUES, position_weights
from aclog.image.acl_table_keys import SortedKeys

FEW = 12
"""At most this many strings are looked up here; more go through the vectorised reference.
Chosen by measurement (``python -m benchmarks.probe_pool_few``): a lookup is faster here up
to about twice as many, an addition (which makes a run either way) up to about this many."""

_MASK = (1 << 64) - 1
_M1, _M2, _GOLDEN = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0x9E3779B97F4A7C15
_BYTES: list[int] = BYTE_VALUES.tolist()
_weights: list[list[int]] = [[]]
"""The position multipliers as Python ints, grown to the longest string hashed."""


def _mix(x: int) -> int:
    """:func:`~aclog.image.acl_table_keys.fingerprints`' finaliser on one 64-bit int."""
    x = ((x ^ (x >> 30)) * _M1) & _MASK
    x = ((x ^ (x >> 27)) * _M2) & _MASK
    return x ^ (x >> 31)


def string_hash(text: str) -> int:
    """The hash :func:`~aclog.image.acl_string_hashes.string_hashes` gives ``text``'s UTF-8
    bytes (a lone surrogate passed through, as :func:`~aclog.image.acl_string_hashes.utf8_of`
    does)."""
    data = text.encode("utf-8", "surrogatepass")
    weights = _weights[0]
    if len(weights) < len(data):
        weights = _weights[0] = position_weights(len(data)).tolist()
    total = sum(map(mul, map(_BYTES.__getitem__, data), weights)) & _MASK
    return _mix(total ^ _mix((len(data) + _GOLDEN) & _MASK))


def found_few(
    runs: Sequence[SortedKeys], strings: list[str], texts: Sequence[str], hashes: list[int]
) -> Any:
    """The ``int64`` code of each of ``texts`` (``hashes`` theirs) among ``runs`` (each run's
    sorted hashes, its rows the codes), ``-1`` for one no run holds: a hash match is kept
    only when ``strings`` (the pool's, by code) holds the very string there."""
    found = np.full(len(texts), -1, dtype=np.int64)
    if not runs or not texts:
        return found
    asked = np.array(hashes, dtype=np.uint64)
    for run in runs:
        keys, rows = run.keys, run.rows
        for at, place in enumerate(np.searchsorted(keys, asked).tolist()):
            code = _held(keys, rows, place, hashes[at], strings, texts[at])
            if code >= 0:
                found[at] = code
    return found


def _held(keys: Any, rows: Any, place: int, hashed: int, strings: list[str], text: str) -> int:
    """The code of ``text`` among the rows from ``place`` on whose hash is ``hashed`` (another
    string may share it), ``-1`` if none."""
    while place < len(keys) and int(keys[place]) == hashed:
        code = int(rows[place])
        if strings[code] == text:
            return code
        place += 1
    return -1
