"""Records made from an :class:`~aclog.image.acl_table.AclTable`'s columns: the only place a
table turns rows back into :class:`~aclog.records.types.AccessControlEntryRecord` objects.

A table keeps no record; each read that wants records (``get``, ``get_many``, ``records``,
``records_at``) gathers the rows' columns and builds the records a field at a time
(``acls_from_columns``), a block of :data:`BLOCK` rows at a time so that the block's lists
stay in the CPU's caches.

Pure; thread-safe (reads arrays nobody writes). Cost: one record and one UUID per row asked
for, plus one gather of each column.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, NamedTuple, Protocol

import numpy as np

from aclog.image.acl_column_rows import CODE_FIELDS, id_bytes
from aclog.image.acl_pool import StringPool
from aclog.image.acl_segment import Rows, Segment
from aclog.image.acl_table_keys import Words
from aclog.records.build import acls_from_columns
from aclog.records.column_records import code_members
from aclog.records.types import AccessControlEntryRecord

BLOCK = 4096
"""Rows per block when many records are built."""


class LiveColumns(NamedTuple):
    """The columns of a table's live rows, in image order, as one run (the fields of a
    :class:`~aclog.image.acl_segment.Segment` that records are built from)."""

    ids: Words
    codes: tuple[Any, ...]
    names: tuple[Any, ...]

    @classmethod
    def of(cls, rows: Rows) -> LiveColumns:
        """The live rows of ``rows``. Cost: one copy of each column (none for one segment
        that lost no row)."""
        kept = [
            (s.ids, s.codes, s.names) if mask is None else _kept(s, mask)
            for s, mask in zip(rows.segments, rows.live, strict=True)
        ]
        if len(kept) == 1:
            return cls(*kept[0])
        if not kept:
            return cls(*_kept(None, None))
        ids, codes, names = (
            tuple(np.concatenate(columns) for columns in zip(*group, strict=True))
            for group in zip(*kept, strict=True)
        )
        return cls(ids, codes, names)  # type: ignore[arg-type]


class Columns(Protocol):
    """Any run of a table's rows as columns (a segment, the live rows, a reader's copy)."""

    @property
    def ids(self) -> Words: ...
    @property
    def codes(self) -> tuple[Any, ...]: ...
    @property
    def names(self) -> tuple[Any, ...]: ...


def records_of(strings: Any, segment: Columns, rows: Any) -> list[AccessControlEntryRecord]:
    """The records of ``segment``'s ``rows`` (an integer array), in that order; its string
    codes index ``strings`` (a pool's :meth:`~aclog.image.acl_pool.StringPool.array`)."""
    codes = [code_members(c[rows], f) for c, f in zip(segment.codes, CODE_FIELDS, strict=True)]
    name, principal, host = (strings[c[rows]].tolist() for c in segment.names)
    ids = id_bytes((segment.ids[0][rows], segment.ids[1][rows]))
    built = acls_from_columns(
        ids, codes[0], name, codes[1], principal, host, codes[2], codes[3], converted=True
    )
    return built  # type: ignore[return-value]


def all_records(rows: Rows, pool: StringPool) -> list[AccessControlEntryRecord]:
    """The record of every live row of ``rows``, in image order, a block at a time."""
    strings, parts = pool.array(), []
    for segment, mask in zip(rows.segments, rows.live, strict=True):
        places = np.arange(len(segment)) if mask is None else np.flatnonzero(mask)
        for start in range(0, len(places), BLOCK):
            parts.append(records_of(strings, segment, places[start : start + BLOCK]))
    return list(chain.from_iterable(parts))


def records_at(rows: Rows, pool: StringPool, positions: Any) -> list[AccessControlEntryRecord]:
    """The records of the live rows at ``positions`` (places in image order), in that order."""
    live, strings, parts = LiveColumns.of(rows), pool.array(), []
    for start in range(0, len(positions), BLOCK):
        parts.append(records_of(strings, live, positions[start : start + BLOCK]))
    return list(chain.from_iterable(parts))


def _kept(segment: Segment | None, mask: Any) -> tuple[Any, Any, Any]:
    """The columns of ``segment`` that ``mask`` keeps (no segment: empty columns)."""
    if segment is None:
        empty = np.empty(0, dtype=np.uint64)
        codes = tuple(np.empty(0, dtype=np.uint8) for _ in range(4))
        return (empty, empty), codes, tuple(np.empty(0, dtype=np.int32) for _ in range(3))
    return tuple(
        tuple(column[mask] for column in group)
        for group in (segment.ids, segment.codes, segment.names)
    )  # type: ignore[return-value]
