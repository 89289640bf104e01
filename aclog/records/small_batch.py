"""Small batches decoded record by record: the batch decoder's path for a log written one
command at a time.

The columnar decoder (:mod:`aclog.records.columnar`) pays a fixed cost per batch, a few dozen numpy
and Arrow calls, whatever the batch holds; fastavro's cost is per record. A real cluster's ACL log
is nearly all batches of one request each (every ``kafka-acls --add`` is one batch: a request
context and a few ACLs), where that fixed cost was most of the cost of reading the log. So a batch
of fewer than :data:`SMALL_BATCH` values is decoded value by value through the codec (the columnar
decoder's own reference, :func:`checked_fields`) into
:meth:`~aclog.records.decoded.DecodedRecords.of_records`: the same records, kinds and errors as the
columnar decoder gives (``tests/records/test_small_batch.py`` holds the two together), and no
columns (replay takes its records). A replay that wants no batch on its own joins consecutive small
batches into runs and decodes each run as columns instead (:mod:`aclog.replay.runs`); this path is
for a small batch read on its own (``dump``, a listener that hears of each batch, a small batch
between large ones).

Thread-safe (no shared state). Cost: one fastavro call and one record per value.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from aclog.records.codec import DecodedKind, RecordDecodeError, decode_avro_fields, record_builder
from aclog.records.decoded import DecodedRecords
from aclog.records.schemas import CURRENT_VERSIONS, raw_schema
from aclog.records.types import Record, RecordType

if TYPE_CHECKING:  # the columnar decoder loads numpy and pyarrow: a small batch needs neither
    from aclog.records.column_layout import Offsets

SMALL_BATCH = 128
"""Batches of fewer values are decoded record by record; larger ones as columns. Session 14
measured (``benchmarks/probe_small_batch.py``, a request context and N-1 ACLs) record by record
at 0.05x the columnar decoder's time at 1-8 records; decoded to records the two crossed at
about 100 records, replayed onto a table at 40-50, when each small batch still paid a table
apply. A backlog's replay now queues small batches' ACL records and applies them together
(:mod:`aclog.image.acl_table_net`), and the columnar decoder's fixed cost grows with the kinds
a batch holds (a batch with SCRAM changes has four or five): decoded to records, record by
record stays ahead up to about 250 values of mixed kinds and 150 of ACLs alone
(run ``by-suite/smallreplay`` in ``benchmarks/results/history/``)."""


def decode_small(values: Sequence[bytes], offsets: Offsets = None) -> DecodedRecords:
    """The records of ``values`` decoded one by one, as
    :func:`~aclog.records.column_records.decode_batch_records` gives them (any number of
    values; it sends only batches below :data:`SMALL_BATCH` here). Raises the codec's
    :class:`~aclog.records.codec.RecordDecodeError` for the first bad value, naming its
    offset."""
    records: list[Record] = []
    kinds: list[DecodedKind] = []
    for index, value in enumerate(values):
        kind, fields = checked_fields(value, offset_of(offsets, index))
        records.append(record_builder(kind[0])(fields))
        kinds.append(kind)
    return DecodedRecords.of_records(records, kinds)


def decode_batch_records(values: Sequence[bytes], offsets: Offsets = None) -> DecodedRecords:
    """The records of ``values`` a type at a time (:class:`~aclog.records.decoded.
    DecodedRecords`): what :func:`~aclog.records.column_records.decode_records` gives,
    before the row-order pass. Same errors. A batch of fewer than :data:`SMALL_BATCH` values
    is decoded record by record (:func:`decode_small`, no columns, no numpy or pyarrow
    loaded); a larger one by :func:`~aclog.records.column_records.decode_columnar_records`."""
    if len(values) < SMALL_BATCH:
        return decode_small(values, offsets)
    from aclog.records.column_records import decode_columnar_records  # noqa: PLC0415

    return decode_columnar_records(values, offsets)


def offset_of(offsets: Offsets, index: int) -> int | None:
    """Where the value at ``index`` of a batch sits in the log, if ``offsets`` say."""
    if offsets is None:
        return None
    if isinstance(offsets, int):
        return offsets + index
    return int(offsets[index])


def checked_fields(value: bytes, offset: int | None) -> tuple[DecodedKind, dict[str, Any]]:
    """:func:`~aclog.records.codec.decode_avro_fields` of one value, refused as the batch
    decoder refuses it (an ``int`` field past 32 bits): the reference path's one record,
    shared by the columnar decoder's fallback (:mod:`aclog.records.columnar`) and
    :func:`decode_small`, so both raise the same error at the same offset."""
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
