"""The one varint codec: Kafka's and Avro's encodings of the same numbers, and the reader."""

from __future__ import annotations

import io

import pytest
from fastavro import schemaless_reader
from hypothesis import given
from hypothesis import strategies as st
from kafka.record.util import decode_varint, encode_varint

from aclog.varint import read_uvarint, read_zigzag, skip_tagged_fields, uvarint, zigzag

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


@given(st.integers(min_value=0, max_value=2**35 - 1), st.binary(max_size=3))
def test_read_uvarint_reads_what_uvarint_writes(value: int, prefix: bytes) -> None:
    encoded = prefix + uvarint(value) + b"\xff"
    assert read_uvarint(encoded, len(prefix)) == (value, len(encoded) - 1)


@pytest.mark.parametrize(
    ("data", "error"),
    [(b"", IndexError), (b"\x80\x80", IndexError), (b"\x80\x80\x80\x80\x80\x00", ValueError)],
)
def test_read_uvarint_rejects_cut_short_and_over_5_bytes(
    data: bytes, error: type[Exception]
) -> None:
    with pytest.raises(error):
        read_uvarint(data, 0)


@given(LONGS, st.binary(max_size=4), st.binary(max_size=4))
def test_read_zigzag_reads_what_zigzag_writes(value: int, prefix: bytes, after: bytes) -> None:
    data = prefix + zigzag(value) + after
    assert read_zigzag(data, len(prefix)) == (value, len(data) - len(after))


def test_read_zigzag_rejects_cut_short_and_over_10_bytes() -> None:
    with pytest.raises(IndexError):
        read_zigzag(zigzag(2**40)[:-1], 0)
    with pytest.raises(ValueError, match="too long"):
        read_zigzag(b"\x80" * 10 + b"\x01", 0)
    assert read_zigzag(b"\x80" * 9 + b"\x01", 0) == (2**62, 10)  # ten bytes: the longest


def test_skip_tagged_fields_skips_every_tag_strictly() -> None:
    section = b"\x02" + b"\x07\x03abc" + b"\x09\x00"
    assert skip_tagged_fields(b"xx" + section + b"body", 2) == 2 + len(section)
    with pytest.raises(IndexError):
        skip_tagged_fields(b"\x01\x00\x05ab", 0)
