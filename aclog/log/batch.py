"""Kafka record batch v2: building one from record values and reading its header.

Uncompressed batches are built and parsed here, byte for byte as kafka-python's
``DefaultRecordBatchBuilder`` and ``DefaultRecordBatch`` do (property tests compare them);
compressed and control batches are read through kafka-python. The ``crc32c`` C extension makes
the CRC-32C cheap. Base offset and partition leader epoch sit before the CRC-covered region.

Thread-safe (pure functions). Cost: O(total value bytes) for build and for read.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

from crc32c import crc32c as calc_crc32c  # kafka-python's own choice, without importing kafka

from aclog.log.canonical import SMALL_VARINTS, canonical_values
from aclog.varint import zigzag

HEADER = struct.Struct(">qiibIhiqqqhii")
HEADER_SIZE = HEADER.size  # 61
LENGTH_PREFIX = 12  # base offset (8) + length (4): the bytes the length field does not count
CRC_START = 21  # attributes onward are covered by the CRC
MAGIC = 2
CONTROL_FLAG = 0x20


@dataclass(frozen=True, slots=True)
class BatchHeader:
    """The fixed 61-byte header of a v2 batch."""

    base_offset: int
    length: int
    epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    first_timestamp: int
    max_timestamp: int
    record_count: int

    @property
    def size(self) -> int:
        """Bytes the whole batch occupies in the file."""
        return self.length + LENGTH_PREFIX

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & CONTROL_FLAG)


def parse_header(data: bytes | bytearray | memoryview) -> BatchHeader:
    """Parse the header at the start of ``data`` (at least 61 bytes)."""
    f = HEADER.unpack_from(data)
    return BatchHeader(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[12])


def build_batch(
    values: Sequence[bytes], base_offset: int, epoch: int, timestamp_ms: int
) -> bytearray:
    """One uncompressed v2 batch holding ``values`` at ``base_offset``.. with ``epoch``.

    Like KRaft's batches: CreateTime, every record at ``timestamp_ms``, null keys, no headers,
    producer id/epoch/sequence -1. The bytes are those kafka-python's
    ``DefaultRecordBatchBuilder`` writes (a property test compares them), built here because
    its per-record ``append`` checks and re-encodes more than these records need (about two
    thirds of an append's cost).
    """
    if not values:
        raise ValueError("a batch needs at least one record")
    parts: list[bytes] = []
    extend = parts.extend
    varint = _zigzag_varint
    for delta, value in enumerate(values):
        value_length = varint(len(value))
        offset_delta = varint(delta)
        # attributes 0, timestamp delta 0 | offset delta | key length -1 (null) | value | 0 headers
        body_length = len(offset_delta) + len(value_length) + len(value) + 4
        extend(
            (varint(body_length), b"\x00\x00", offset_delta, b"\x01", value_length, value, b"\x00")
        )
    records = b"".join(parts)
    count = len(values)
    buffer = bytearray(
        HEADER.pack(
            base_offset,
            HEADER_SIZE - LENGTH_PREFIX + len(records),
            epoch,
            MAGIC,
            0,  # the CRC, patched below
            0,  # attributes: no compression, CreateTime, not transactional, not control
            count - 1,
            timestamp_ms,
            timestamp_ms,
            -1,
            -1,
            -1,
            count,
        )
    )
    buffer += records
    struct.pack_into(">I", buffer, CRC_START - 4, calc_crc32c(memoryview(buffer)[CRC_START:]))
    return buffer


def _zigzag_varint(value: int) -> bytes:
    """Kafka's zigzag varint of a non-negative ``value``: the base-128 varint of ``2 * value``."""
    if value < len(SMALL_VARINTS):
        return SMALL_VARINTS[value]
    return zigzag(value)


def crc_ok(batch: bytes | bytearray | memoryview) -> bool:
    """True when the stored CRC-32C matches the batch's bytes from the attributes on."""
    (stored,) = struct.unpack_from(">I", batch, 17)
    return bool(stored == calc_crc32c(memoryview(batch)[CRC_START:]))


def record_values(batch: bytes) -> list[bytes]:
    """The record values of an uncompressed batch whose CRC was checked, in offset order.

    kafka-python's ``DefaultRecordBatch`` builds a record object per record (it cost more than
    the Avro decode that follows), so uncompressed batches take this parser of
    the same v2 record layout (after :mod:`aclog.log.canonical`'s fast path, which takes the
    batches this log writes); compressed and control batches go through kafka-python. The
    property tests check all three give the same values. Raises ``ValueError`` when the records do
    not parse or an offset delta is out of order.
    """
    if batch[22] & 0x27:  # compression bits or the control flag (attributes' low byte)
        return _values_via_kafka_python(batch)
    count = HEADER.unpack_from(batch)[12]
    values = canonical_values(batch, HEADER_SIZE, count)  # build_batch's layout, at C speed
    if values is not None:
        return values
    try:
        values, end = _parse_values(batch, count)
    except IndexError:
        raise ValueError("records do not parse: the batch ends inside a record") from None
    if end != len(batch):
        raise ValueError(f"records do not parse: {len(batch) - end} bytes after the last record")
    return values


def _parse_values(buf: bytes, count: int) -> tuple[list[bytes], int]:
    values: list[bytes] = []
    append = values.append
    pos = HEADER_SIZE
    varint = _varint
    for expected_delta in range(count):
        # Most varints here take one byte, read inline: a call per field would cost more
        # than the rest of the parse (zigzag: (b >> 1) ^ -(b & 1)).
        byte = buf[pos]
        if byte < 0x80:
            length, pos = (byte >> 1) ^ -(byte & 1), pos + 1
        else:
            length, pos = varint(buf, pos)
        end = pos + length
        if buf[pos + 1] == 0:  # attributes, then a timestamp delta of 0
            pos += 2
        else:
            _, pos = varint(buf, pos + 1)
        offset_delta, pos = varint(buf, pos)
        if offset_delta != expected_delta:
            raise ValueError(f"records do not parse: offset delta {offset_delta} out of order")
        if buf[pos] == 1:  # key length -1: a null key
            pos += 1
        else:
            key_length, pos = varint(buf, pos)
            pos += max(key_length, 0)
        byte = buf[pos]
        if byte < 0x80:
            value_length, pos = (byte >> 1) ^ -(byte & 1), pos + 1
        else:
            value_length, pos = varint(buf, pos)
        if value_length < 0:
            raise ValueError("records do not parse: a record has a null value")
        append(buf[pos : pos + value_length])
        pos += value_length
        if buf[pos] == 0:  # no headers
            pos += 1
        else:
            pos = _skip_headers(buf, pos)
        if pos != end:
            raise ValueError("records do not parse: a record's length does not fit its fields")
    return values, pos


def _skip_headers(buf: bytes, pos: int) -> int:
    headers, pos = _varint(buf, pos)
    if headers < 0:  # Kafka refuses it too; a huge count ends at the batch's end (IndexError)
        raise ValueError(f"records do not parse: a record has {headers} headers")
    for _ in range(headers):
        pos = _skip_header(buf, pos)
    return pos


def _skip_header(buf: bytes, pos: int) -> int:
    key_length, pos = _varint(buf, pos)
    if key_length < 0:  # a negative length would walk back and loop over the same bytes
        raise ValueError("records do not parse: a header key has a negative length")
    pos += key_length
    value_length, pos = _varint(buf, pos)
    return pos + max(value_length, 0)


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    """A zigzag-encoded signed varint (Kafka's ``ByteUtils.readVarint``)."""
    byte = buf[pos]
    if byte < 0x80:
        return (byte >> 1) ^ -(byte & 1), pos + 1
    value = byte & 0x7F
    shift = 7
    while True:
        pos += 1
        byte = buf[pos]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return (value >> 1) ^ -(value & 1), pos + 1
        shift += 7
        if shift > 63:
            raise ValueError("records do not parse: a varint is too long")


def _values_via_kafka_python(batch: bytes) -> list[bytes]:
    # imported here: kafka-python's package init loads its admin client (a start-up cost: the
    # ``cli`` suite's start-up rows), which a log of uncompressed batches never needs
    from kafka.record.default_records import DefaultRecordBatch  # noqa: PLC0415

    reader = DefaultRecordBatch(batch)
    try:
        values = [record.value for record in reader]
    except Exception as err:  # kafka-python raises CorruptRecordError and friends
        raise ValueError(f"records do not parse: {err}") from None
    if any(v is None for v in values):
        raise ValueError("records do not parse: a record has a null value")
    return values
