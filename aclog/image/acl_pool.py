"""The strings of ACL tables as small integer codes: one append-only pool shared by a table and
every table derived from it.

An :class:`~aclog.image.acl_table.AclTable` stores an ACL's resource name, principal and host
as ``int32`` codes into a :class:`StringPool`, so that a binding is seven small integers
(packed into two words, :mod:`aclog.image.acl_table_keys`) and the same principal or host
is one string object however many ACLs name it.

A string is found by the hash of its bytes (:func:`~aclog.image.acl_string_hashes.
string_hashes`) in a few sorted runs of the pool's hashes (the table's own
:class:`~aclog.image.acl_table_keys.SortedKeys`, the codes as rows), each match confirmed
by comparing the bytes in Arrow: a batch's distinct strings are coded by numpy and Arrow
passes, no Python call per string (only a new string becomes a Python ``str``, once). A
lookup of at most :data:`~aclog.image.acl_pool_few.FEW` strings (an admin request's) hashes
each in Python instead and searches each run once for all of them
(:mod:`aclog.image.acl_pool_few`): the passes' fixed costs would be all it pays. Runs are
merged as they pile up (a newer run into the one before it once that holds at most twice as
many), so there are O(log) of them.

A string no table holds any more keeps its code: the pool never forgets. A table makes
itself a smaller pool when its own has grown well past what it uses (:meth:`StringPool.
subset`, called by :class:`~aclog.image.acl_table.AclTable`); tables made earlier keep this
one.

Thread-safe: :meth:`StringPool.codes` takes a lock around the whole interning of a batch's
strings, so two threads deriving tables from one pool never hand out one code twice. Readers
take no lock: a table holds only codes handed out before it existed, :attr:`StringPool.strings`
is only appended to (a string is there before the runs that give its code are published), and
the runs are an immutable tuple replaced in one assignment. Cost: per batch, a hash per
distinct string and a few reads per hash per run, the new strings' bytes copied once more
when their run is merged; memory: each string's bytes twice (Arrow's and Python's) and two
words of hash and code.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from aclog.image.acl_pool_few import FEW, found_few, string_hash
from aclog.image.acl_string_hashes import ArrowStrings, string_hashes, utf8_of
from aclog.image.acl_table_keys import SortedKeys, matches, merged_keys
from aclog.records.vector import arrow_numbers, numpy_numbers

MERGE_RATIO = 2
"""A newer run is merged into the one before it once that one holds at most this many times
its strings."""


class _Run(NamedTuple):
    """The strings of codes ``first`` .. ``first + len(texts) - 1``: their bytes (``binary``)
    and their hashes sorted, each with its code as its row."""

    first: int
    texts: pa.Array
    keys: SortedKeys


class StringPool:
    """Represents the strings of some ACL tables, each under the code of its place in
    :attr:`strings`."""

    __slots__ = ("_array", "_lock", "_runs", "strings")

    def __init__(self) -> None:
        self.strings: list[str] = []
        """The strings by code. Append-only; read it, never change it."""
        self._runs: tuple[_Run, ...] = ()
        self._lock = threading.Lock()
        self._array: Any = np.empty(0, dtype=object)

    def array(self) -> Any:
        """:attr:`strings` as a numpy ``object`` array, for gathering many strings by their
        codes at once (several times faster than a lookup per code). It holds at least every
        string added before the call; rebuilt, O(strings), only after the pool grew."""
        cached = self._array
        if len(cached) < len(self.strings):
            # A slice is taken atomically; a string added meanwhile waits for the next call.
            cached = np.array(self.strings[:], dtype=object)
            self._array = cached
        return cached

    def __len__(self) -> int:
        return len(self.strings)

    def code_of(self, text: str) -> int | None:
        """The code of ``text`` if the pool holds it. Adds nothing (a read never writes)."""
        code = int(self.known_codes([text])[0])
        return None if code < 0 else code

    def known_codes(self, distinct: Sequence[str]) -> Any:
        """The ``int64`` code of each string of ``distinct``, ``-1`` for one the pool lacks.
        Adds nothing. (At most :data:`~aclog.image.acl_pool_few.FEW` strings: found in
        Python, :mod:`aclog.image.acl_pool_few`.)"""
        if len(distinct) <= FEW:
            texts = list(distinct)
            hashes = list(map(string_hash, texts))
            return found_few([run.keys for run in self._runs], self.strings, texts, hashes)
        arrow = utf8_of(distinct)
        return _found(self._runs, arrow, string_hashes(arrow))

    def codes(self, distinct: Sequence[str]) -> Any:
        """The ``int32`` code of each string of ``distinct`` (a string held twice gets one
        code), in order, adding the strings the pool lacks. Cost: see the module."""
        if len(distinct) <= FEW:
            return self._few_codes(list(distinct))
        texts = utf8_of(distinct)
        hashes = string_hashes(texts)
        with self._lock:
            runs = self._runs
            found = _found(runs, texts, hashes)
            missing = np.flatnonzero(found < 0)
            if not len(missing):
                return found.astype(np.int32)
            encoded = pc.dictionary_encode(texts.take(arrow_numbers(missing)))
            which = numpy_numbers(encoded.indices).astype(np.int64)  # to_numpy imports pandas
            first = np.full(len(encoded.dictionary), len(which), dtype=np.int64)
            np.minimum.at(first, which, np.arange(len(which)))  # each new string's first place
            start = len(self.strings)
            # The list first: a code a reader finds in the runs always has its string.
            self.strings.extend(_texts_at(distinct, missing[first]))
            run = _Run(start, encoded.dictionary, _sorted(hashes[missing[first]], start))
            self._runs = _settled((*runs, run))
            found[missing] = start + which
        return found.astype(np.int32)

    def _few_codes(self, texts: list[str]) -> Any:
        """:meth:`codes` of a few strings (:mod:`aclog.image.acl_pool_few`): the same codes,
        the new strings added as one run, in the order of their first place."""
        hashes = list(map(string_hash, texts))
        with self._lock:
            runs = self._runs
            found = found_few([run.keys for run in runs], self.strings, texts, hashes)
            missing = np.flatnonzero(found < 0).tolist()
            if not missing:
                return found.astype(np.int32)
            start = len(self.strings)
            added = list(dict.fromkeys(texts[i] for i in missing))
            self.strings.extend(added)  # the list first, as in codes()
            hash_of = dict(zip(texts, hashes, strict=True))
            new_hashes = np.array([hash_of[text] for text in added], dtype=np.uint64)
            self._runs = _settled((*runs, _Run(start, utf8_of(added), _sorted(new_hashes, start))))
            code_of = {text: start + at for at, text in enumerate(added)}
            found[missing] = [code_of[texts[i]] for i in missing]
        return found.astype(np.int32)

    def subset(self, codes: Any) -> StringPool:
        """A new pool of the strings of ``codes`` (increasing), the i-th under code ``i``:
        what a table keeps of this pool when it renumbers its codes. Cost: O(strings kept)
        plus one sort of their hashes."""
        pool = StringPool()
        if not len(codes):
            return pool
        runs = self._runs
        texts, hashes = [], []
        for run in runs:
            stop = run.first + len(run.texts)
            kept = codes[(codes >= run.first) & (codes < stop)] - run.first
            if len(kept):
                by_place = np.empty(len(run.texts), dtype=np.uint64)
                by_place[run.keys.rows - run.first] = run.keys.keys
                texts.append(run.texts.take(arrow_numbers(kept)))
                hashes.append(by_place[kept])
        pool.strings = self.array()[codes].tolist()
        joined = pa.concat_arrays(texts)
        pool._runs = (_Run(0, joined, _sorted(np.concatenate(hashes), 0)),)
        return pool


def _sorted(hashes: Any, first: int) -> SortedKeys:
    """The sorted keys of ``hashes``, the rows the codes from ``first`` on."""
    keys = SortedKeys.of(hashes)
    return SortedKeys(keys.keys, keys.rows + first)


def _texts_at(distinct: Sequence[str], positions: Any) -> list[str]:
    """The strings of ``distinct`` at ``positions`` as Python strings (the caller's own
    objects when it gave some)."""
    if isinstance(distinct, ArrowStrings):
        return distinct.texts_at(positions)
    return [distinct[i] for i in positions.tolist()]


def _found(runs: tuple[_Run, ...], texts: pa.Array, hashes: Any) -> Any:
    """The code of each string of ``texts`` (``binary``; ``hashes`` theirs) in ``runs``,
    ``-1`` where none: every hash match confirmed on the bytes."""
    found = np.full(len(texts), -1, dtype=np.int64)
    if not runs or not len(texts):
        return found
    queries = SortedKeys(hashes, np.arange(len(hashes)))  # unsorted: no sort to pay for
    for run in runs:
        asked, codes = matches(run.keys, queries)
        if not len(asked):
            continue
        stored = run.texts.take(arrow_numbers((codes - run.first).astype(np.int64)))
        same = pc.equal(stored, texts.take(arrow_numbers(asked.astype(np.int64))))
        kept = numpy_numbers(pc.cast(same, pa.int32())).astype(bool)  # no pandas import
        found[asked[kept]] = codes[kept]
    return found


def _settled(runs: tuple[_Run, ...]) -> tuple[_Run, ...]:
    """``runs`` with the newest merged while the one before holds at most
    :data:`MERGE_RATIO` times as many strings."""
    merged = list(runs)
    while len(merged) >= 2 and len(merged[-2].texts) <= MERGE_RATIO * len(merged[-1].texts):
        older, newer = merged[-2], merged[-1]
        keys = merged_keys([(older.keys, 0), (newer.keys, 0)])
        merged[-2:] = [_Run(older.first, pa.concat_arrays([older.texts, newer.texts]), keys)]
    return tuple(merged)
