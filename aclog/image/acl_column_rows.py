"""ACLs as columns before they join a table: from records, a snapshot chunk or a decoded batch.

:class:`AclColumnRows` is what :class:`~aclog.image.acl_table.AclTable` is built from and what
a batch adds to it: ids as two ``uint64`` words, the four code fields as ``uint8`` codes as
written (a code without an enum member stays itself; one past a byte, which no enum has,
becomes 0, ``UNKNOWN``, as every reader of records sees it anyway), and each string field as
the distinct strings and an index into them per ACL, so a table's pool looks each distinct
string up once (:meth:`~aclog.image.acl_pool.StringPool.codes`), never each ACL's.

- :func:`of_records`: the reference path (one Python step per ACL);
- :func:`of_chunks`: snapshot format 2's chunk columns (:func:`~aclog.snapshot.acl_columns.
  chunk_arrays`), no Python step per ACL nor per string but the distinct ones;
- :func:`of_arrays`: ids as packed bytes, ``uint8`` codes and an Arrow string array per field
  (a KRaft checkpoint's grants, :class:`aclog.kraft.AclColumns`), no Python step per ACL;
- :func:`of_kinds` and :func:`removal_words`: a decoded batch's Arrow columns
  (:func:`~aclog.records.columnar.decode_kinds`), additions in row order.

Immutable by convention (nobody changes the arrays); thread-safe. Cost: O(ACLs) numpy passes.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from aclog.image.acl_string_hashes import ArrowStrings
from aclog.image.acl_table_keys import Words
from aclog.records.column_layout import KindColumns
from aclog.records.id_bytes import id_column_bytes, id_words, split_ids
from aclog.records.types import ACL_KEY_FIELDS, AccessControlEntryRecord, RecordType
from aclog.records.vector import numpy_numbers
from aclog.snapshot.acl_columns import ChunkArrays, chunk_strings

CODE_FIELDS = ("resource_type", "pattern_type", "operation", "permission_type")
STRING_FIELDS = ("resource_name", "principal", "host")
_FIELD = {name: attrgetter(name) for name in (*CODE_FIELDS, *STRING_FIELDS)}
_ID_INT = attrgetter("id.int")  # a slot: no Python call (UUID.bytes is a property)

Strings = tuple[Sequence[str], Any]
"""One string field: its distinct strings and each ACL's index into them (integer array)."""


@dataclass(frozen=True, slots=True)
class AclColumnRows:
    """Some ACLs in order: their ``ids`` (hi, lo words), ``codes`` (one ``uint8`` array per
    :data:`CODE_FIELDS` entry) and ``strings`` (one :data:`Strings` per :data:`STRING_FIELDS`
    entry). Each list of distinct strings holds a string once (every builder here makes them
    so): a batch's bindings are told apart by it."""

    ids: Words
    codes: tuple[Any, Any, Any, Any]
    strings: tuple[Strings, Strings, Strings]

    def __len__(self) -> int:
        return len(self.ids[0])


def words_of_id_bytes(data: bytes | memoryview) -> Words:
    """The (hi, lo) words of ids given as 16 big-endian bytes each, back to back."""
    halves = id_words(data)
    return halves[:, 0].astype(np.uint64), halves[:, 1].astype(np.uint64)


def words_of(ids: Sequence[uuid.UUID]) -> Words:
    """The (hi, lo) words of ``ids``, as a table looks ids up."""
    return words_of_id_bytes(b"".join([acl_id.bytes for acl_id in ids]))


def id_bytes(ids: Words) -> list[bytes]:
    """The 16 bytes of each id of ``ids``, as ``acls_from_columns`` takes them."""
    halves = np.empty((len(ids[0]), 2), dtype=">u8")
    halves[:, 0], halves[:, 1] = ids
    return split_ids(halves)


def _distinct(values: list[str]) -> Strings:
    """A string field's distinct strings, in first-seen order, and each value's index into
    them (two C-level passes: no Python step per value)."""
    distinct = list(dict.fromkeys(values))
    place = {text: index for index, text in enumerate(distinct)}
    return distinct, np.fromiter(map(place.__getitem__, values), np.int64, len(values))


def of_records(records: Sequence[AccessControlEntryRecord]) -> AclColumnRows:
    """The columns of ``records`` (enum members become their codes): a field at a time, each
    a C-level pass over the records (no Python step per record)."""
    count = len(records)
    ids = b"".join(map(int.to_bytes, map(_ID_INT, records), repeat(16)))
    codes = tuple(
        _byte_codes(np.fromiter(map(int, map(_FIELD[f], records)), np.int64, count))
        for f in CODE_FIELDS
    )
    strings = tuple(_distinct(list(map(_FIELD[f], records))) for f in STRING_FIELDS)
    return AclColumnRows(words_of_id_bytes(ids), codes, strings)  # type: ignore[arg-type]


def of_arrays(
    ids: bytes, codes: Sequence[Any], strings: Sequence[Sequence[pa.Array]]
) -> AclColumnRows:
    """The columns of ACLs given as their ids (16 bytes each, back to back), their
    :data:`CODE_FIELDS` as ``uint8`` arrays (codes as :func:`of_records` makes them) and their
    :data:`STRING_FIELDS` as Arrow string arrays each (a field's values in order, in pieces).
    The three fields share one list of distinct strings, made by Arrow in C over the pieces
    without joining them (no Python string per value), so a table's pool looks them up in
    one call."""
    pieces = [piece for field in strings for piece in field]
    encoded = pc.dictionary_encode(pa.chunked_array(pieces, pa.string()))
    if not encoded.num_chunks:
        return of_records([])
    # Arrow encodes a chunked array with one dictionary, the same for every chunk.
    distinct = ArrowStrings(encoded.chunk(0).dictionary)
    index = np.concatenate([numpy_numbers(chunk.indices) for chunk in encoded.chunks])
    cuts = np.cumsum([0, *(sum(map(len, field)) for field in strings)])
    shared = tuple((distinct, index[cuts[i] : cuts[i + 1]]) for i in range(len(strings)))
    return AclColumnRows(words_of_id_bytes(ids), tuple(codes), shared)  # type: ignore[arg-type]


def of_chunks(chunks: Sequence[ChunkArrays]) -> AclColumnRows:
    """The columns of snapshot chunks, in order: every chunk's strings split and made
    distinct by Arrow in C (:func:`~aclog.snapshot.acl_columns.chunk_strings`), so a Python
    string exists only per distinct string, and the three string fields share one list."""
    if not chunks:
        return of_records([])
    encoded = pc.dictionary_encode(chunk_strings(chunks))
    distinct = ArrowStrings(encoded.dictionary)
    positions = numpy_numbers(encoded.indices)  # to_numpy imports pandas on first use
    starts = np.cumsum([0, *(c.string_count for c in chunks)])[:-1]
    ids = words_of_id_bytes(b"".join([c.ids for c in chunks]))
    codes = tuple(np.concatenate([c.codes[f] for c in chunks]) for f in CODE_FIELDS)
    strings = tuple(
        (
            distinct,
            positions[
                np.concatenate(
                    [c.indexes[f].astype(np.int64) + s for c, s in zip(chunks, starts, strict=True)]
                )
            ],
        )
        for f in STRING_FIELDS
    )
    return AclColumnRows(ids, codes, strings)  # type: ignore[arg-type]


def of_kinds(kinds: Sequence[KindColumns]) -> AclColumnRows:
    """The ACL additions of a decoded batch's kinds, in row order (other kinds are skipped)."""
    parts = [k for k in kinds if k.record_type == RecordType.ACCESS_CONTROL_ENTRY]
    if not parts:
        return of_records([])
    if len(parts) == 1:
        return _of_columns(parts[0].columns)
    # Several versions in one batch: their rows interleave; one gather puts them in order.
    order = pa.array(np.argsort(np.concatenate([k.rows for k in parts]), kind="stable"))
    fields = (*ACL_KEY_FIELDS, "id")
    joined = pa.concat_tables([pa.table({f: k.columns[f] for f in fields}) for k in parts])
    return _of_columns({f: joined[f].take(order).combine_chunks() for f in fields})


def removal_words(kinds: Sequence[KindColumns]) -> Words:
    """The (hi, lo) words of the ACL removals of a decoded batch's kinds, in row order."""
    parts = [k for k in kinds if k.record_type == RecordType.REMOVE_ACCESS_CONTROL_ENTRY]
    if not parts:
        return np.empty(0, np.uint64), np.empty(0, np.uint64)
    rows = np.concatenate([k.rows for k in parts])
    order = np.argsort(rows, kind="stable")
    words = [_fixed_words(k.columns["id"]) for k in parts]
    hi, lo = (np.concatenate([w[half] for w in words]) for half in (0, 1))
    return hi[order], lo[order]


def _of_columns(columns: dict[str, pa.Array]) -> AclColumnRows:
    codes = tuple(_codes(columns[f]) for f in CODE_FIELDS)
    strings = tuple(_encoded(columns[f]) for f in STRING_FIELDS)
    return AclColumnRows(_fixed_words(columns["id"]), codes, strings)  # type: ignore[arg-type]


def _codes(column: pa.Array) -> Any:
    """A code column as ``uint8`` codes (see :func:`_byte_codes`)."""
    return _byte_codes(numpy_numbers(column))  # to_numpy imports pandas on first use


def _byte_codes(values: Any) -> Any:
    """Integer codes as ``uint8``; a code past a byte (no enum has one) becomes 0."""
    return np.where((values >= 0) & (values < 256), values, 0).astype(np.uint8)


def _encoded(column: pa.Array) -> Strings:
    """A string column's distinct strings (left in Arrow: the pool reads their bytes) and
    each row's index, by Arrow's hash table."""
    encoded = pc.dictionary_encode(column)
    # numpy_numbers: to_numpy imports pandas on first use
    return ArrowStrings(encoded.dictionary), numpy_numbers(encoded.indices)


def _fixed_words(column: pa.Array) -> Words:
    """The words of a ``fixed_size_binary[16]`` id column without nulls."""
    return words_of_id_bytes(id_column_bytes(column))
