"""The batch decoder's entry (:func:`decode_batch_records`, :func:`decode_records`), and small
batches decoded record by record: its path for a log written one command at a time.

The columnar decoder (:mod:`aclog.records.columnar`) pays a fixed cost per batch, a few dozen numpy
and Arrow calls, whatever the batch holds; fastavro's cost is per record. A real cluster's ACL log
is nearly all batches of one request each (every ``kafka-acls --add`` is one batch: a request
context and a few ACLs), where that fixed cost was most of the cost of reading the log. So a batch
of fewer than :data:`SMALL_BATCH` values is decoded value by value through the codec (the columnar
decoder's own reference, :func:`~aclog.records.checked.checked_fields`) into
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
from typing import TYPE_CHECKING

from aclog.records.checked import checked_fields, offset_of
from aclog.records.codec import DecodedKind, record_builder
from aclog.records.decoded import DecodedRecords
from aclog.records.types import Record

if TYPE_CHECKING:  # the columnar decoder loads numpy and pyarrow: a small batch needs neither
    from aclog.records.column_layout import Offsets

SMALL_BATCH = 128
"""Batches of fewer values are decoded record by record; larger ones as columns. Record by
record costs O(1) fastavro calls per value, the columnar decoder a fixed cost per batch and
per kind plus numpy passes (``benchmarks/probe_small_batch.py`` times the two, a request
context and N-1 ACLs). A backlog's replay queues small batches' ACL records and applies them
together (:mod:`aclog.image.acl_table_net`), and the columnar decoder's fixed cost grows with
the kinds a batch holds (a batch with SCRAM changes has four or five); the two cross above
this size (run ``by-suite/smallreplay`` in ``benchmarks/results/history/``)."""


def decode_small(values: Sequence[bytes], offsets: Offsets = None) -> DecodedRecords:
    """The records of ``values`` decoded one by one, as :func:`decode_batch_records` gives
    them (any number of values; it sends only batches below :data:`SMALL_BATCH` here).
    Raises the codec's :class:`~aclog.records.codec.RecordDecodeError` for the first bad
    value, naming its offset."""
    records: list[Record] = []
    kinds: list[DecodedKind] = []
    for index, value in enumerate(values):
        kind, fields = checked_fields(value, offset_of(offsets, index))
        records.append(record_builder(kind[0])(fields))
        kinds.append(kind)
    return DecodedRecords.of_records(records, kinds)


def decode_batch_records(values: Sequence[bytes], offsets: Offsets = None) -> DecodedRecords:
    """The records of ``values`` a type at a time (:class:`~aclog.records.decoded.
    DecodedRecords`): what :func:`decode_records` gives,
    before the row-order pass. Same errors. A batch of fewer than :data:`SMALL_BATCH` values
    is decoded record by record (:func:`decode_small`, no columns, no numpy or pyarrow
    loaded); a larger one by :func:`~aclog.records.column_records.decode_columnar_records`."""
    if len(values) < SMALL_BATCH:
        return decode_small(values, offsets)
    from aclog.records.column_records import decode_columnar_records  # noqa: PLC0415

    return decode_columnar_records(values, offsets)


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
    decoded = decode_batch_records(values, offsets)
    return decoded.records, decoded.kinds()
