"""Record objects from the columnar decoder's batch: how many framed values become records.

:func:`decode_records` is the batch decoder of everything that needs record objects (replay,
``dump``, ``explain``, the tools): the values go through :func:`~aclog.records.columnar.
decode_columns` (numpy passes, secrets included: replay needs SCRAM keys), and the records
are built from the Arrow columns a type at a time. ACL additions and removals, nearly every
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
from itertools import repeat
from operator import setitem
from typing import Any

import numpy as np
import pyarrow as pa

from aclog.records.build import FROM_AVRO, acls_from_columns, consume, remove_acls_from_ids
from aclog.records.codec import DecodedKind
from aclog.records.columnar import TYPE_CODE, VERSION, Offsets, column_name, decode_columns
from aclog.records.schemas import CURRENT_VERSIONS, raw_schema
from aclog.records.types import Record, RecordType
from aclog.records.vector import arrow_numbers, numpy_numbers

_NUMBERS = (pa.int32(), pa.int64())
_TYPES = {int(member): member for member in RecordType}
_SIXTEEN_BYTES = re.compile(b".{16}", re.DOTALL)
_ACL_COLUMNS = (
    "resource_type",
    "resource_name",
    "pattern_type",
    "principal",
    "host",
    "operation",
    "permission_type",
)
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
    if not values:
        return [], []
    return records_of_columns(decode_columns(values, offsets, secrets=True))


def records_of_columns(batch: pa.RecordBatch) -> tuple[list[Record], list[DecodedKind]]:
    """The records held by ``batch`` (of :func:`~aclog.records.columnar.columns_schema` with
    secrets: a batch without them cannot give SCRAM credentials) and their (type, version)."""
    codes = numpy_numbers(batch.column(TYPE_CODE))
    versions = numpy_numbers(batch.column(VERSION))
    count = len(codes)
    if not count:
        return [], []
    first = int(codes[0])
    if bool((codes == first).all()):  # the common batch: one type throughout
        records = _records_of_type(_TYPES[first], batch)
        if bool((versions == versions[0]).all()):
            return records, [_kind_of(first << 8 | int(versions[0]))] * count
        return records, [_kind_of(first << 8 | version) for version in versions.tolist()]
    out: list[Any] = [None] * count
    for code in np.unique(codes).tolist():
        rows = np.flatnonzero(codes == code)
        start, stop = int(rows[0]), int(rows[-1]) + 1
        if stop - start == len(rows):  # one run (a context record, then the ACLs): no copy
            out[start:stop] = _records_of_type(_TYPES[code], batch.slice(start, stop - start))
            continue
        part = _records_of_type(_TYPES[code], batch.take(arrow_numbers(rows)))
        # operator.setitem is a C function: no Python frame per record.
        consume(map(setitem, repeat(out), rows.tolist(), part))
    keys = (codes.astype(np.int64) << 8) | versions.astype(np.int64)
    return out, list(map(_kind_of, keys.tolist()))


@cache
def _kind_of(key: int) -> DecodedKind:
    """The (type, version) of ``type_code << 8 | version``, one tuple per kind."""
    return _TYPES[key >> 8], key & 0xFF


def _records_of_type(record_type: RecordType, batch: pa.RecordBatch) -> list[Record]:
    """The records of ``batch``, every row of ``record_type``."""
    if record_type == RecordType.ACCESS_CONTROL_ENTRY:
        fields = [_values(batch.column(name)) for name in _ACL_COLUMNS]
        return acls_from_columns(_id_bytes(batch.column("id")), *fields)
    if record_type == RecordType.REMOVE_ACCESS_CONTROL_ENTRY:
        return remove_acls_from_ids(_id_bytes(batch.column("id")))
    build = FROM_AVRO[record_type]
    names, columns = _field_columns(record_type)
    lists = [_values(batch.column(column)) for column in columns]
    rows = zip(*lists, strict=True) if lists else repeat((), batch.num_rows)  # NoOp: no field
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


def _id_bytes(column: pa.Array) -> list[bytes]:
    """The 16 bytes of each id of a ``fixed_size_binary[16]`` column without nulls (the
    decoder never gives one for a record that has the field), cut by one regex call."""
    if column.null_count:
        raise ValueError("an ACL id column holds nulls")  # a bug in the decoder, never input
    start = column.offset * 16
    data = memoryview(column.buffers()[1])[start : start + 16 * len(column)]
    found: list[bytes] = _SIXTEEN_BYTES.findall(data)
    return found
