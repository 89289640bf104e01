"""The strings of ACL tables as small integer codes: one append-only pool shared by a table and
every table derived from it.

An :class:`~aclog.image.acl_table.AclTable` stores an ACL's resource name, principal and host
as ``int32`` codes into a :class:`StringPool`, so that a binding is seven small integers
(packed into two words, :mod:`aclog.image.acl_table_keys`) and the same principal or host
is one string object however many ACLs name it.

Thread-safe: :meth:`StringPool.codes` takes a lock around the whole interning of a batch's
strings, so two threads deriving tables from one pool never hand out one code twice. Readers
take no lock: a table holds only codes that were handed out before it existed, the list is only
appended to (an item never changes once there, and it is there before the dict hands out its
code), and ``dict.get`` and ``list[i]`` are atomic under the GIL. A string no table holds any
more keeps its code: the pool never forgets (a table built afresh, as at a snapshot load,
starts a new pool; a long-lived one grows by the strings of every ACL ever added). Cost: one
dict lookup per DISTINCT string of a batch, none per ACL.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from itertools import repeat
from typing import Any

import numpy as np


class StringPool:
    """Represents the strings of some ACL tables, each under the code of its place in
    :attr:`strings`."""

    __slots__ = ("_array", "_codes", "_lock", "strings")

    def __init__(self) -> None:
        self.strings: list[str] = []
        """The strings by code. Append-only; read it, never change it."""
        self._codes: dict[str, int] = {}
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
        return self._codes.get(text)

    def codes(self, distinct: Sequence[str]) -> Any:
        """The ``int32`` code of each string of ``distinct`` (a string held twice gets one
        code), in order, adding the strings the pool lacks. Cost: one dict lookup per string
        and one insert per new one, in C."""
        with self._lock:
            codes, strings = self._codes, self.strings
            found = self.known_codes(distinct)
            missing = np.flatnonzero(found < 0)
            if not len(missing):
                return found.astype(np.int32)
            fresh = list(map(distinct.__getitem__, missing.tolist()))
            unique = list(dict.fromkeys(fresh))
            start = len(strings)
            # The list first: a code a reader finds in the dict always has its string.
            strings.extend(unique)
            codes.update(zip(unique, range(start, start + len(unique)), strict=True))
            if len(unique) == len(fresh):  # each new string once: codes in order
                found[missing] = np.arange(start, start + len(unique))
            else:
                found[missing] = list(map(codes.__getitem__, fresh))
        return found.astype(np.int32)

    def known_codes(self, distinct: Sequence[str]) -> Any:
        """The ``int64`` code of each string of ``distinct``, ``-1`` for one the pool lacks.
        Adds nothing."""
        found = map(self._codes.get, distinct, repeat(-1))
        return np.fromiter(found, dtype=np.int64, count=len(distinct))
