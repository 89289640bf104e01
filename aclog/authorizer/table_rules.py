"""The rules of every resource pattern of an ACL table, built from its columns: the authorizer's
bulk load without a record or a UUID per ACL. The reference is
:func:`~aclog.authorizer.grouped.build_rules` of each pattern's records.

- The rows are sorted once by (pattern key, principal code) (:func:`layout_of`), so each
  pattern's ACLs are one run and each of its principals a sub-run.
- A row's bit is a lookup by (permission code, operation code) in :data:`BITS`
  (:func:`~aclog.authorizer.rules.permission_bit` of the members its record would hold); numpy
  ORs the bits of each sub-run.
- A pattern that is not GLOB and whose ACLs all have host ``*`` (nearly every one) becomes a
  :class:`TableRules`: its principals' strings and bits in one dict made in C, the bits of
  ``User:*`` as ``wild``, no ``extra``. Its ``acls`` (and ``groups``) are made from its rows
  when first read (:class:`RowSource`); the hot path reads only the dict, ``wild`` and
  ``extra``, so it never meets anything lazy.
- Any other pattern (GLOB, host-specific ACLs: few) gets the reference's rules of its records.

The pool gives a string one code (:meth:`~aclog.image.acl_pool.StringPool.codes`), so equal
codes are equal strings: grouping by code is grouping by principal text.

Thread-safe: readers may race to make a pattern's ``acls``; each makes an equal tuple and one
is kept. Cost: one sort of a word per ACL, a few numpy passes, a dict per pattern; the records
of a pattern when first read (or, once many patterns were read one by one, of every ACL at
once, :meth:`RowSource.acls_of`).
"""

from __future__ import annotations

import threading
from itertools import pairwise, repeat
from typing import Any, NamedTuple

import numpy as np

from aclog.authorizer.grouped import build_rules, groups_of
from aclog.authorizer.rules import Groups, Rules, permission_bit
from aclog.image.acl_table_columns import TableColumns
from aclog.records.build import consume
from aclog.records.column_records import code_members
from aclog.records.enums import PatternType
from aclog.records.types import AccessControlEntryRecord

Acls = tuple[AccessControlEntryRecord, ...]
_CODES = np.arange(256)
_PERMISSIONS = code_members(_CODES, "permission_type")
_OPERATIONS = code_members(_CODES, "operation")
_ROWS = {p: [permission_bit(p, op) for op in _OPERATIONS] for p in set(_PERMISSIONS)}
BITS = np.array([_ROWS[p] for p in _PERMISSIONS], dtype=np.int64)
"""The bit of an ACL by (permission code, operation code), as its record's members give it."""
_GLOB = np.uint64(PatternType.GLOB)
_PAIR_SHIFT, _BYTE = np.uint64(48), np.uint64(0xFF)
_NAME_MASK = np.uint64((1 << 48) - 1)


class RowSource:
    """Represents the rows the :class:`TableRules` of one load refer to: the table's live
    ``columns``, ``order`` (the image place of each row of the sorted layout) and ``bounds``
    (pattern ``p``'s rows are ``order[bounds[p]:bounds[p + 1]]``). Immutable but for its
    cache of records; thread-safe. Memory: 4 bytes per ACL and 8 per pattern (a pattern's
    rules hold only its number, not a slice: two int objects and a slice per pattern were
    a third of the load's rules)."""

    __slots__ = ("_all", "_asked", "_lock", "_patience", "bounds", "columns", "order")

    def __init__(self, columns: TableColumns, order: Any, bounds: Any) -> None:
        self.columns, self.bounds = columns, bounds
        self.order = order.astype(np.int32) if len(order) < 2**31 else order
        self._all: list[AccessControlEntryRecord] | None = None
        self._asked = 0
        self._patience = max(64, (len(bounds) - 1) // 16)
        self._lock = threading.Lock()

    def acls_of(self, pattern: int) -> Acls:
        """The records of the rows of ``pattern``, in image order (new objects). One pattern
        at a time pays a fixed cost per call; after :attr:`_patience` patterns (a listing walks
        them all) every row's record is made at once, in one pass, and kept."""
        span = slice(int(self.bounds[pattern]), int(self.bounds[pattern + 1]))
        everything = self._all
        if everything is None:
            self._asked += 1  # a lost count between racing threads only delays the switch
            if self._asked <= self._patience:
                return tuple(self.columns.records_at(np.sort(self.order[span])))
            everything = self._everything()
        return tuple(everything[span])

    def _everything(self) -> list[AccessControlEntryRecord]:
        with self._lock:
            if self._all is None:
                # Each pattern's rows by image place, the patterns where they are.
                runs = np.repeat(np.arange(len(self.bounds) - 1), np.diff(self.bounds))
                self._all = self.columns.records_at(self.order[np.lexsort((self.order, runs))])
            return self._all


_ACLS_SLOT, _GROUPS_SLOT = (Rules.__dict__[name] for name in ("acls", "groups"))


class TableRules(Rules):
    """Represents the rules of one pattern built from table rows (see the module docstring):
    a :class:`Rules` whose ``acls`` and ``groups`` are made on first read. Immutable once
    built; thread-safe."""

    __slots__ = ("_pattern", "_source")

    _source: RowSource
    _pattern: int

    @property
    def acls(self) -> Acls:
        """The pattern's ACLs in image order, made from its rows on first read."""
        try:
            return _ACLS_SLOT.__get__(self, Rules)  # type: ignore[no-any-return]
        except AttributeError:  # not made yet
            acls = self._source.acls_of(self._pattern)
            _ACLS_SLOT.__set__(self, acls)
            return acls

    @acls.setter
    def acls(self, value: Acls) -> None:
        _ACLS_SLOT.__set__(self, value)

    @property
    def groups(self) -> Groups | None:
        """The pattern's ACLs by destination when they are many, made on first read."""
        try:
            return _GROUPS_SLOT.__get__(self, Rules)  # type: ignore[no-any-return]
        except AttributeError:  # not made yet
            groups = groups_of(self.acls)
            _GROUPS_SLOT.__set__(self, groups)
            return groups

    @groups.setter
    def groups(self, value: Groups | None) -> None:
        _GROUPS_SLOT.__set__(self, value)


class Layout(NamedTuple):
    """A table's rows sorted by (pattern key, principal code): ``order`` (the image place of
    each sorted row), ``starts``/``ends`` (each pattern's run), ``keys`` (each pattern's key),
    ``firsts`` (each pattern's first image place), ``runs`` (each row's pattern) and
    ``groups`` (where each principal's sub-run starts)."""

    order: Any
    starts: Any
    ends: Any
    keys: Any
    firsts: Any
    runs: Any
    groups: Any


def layout_of(keys: Any, principals: Any) -> Layout:
    """The layout of rows whose pattern keys are ``keys`` (``uint64``, as
    :meth:`~aclog.image.acl_table.AclTable.pattern_keys`) and principals ``principals``
    (pool codes), non-empty. One sort of a packed word when both fit in one, else a lexsort."""
    who = principals.astype(np.uint64)
    name, pair = keys & _NAME_MASK, keys >> _PAIR_SHIFT
    room = int(who.max()).bit_length()
    shift = int(name.max()).bit_length() + room
    if int(pair.max()).bit_length() + shift <= 64:
        order = np.argsort((pair << np.uint64(shift)) | (name << np.uint64(room)) | who)
    else:
        order = np.lexsort((who, keys))
    keys, who = keys[order], who[order]
    new_pattern = np.ones(len(keys), dtype=bool)
    new_pattern[1:] = keys[1:] != keys[:-1]
    new_group = new_pattern.copy()
    new_group[1:] |= who[1:] != who[:-1]
    starts = np.flatnonzero(new_pattern)
    ends = np.append(starts[1:], len(keys))
    runs = np.cumsum(new_pattern) - 1
    firsts = np.minimum.reduceat(order, starts)
    return Layout(order, starts, ends, keys[starts], firsts, runs, np.flatnonzero(new_group))


def rules_of_layout(
    columns: TableColumns, layout: Layout, wild_principal: int, any_host: int
) -> list[Rules]:
    """The rules of each pattern of ``layout`` over ``columns``, in layout order:
    :class:`TableRules` where they can be (see the module docstring), the reference's
    elsewhere. ``wild_principal`` and ``any_host`` are the pool codes of ``User:*`` and
    ``*`` (``-1``: not in the pool)."""
    order, starts = layout.order, layout.starts
    hosted = np.logical_or.reduceat(columns.names[2][order] != any_host, starts)
    plain = ~hosted & ((layout.keys >> _PAIR_SHIFT) & _BYTE != _GLOB)
    fast = np.flatnonzero(plain)
    made = _table_rules(columns, layout, fast, wild_principal)
    if len(fast) == len(starts):
        return made
    slow = iter(_reference_rules(columns, layout, np.flatnonzero(~plain)))
    quick = iter(made)
    return [next(quick) if easy else next(slow) for easy in plain.tolist()]


def _table_rules(
    columns: TableColumns, layout: Layout, fast: Any, wild_principal: int
) -> list[Rules]:
    """The :class:`TableRules` of the patterns ``fast`` (indexes into the layout's patterns)."""
    order, groups = layout.order, layout.groups
    bits = BITS[columns.codes[3][order], columns.codes[2][order]]
    group_bits = np.bitwise_or.reduceat(bits, groups)
    group_pattern = layout.runs[groups]
    principal = columns.names[1][order[groups]]
    wild = principal == wild_principal
    wilds = np.zeros(len(layout.starts), dtype=np.int64)
    np.bitwise_or.at(wilds, group_pattern[wild], group_bits[wild])
    kept = ~wild & (group_bits != 0)
    texts = columns.strings[principal[kept]].tolist()
    values = group_bits[kept].tolist()
    bounds = np.searchsorted(group_pattern[kept], np.arange(len(layout.starts) + 1))
    spans = list(map(slice, bounds[fast].tolist(), bounds[fast + 1].tolist()))
    made: list[Rules] = list(
        map(TableRules, map(zip, map(texts.__getitem__, spans), map(values.__getitem__, spans)))
    )
    source = RowSource(columns, order, np.append(layout.starts, len(order)))
    for setter, settings in (
        (_SET_WILD, wilds[fast].tolist()),
        (_SET_EXTRA, repeat(None)),
        (_SET_SOURCE, repeat(source)),
        (_SET_PATTERN, fast.tolist()),
    ):
        consume(map(setter, made, settings))
    return made


_SET_WILD, _SET_EXTRA = (Rules.__dict__[name].__set__ for name in ("wild", "extra"))
_SET_SOURCE, _SET_PATTERN = (TableRules.__dict__[name].__set__ for name in ("_source", "_pattern"))


def _reference_rules(columns: TableColumns, layout: Layout, slow: Any) -> list[Rules]:
    """The reference's rules of the patterns ``slow``: their records (each pattern's in image
    order) made in one call, then :func:`build_rules` of each pattern's."""
    starts, ends = layout.starts[slow].tolist(), layout.ends[slow].tolist()
    places = [np.sort(layout.order[start:end]) for start, end in zip(starts, ends, strict=True)]
    records = columns.records_at(np.concatenate(places))
    cuts = np.cumsum([0, *map(len, places)]).tolist()
    return [build_rules(tuple(records[a:b])) for a, b in pairwise(cuts)]
