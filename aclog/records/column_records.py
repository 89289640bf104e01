"""Record objects from the columnar decoder's batch: how many framed values become records.

:func:`decode_columnar_records` is the batch decoder's large-batch path
(:func:`~aclog.records.small_batch.decode_batch_records` sends it a batch of many values): the
values go through :func:`~aclog.records.columnar.
decode_kinds` (the columnar decoder's numpy passes, each (type, version) apart, secrets
included: replay needs SCRAM keys), the records are built from each kind's Arrow columns a
type at a time (replay takes them so), and put in row order by
one gather when a reader wants them so. ACL additions and removals, nearly every record of a
log, are built a field at a time with no Python call per record
(:func:`~aclog.records.build.acls_from_columns`), the additions' binding keys zipped from the
same columns; the other types, a few per batch, through
the one-record builders of :data:`~aclog.records.build.FROM_AVRO` from their current-version
fields. So a record equals what :func:`~aclog.records.codec.decode_framed` gives for its
value, and a damaged value raises the codec's :class:`~aclog.records.codec.RecordDecodeError`
naming its offset (the columnar decoder's reference path).

Thread-safe (no shared mutable state). Cost per ACL record: the columnar passes,
one 16-byte slice and ``int.from_bytes`` for its id, and its two objects (UUID and record)
filled by slot setters mapped over the column.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import chain, pairwise, repeat
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
import pyarrow as pa

from aclog.records.build import (
    ACL_CODE_TABLES,
    FROM_AVRO,
    FROM_FIELDS,
    acls_from_columns,
    remove_acls_from_ids,
)
from aclog.records.codec import DecodedKind
from aclog.records.columnar import KindColumns, Offsets, column_name, decode_kinds
from aclog.records.decoded import AclRows, DecodedRecords, in_row_order
from aclog.records.id_bytes import id_column_bytes, split_ids
from aclog.records.schemas import CURRENT_VERSIONS, raw_schema
from aclog.records.types import ACL_KEY_FIELDS, Record, RecordType
from aclog.records.vector import numpy_numbers

_NUMBERS = (pa.int32(), pa.int64())
_TYPES = {int(member): member for member in RecordType}
_ACL_COLUMNS = ACL_KEY_FIELDS
"""The columns of an ACL addition after its id, in :func:`acls_from_columns` order."""
_ACL_TYPES = frozenset({RecordType.ACCESS_CONTROL_ENTRY, RecordType.REMOVE_ACCESS_CONTROL_ENTRY})
_NO_ROWS = np.empty(0, dtype=np.int64)
_id_of = attrgetter("id")


def decode_columnar_records(values: Sequence[bytes], offsets: Offsets = None) -> DecodedRecords:
    """:func:`~aclog.records.small_batch.decode_batch_records` through the columnar decoder,
    whatever the batch's size."""
    kinds = decode_kinds(values, offsets, secrets=True)
    acl_kinds = [k for k in kinds if k.record_type in _ACL_TYPES]
    others: list[tuple[int, Record]] = []
    for kind in kinds:
        if kind.record_type not in _ACL_TYPES:
            others += zip(kind.rows.tolist(), _records_of_kind(kind), strict=True)
    if len(kinds) - len(acl_kinds) > 1:
        others.sort(key=itemgetter(0))  # several other kinds: their rows interleave
    kind_rows = [(_kind_of(k.record_type << 8 | k.version), k.rows) for k in kinds]
    return DecodedRecords(len(values), acl_kinds, others, kind_rows, acl_rows)


def acl_rows(kinds: list[KindColumns]) -> AclRows:
    """The ACL records of the ACL kinds ``kinds``, each type's in row order."""
    adds = [_additions(k) for k in kinds if k.record_type == RecordType.ACCESS_CONTROL_ENTRY]
    removes = [k for k in kinds if k.record_type == RecordType.REMOVE_ACCESS_CONTROL_ENTRY]
    add_rows = _joined_rows([rows for rows, _ in adds])
    remove_rows = _joined_rows([k.rows for k in removes])
    raw_ids = list(chain.from_iterable(_id_bytes(k.columns["id"]) for k in removes))
    removals: list[Any] = remove_acls_from_ids(raw_ids)
    records: list[Any] = list(chain.from_iterable(r for _, r in adds))
    if len(adds) > 1:  # two versions of additions in one batch: put them in row order
        records = in_row_order([rows for rows, _ in adds], [r for _, r in adds])
        add_rows = np.sort(add_rows)
    if len(removes) > 1:
        removals = in_row_order([k.rows for k in removes], _split(removals, removes))
        remove_rows = np.sort(remove_rows)
    ids = list(map(_id_of, records)), list(map(_id_of, removals))
    return AclRows(add_rows, ids[0], records, remove_rows, ids[1], removals)


def _additions(kind: KindColumns) -> tuple[Any, list[Record]]:
    """The rows and records of one kind of ACL additions."""
    columns = kind.columns
    fields = [
        code_members(numpy_numbers(columns[name]), name)
        if name in _MEMBERS
        else _values(columns[name])
        for name in _ACL_COLUMNS
    ]
    records = acls_from_columns(_id_bytes(columns["id"]), *fields, converted=True)
    return kind.rows, records


def _joined_rows(parts: list[Any]) -> Any:
    return np.concatenate(parts) if parts else _NO_ROWS


def _split(items: list[Any], kinds: list[KindColumns]) -> list[list[Any]]:
    """``items`` cut into one list per kind, by each kind's number of rows."""
    cuts = np.cumsum([0, *(len(k.rows) for k in kinds)]).tolist()
    return [items[a:b] for a, b in pairwise(cuts)]


@cache
def _kind_of(key: int) -> DecodedKind:
    """The (type, version) of ``type_code << 8 | version``, one tuple per kind."""
    return _TYPES[key >> 8], key & 0xFF


def _records_of_kind(kind: KindColumns) -> list[Record]:
    """The records of one kind of a decoded batch that is no ACL kind, in its row order."""
    record_type, columns = _TYPES[kind.record_type], kind.columns
    build = FROM_AVRO[record_type]
    names, where = _field_columns(record_type)
    count = len(kind.rows)
    lists = [_values(columns[c]) if c in columns else [None] * count for c in where]
    if record_type in FROM_FIELDS and lists:
        return list(map(FROM_FIELDS[record_type], *lists))
    rows = zip(*lists, strict=True) if lists else repeat((), count)  # NoOp: no field
    return [build(dict(zip(names, row, strict=True))) for row in rows]


@cache
def _field_columns(record_type: RecordType) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The current-version field names of ``record_type`` and the columns they land in."""
    names = tuple(
        f["name"] for f in raw_schema(record_type, CURRENT_VERSIONS[record_type])["fields"]
    )
    return names, tuple(column_name(record_type, name) for name in names)


def _values(column: pa.Array) -> list[Any]:
    """The column's values as Python objects (numbers through numpy: several times faster)."""
    if column.null_count == 0 and column.type in _NUMBERS:
        values: list[Any] = numpy_numbers(column).tolist()
        return values
    pylist: list[Any] = column.to_pylist()
    return pylist


def code_members(codes: Any, field: str) -> list[Any]:
    """The enum members of the ACL codes ``codes`` (a numpy integer array) of ``field``
    (``resource_type``, ``pattern_type``, ``operation`` or ``permission_type``), ``UNKNOWN``
    for a code without one, as the record builders map them: one numpy gather from a table.
    Cost: a few ns per code, against about 25 for a dict lookup per code."""
    index = np.where((codes >= 0) & (codes < _TABLE_CODES), codes, _TABLE_CODES)
    members: list[Any] = _MEMBERS[field][index].tolist()
    return members


def _member_table(codes: tuple[dict[int, Any], Any]) -> Any:
    table, unknown = codes
    members = [table.get(code, unknown) for code in range(_TABLE_CODES)]
    return np.array([*members, unknown], dtype=object)


_TABLE_CODES = 256
_MEMBERS = {
    name: _member_table(codes)
    for name, codes in zip(
        ("resource_type", "pattern_type", "operation", "permission_type"),
        ACL_CODE_TABLES,
        strict=True,
    )
}
"""Code -> member tables of the ACL code columns, from the builders' own maps."""


def _id_bytes(column: pa.Array) -> list[bytes]:
    """One ``bytes`` per id of a ``fixed_size_binary[16]`` column."""
    return split_ids(id_column_bytes(column))
