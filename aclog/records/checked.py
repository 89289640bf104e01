"""One framed value decoded and checked as the batch decoder refuses it: the reference path's
one record, shared by the record-by-record decoder (:mod:`aclog.records.small_batch`) and the
columnar decoder's fallback (:mod:`aclog.records.columnar`), so both raise the same error at the
same offset.

Thread-safe (the only state is a per-type cache of schema field names). Cost: one fastavro call
per value.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from aclog.records.codec import DecodedKind, RecordDecodeError, decode_avro_fields
from aclog.records.schemas import CURRENT_VERSIONS, raw_schema
from aclog.records.types import RecordType

if TYPE_CHECKING:  # the column layout loads pyarrow: one value needs none
    from aclog.records.column_layout import Offsets


def offset_of(offsets: Offsets, index: int) -> int | None:
    """Where the value at ``index`` of a batch sits in the log, if ``offsets`` say."""
    if offsets is None:
        return None
    if isinstance(offsets, int):
        return offsets + index
    return int(offsets[index])


def checked_fields(value: bytes, offset: int | None) -> tuple[DecodedKind, dict[str, Any]]:
    """:func:`~aclog.records.codec.decode_avro_fields` of one value, refused as the batch
    decoder refuses it (an ``int`` field past 32 bits)."""
    kind, fields = decode_avro_fields(value, offset)
    _check_ints(kind, fields, offset)
    return kind, fields


def _check_ints(kind: tuple[int, int], fields: dict[str, Any], offset: int | None) -> None:
    """Avro's ``int`` is 32 bits; fastavro reads a longer varint there without complaint, but
    no column (and no Kafka field) holds it: the record is corrupt."""
    for name in _int_fields(kind[0]):  # an int's key is its RecordType's: no enum call
        value = fields.get(name)
        if isinstance(value, int) and not -(1 << 31) <= value < 1 << 31:
            record_type, version = RecordType(kind[0]), kind[1]
            where = "record" if offset is None else f"record at offset {offset}"
            raise RecordDecodeError(
                f"{where}: field {name} of {record_type.name} version {version} holds "
                f"{value}, outside an Avro int (32 bits); the record is corrupt"
            )


@cache
def _int_fields(record_type: int) -> tuple[str, ...]:
    """The ``int`` fields of today's schema of ``record_type`` (cached per code)."""
    code = RecordType(record_type)
    fields = raw_schema(code, CURRENT_VERSIONS[code])["fields"]
    return tuple(field["name"] for field in fields if field["type"] == "int")
