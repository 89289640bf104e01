"""The ACLs of an image held as columns: ids, codes and string codes in numpy arrays, record
objects made only when a reader asks.

An :class:`AclTable` holds the ACLs of an image in image order (commit order: the order
:meth:`~aclog.image.acls.AclsDelta.apply` gives, base order kept and additions appended), as
a few :class:`~aclog.image.acl_segment.Segment` runs and a mask per run of the rows still
there. An id is two ``uint64`` words; a binding is seven small integers packed in two words
(its strings as codes of a :class:`~aclog.image.acl_pool.StringPool` shared with every table
derived from this one), so membership and uniqueness are sorted searches over exact words with
no Python object or hash per ACL (:mod:`aclog.image.acl_table_keys`).

Built from records (:meth:`AclTable.from_records`), snapshot format 2's chunks
(:meth:`AclTable.from_chunks`) or any :class:`~aclog.image.acl_column_rows.AclColumnRows`
(:meth:`AclTable.build`, e.g. a decoded batch's); changed only by :meth:`AclTable.applied`,
which applies a whole batch as one-by-one replay would, or declines.

Immutable; thread-safe: many threads may read a table, and any thread may derive tables
from it (a derived table shares the base's arrays and never writes them; the pool locks its
own appends, and a reader only ever looks up codes handed out before its table existed; a
derived table that takes a smaller pool leaves the base's pool and arrays as they were).
Cost: about 90 bytes per ACL (ids, codes, binding words, two sorted fingerprint indexes and,
once searched in bulk, their directories) plus a byte per row of a segment that lost rows,
and each distinct string once (the pool holds at most about two and a half times the strings
the table uses, :mod:`aclog.image.acl_table_compact`); a lookup is a binary search per
segment, a few memory reads per query when many are asked at once (a table has O(log)
segments);
:meth:`AclTable.records` builds every record, about what decoding them from a snapshot costs.

>>> import uuid
>>> from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
>>> acl = AccessControlEntryRecord(uuid.UUID(int=7), ResourceType.TOPIC, "orders",
...     PatternType.LITERAL, "User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)
>>> table = AclTable.from_records([acl])
>>> len(table), uuid.UUID(int=7) in table, table.id_of_key(acl.key) == acl.id
(1, True, True)
>>> from aclog.image.acl_column_rows import of_records, words_of_id_bytes
>>> table.applied(of_records([]), words_of_id_bytes(uuid.UUID(int=7).bytes)).records()
[]
>>> table.applied(of_records([acl]), words_of_id_bytes(b"")) is None  # its id is stored
True
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from aclog.image.acl_column_rows import AclColumnRows, of_chunks, of_records, words_of
from aclog.image.acl_pool import StringPool
from aclog.image.acl_segment import Rows, Segment, interned
from aclog.image.acl_table_apply import applied_rows
from aclog.image.acl_table_compact import kept, recount_after
from aclog.image.acl_table_keys import Words, binding_words, duplicated, is_member
from aclog.image.acl_table_records import LiveColumns, all_records, records_at, records_of
from aclog.image.acl_table_view import AclTableView
from aclog.records.types import AccessControlEntryRecord, AclKey
from aclog.snapshot.acl_columns import ChunkArrays

_U32, _U32_MASK = np.uint64(32), np.uint64(0xFFFFFFFF)


class AclTable:
    """Represents the ACLs of an image, in image order, as columns (see the module)."""

    __slots__ = ("_recount_at", "_rows", "pool")

    def __init__(self, rows: Rows, pool: StringPool, recount_at: int | None = None) -> None:
        self._rows = rows
        self.pool = pool
        """The string pool this table's codes index (shared with tables derived from it,
        until one of them takes a smaller one: :mod:`aclog.image.acl_table_compact`)."""
        self._recount_at = recount_after(len(pool), len(pool)) if recount_at is None else recount_at

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def build(
        cls, parts: Iterable[AclColumnRows], pool: StringPool | None = None
    ) -> AclTable | None:
        """The table of the ACLs of ``parts``, in order, over ``pool`` (a new one if ``None``);
        ``None`` when an id or a binding is stated twice (a snapshot delta's replay then
        raises the error naming it). Cost: O(ACLs) numpy passes and two argsorts."""
        pool = StringPool() if pool is None else pool
        ids: list[Words] = []
        codes: list[Any] = []
        names: list[Any] = []
        for part in parts:
            ids.append(part.ids)
            codes.append(part.codes)
            names.append(interned(part, pool))
        if not ids:
            return cls(Rows((), (), ()), pool)
        columns = [
            tuple(np.concatenate(c) for c in zip(*group, strict=True))
            for group in (ids, codes, names)
        ]
        segment = Segment.of(*columns)  # type: ignore[arg-type]
        if duplicated(segment.ids, segment.id_keys) or duplicated(
            segment.bindings, segment.binding_keys
        ):
            return None
        size = len(segment)
        return cls(
            Rows((segment,) if size else (), (None,) if size else (), (size,) if size else ()), pool
        )

    @classmethod
    def from_records(
        cls, records: Sequence[AccessControlEntryRecord], pool: StringPool | None = None
    ) -> AclTable | None:
        """:meth:`build` of ``records``: the reference path (one Python step per ACL)."""
        return cls.build([of_records(records)], pool)

    @classmethod
    def from_chunks(
        cls, chunks: Iterable[ChunkArrays], pool: StringPool | None = None
    ) -> AclTable | None:
        """:meth:`build` of snapshot format 2's chunks, in order (no Python step per ACL),
        split or not (``chunk_arrays(fields, split=False)`` saves splitting them twice)."""
        return cls.build([of_chunks(list(chunks))], pool)

    def applied(self, additions: AclColumnRows, removal_ids: Words) -> AclTable | None:
        """This table with a batch's ACL ``additions`` and removals (the ids' words) applied
        as :class:`~aclog.image.acls.AclsDelta` replays them, or ``None`` (declined, nothing
        changed): see :mod:`aclog.image.acl_table_apply`. The table returned may hold its
        strings in a new, smaller pool (:mod:`aclog.image.acl_table_compact`): now and then,
        O(ACLs) once, when the pool holds well over twice the strings it uses."""
        rows = applied_rows(self._rows, self.pool, additions, removal_ids)
        if rows is None:
            return None
        return AclTable(*kept(rows, self.pool, self._recount_at))

    # -- reading -------------------------------------------------------------------------------

    def __len__(self) -> int:
        return sum(self._rows.counts)

    @property
    def segments(self) -> int:
        """How many runs of rows the table is held in (for measurements and tests)."""
        return len(self._rows.segments)

    def __contains__(self, acl_id: object) -> bool:
        return isinstance(acl_id, uuid.UUID) and bool(self._located(acl_id))

    def get(self, acl_id: uuid.UUID) -> AccessControlEntryRecord | None:
        """The record of the ACL stored under ``acl_id``, if any. O(log ACLs)."""
        hits = self._located(acl_id)
        if not hits:
            return None
        at, _, rows = hits[0]
        return records_of(self.pool.array(), self._rows.segments[at], rows)[0]

    def get_many(self, acl_ids: Sequence[uuid.UUID]) -> list[AccessControlEntryRecord | None]:
        """The record stored under each of ``acl_ids`` (``None`` where none is), in order: what
        :meth:`get` gives for each, from one vectorised search (a reader asking about a batch
        of ids pays one numpy pass, not one per id). Cost: O(ids log ACLs) plus a record per
        hit."""
        found: list[AccessControlEntryRecord | None] = [None] * len(acl_ids)
        words = words_of(acl_ids)
        for at, asked, rows in self._rows.located(words, binding=False):
            records = records_of(self.pool.array(), self._rows.segments[at], rows)
            for place, record in zip(asked.tolist(), records, strict=True):
                found[place] = record
        return found

    def contains_words(self, words: Words) -> Any:
        """A ``bool`` array: whether each id of ``words`` (hi, lo ``uint64`` arrays, as
        :meth:`ids` gives) is stored. Cost: O(ids log ACLs) numpy passes, no Python step per
        id."""
        stored = np.zeros(len(words[0]), dtype=bool)
        for _, asked, _ in self._rows.located(words, binding=False):
            stored[asked] = True
        return stored

    def ids(self) -> Words:
        """The ids of the ACLs as (hi, lo) ``uint64`` words, in image order (as
        :meth:`records`). Cost: one copy of the two id columns."""
        parts = [
            (s.ids if mask is None else (s.ids[0][mask], s.ids[1][mask]))
            for s, mask in zip(self._rows.segments, self._rows.live, strict=True)
        ]
        if not parts:
            return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.uint64)
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def id_of_key(self, key: AclKey) -> uuid.UUID | None:
        """The id of the stored ACL whose :attr:`~aclog.records.types.AccessControlEntryRecord.key`
        is ``key`` (enum fields as members or codes), if any. O(log ACLs); adds nothing."""
        return self.ids_of_keys([key])[0]

    def ids_of_keys(self, keys: Sequence[AclKey]) -> list[uuid.UUID | None]:
        """:meth:`id_of_key` of each of ``keys``, in order, in one vectorised lookup (a
        request of many bindings pays the numpy calls once, not per binding). Adds nothing.
        Cost: O(keys log ACLs) in numpy, plus a Python step per key to split it."""
        if not keys:
            return []
        fields = list(zip(*keys, strict=True))
        strings = [self.pool.known_codes(fields[at]) for at in (1, 3, 4)]
        codes = [np.array([int(c) for c in fields[at]], dtype=np.int64) for at in (0, 2, 5, 6)]
        known = np.logical_and.reduce([c >= 0 for c in strings])
        for field, column in enumerate(codes):  # a code no record holds matches nothing
            known &= np.fromiter((is_member(field, int(c)) for c in column), bool, len(column))
        asked = np.flatnonzero(known)
        found: list[uuid.UUID | None] = [None] * len(keys)
        if not len(asked):
            return found
        words = binding_words(
            tuple(c[asked].astype(np.uint8) for c in codes),  # type: ignore[arg-type]
            tuple(c[asked] for c in strings),
        )
        for at, queries, rows in self._rows.located(words, binding=True):
            segment = self._rows.segments[at]
            his, los = (word[rows].tolist() for word in segment.ids)
            for query, hi, lo in zip(asked[queries].tolist(), his, los, strict=True):
                found[query] = uuid.UUID(int=hi << 64 | lo)
        return found

    def records(self) -> list[AccessControlEntryRecord]:
        """Every ACL's record, in image order (new objects each call). Cost: one record and
        one UUID per ACL, built a block of rows at a time
        (:mod:`aclog.image.acl_table_records`)."""
        return all_records(self._rows, self.pool)

    def records_at(self, positions: Any) -> list[AccessControlEntryRecord]:
        """The records of the ACLs at ``positions`` (an integer array of places in image
        order, as :meth:`records` lists them), in that order (new objects): a reader that
        wants the ACLs in another order gets them so without reordering a list of records
        (a random walk over a million objects). Cost: :meth:`records`' plus one gather of
        each column."""
        return records_at(self._rows, self.pool, positions)

    def live_columns(self) -> LiveColumns:
        """The columns of the live rows, in image order (the table's own arrays for one
        segment that lost no row, else copies). Cost: one copy of each column, or none."""
        return LiveColumns.of(self._rows)

    def pattern_keys(self) -> Any:
        """One ``uint64`` per ACL, in image order (as :meth:`records`): its resource pattern
        as ``resource type << 56 | pattern type << 48 | name code``, the codes normalised as
        the records map them, so two ACLs share a key exactly when their records share the
        resource type, pattern type and resource name. Cost: O(ACLs) numpy passes."""
        parts = []
        for segment, mask in zip(self._rows.segments, self._rows.live, strict=True):
            name, low = segment.bindings[0] >> _U32, segment.bindings[1] & _U32_MASK
            keys = ((low >> np.uint64(16)) << np.uint64(48)) | name
            parts.append(keys if mask is None else keys[mask])
        return np.concatenate(parts) if parts else np.empty(0, dtype=np.uint64)

    def __iter__(self) -> Iterator[AccessControlEntryRecord]:
        return iter(self.records())

    @property
    def acls(self) -> Mapping[uuid.UUID, AccessControlEntryRecord]:
        """A read-only ``Mapping`` from id to record in image order, as ``AclsImage.acls``."""
        return AclTableView(self)

    # -- helpers -------------------------------------------------------------------------------

    def _located(self, acl_id: uuid.UUID) -> list[tuple[int, Any, Any]]:
        return self._rows.located(words_of((acl_id,)), binding=False)
