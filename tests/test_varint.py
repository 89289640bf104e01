"""The one varint encoder: Kafka's and Avro's encodings of the same numbers."""

from __future__ import annotations

import io

from fastavro import schemaless_reader
from hypothesis import given
from hypothesis import strategies as st
from kafka.record.util import decode_varint, encode_varint

from aclog.varint import uvarint, zigzag

LONGS = st.integers(min_value=-(2**63), max_value=2**63 - 1)


@given(LONGS)
def test_zigzag_is_kafkas_varint(value: int) -> None:
    out = bytearray()
    encode_varint(value, out.append)
    assert zigzag(value) == bytes(out)
    assert decode_varint(zigzag(value), 0) == (value, len(out))


@given(LONGS)
def test_zigzag_is_avros_long(value: int) -> None:
    assert schemaless_reader(io.BytesIO(zigzag(value)), "long") == value


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_uvarint_is_seven_bits_a_byte_low_first(value: int) -> None:
    encoded = uvarint(value)
    assert all(b & 0x80 for b in encoded[:-1]) and not encoded[-1] & 0x80
    assert sum((b & 0x7F) << (7 * i) for i, b in enumerate(encoded)) == value
