"""Record objects from the columnar decoder's batch: how many framed values become records.

:func:`decode_records` is the batch decoder of everything that needs record objects (replay,
``dump``, ``explain``, the tools): the values go through :func:`~aclog.records.columnar.
decode_kinds` (the columnar decoder's numpy passes, each (type, version) apart, secrets
included: replay needs SCRAM keys), the records are built from each kind's Arrow columns a
type at a time, and put in row order by one gather. ACL additions and removals, nearly every
record of a log, are built a field at a time with no Python call per record
(:func:`~aclog.records.build.acls_from_columns`); the other types, a few per batch, through
the one-record builders of :data:`~aclog.records.build.FROM_AVRO` from their current-version
fields. So a record equals what :func:`~aclog.records.codec.decode_framed` gives for its
value, and a damaged value raises the codec's :class:`~aclog.records.codec.RecordDecodeError`
naming its offset (the columnar decoder's reference path).

Thread-safe (no shared mutable state). Cost per ACL record: the columnar passes (about 0.3 us),
one 16-byte slice and ``int.from_bytes`` for its id, and its two objects (UUID and record)
filled by slot setters mapped over the column.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from itertools import chain, repeat
from operator import itemgetter
from typing import Any

import numpy as np
import pyarrow as pa

from aclog.records.build import (
    ACL_CODE_TABLES,
    FROM_AVRO,
    acls_from_columns,
    remove_acls_from_ids,
)
from aclog.records.codec import DecodedKind
from aclog.records.columnar import KindColumns, Offsets, column_name, decode_kinds
from aclog.records.schemas import CURRENT_VERSIONS, raw_schema
from aclog.records.types import ACL_KEY_FIELDS, Record, RecordType
from aclog.records.vector import numpy_numbers

_NUMBERS = (pa.int32(), pa.int64())
_TYPES = {int(member): member for member in RecordType}
_SIXTEEN_BYTES = re.compile(b".{16}", re.DOTALL)
_ACL_COLUMNS = ACL_KEY_FIELDS
"""The columns of an ACL addition after its id, in :func:`acls_from_columns` order."""


def decode_records(
    values: Sequence[bytes], offsets: Offsets = None
) -> tuple[list[Record], list[DecodedKind]]:
    """The records of ``values`` (framed record values) and the (type, version) each was
    written with, in order: ``decode_framed`` of each value, at C speed for ACL records.

    ``offsets`` say where the values sit in the log (see :data:`~aclog.records.columnar.
    Offsets`); they only improve error messages. Raises
    :class:`~aclog.records.codec.RecordDecodeError` naming the first bad value's offset.

    >>> from aclog.records import NoOpRecord, encode
    >>> decode_records([encode(NoOpRecord())], 5)
    ([NoOpRecord()], [(<RecordType.NO_OP: 20>, 0)])
    """
    kinds = decode_kinds(values, offsets, secrets=True)
    if not kinds:
        return [], []
    if len(kinds) == 1:  # the common batch: one kind throughout
        only = kinds[0]
        written = _kind_of(only.record_type << 8 | only.version)
        return _records_of_kind(only), [written] * len(only.rows)
    built = [_records_of_kind(kind) for kind in kinds]
    rows = np.concatenate([kind.rows for kind in kinds])
    # Every kind's records, then put in row order by one C-level gather (no call per record).
    order = itemgetter(*np.argsort(rows, kind="stable").tolist())
    records: list[Record] = list(order(list(chain.from_iterable(built))))
    keys = np.empty(len(rows), dtype=np.int64)
    for kind in kinds:
        keys[kind.rows] = kind.record_type << 8 | kind.version
    return records, list(map(_kind_of, keys.tolist()))


@cache
def _kind_of(key: int) -> DecodedKind:
    """The (type, version) of ``type_code << 8 | version``, one tuple per kind."""
    return _TYPES[key >> 8], key & 0xFF


def _records_of_kind(kind: KindColumns) -> list[Record]:
    """The records of one kind of a decoded batch, in its row order."""
    record_type, columns = _TYPES[kind.record_type], kind.columns
    if record_type == RecordType.ACCESS_CONTROL_ENTRY:
        fields = [
            code_members(numpy_numbers(columns[name]), name)
            if name in _MEMBERS
            else _values(columns[name])
            for name in _ACL_COLUMNS
        ]
        return acls_from_columns(_id_bytes(columns["id"]), *fields, converted=True)
    if record_type == RecordType.REMOVE_ACCESS_CONTROL_ENTRY:
        return remove_acls_from_ids(_id_bytes(columns["id"]))
    build = FROM_AVRO[record_type]
    names, where = _field_columns(record_type)
    count = len(kind.rows)
    lists = [_values(columns[c]) if c in columns else [None] * count for c in where]
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
    """The 16 bytes of each id of a ``fixed_size_binary[16]`` column without nulls (the
    decoder never gives one for a record that has the field), cut by one regex call."""
    if column.null_count:
        raise ValueError("an ACL id column holds nulls")  # a bug in the decoder, never input
    start = column.offset * 16
    data = memoryview(column.buffers()[1])[start : start + 16 * len(column)]
    found: list[bytes] = _SIXTEEN_BYTES.findall(data)
    return found
