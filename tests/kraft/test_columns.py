"""The batch decoder of KRaft values against the per-record codec: every record type and
version aclog reads, random valid values, mixed batches, and damaged bytes (the same error, at
the same record's offset)."""

from __future__ import annotations

import dataclasses
import struct
import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.kraft import KraftFormatError, decode_metadata_value
from aclog.kraft.columns import decode_metadata_values
from aclog.kraft.encoding import compact_bytes, compact_string, frame
from aclog.records import AccessControlEntryRecord, RemoveAccessControlEntryRecord
from aclog.varint import uvarint
from tests.kraft.fakes import other_record

FIRST = 1000
int8 = st.integers(-128, 127)
short = st.text(max_size=8)
text = st.one_of(short, short, short, short, short, st.text(min_size=60, max_size=140))
"""Mostly strings whose length fits one varint byte (the batch path); some longer ones (the
codec's path)."""
raw = st.binary(max_size=70)


@st.composite
def tags(draw: Any) -> bytes:
    """Usually the empty tag section; sometimes unknown tags Kafka may add (skipped)."""
    fields = draw(st.lists(st.tuples(st.integers(0, 300), st.binary(max_size=4)), max_size=2))
    if not fields or draw(st.booleans()):
        return b"\x00"
    return uvarint(len(fields)) + b"".join(uvarint(t) + uvarint(len(d)) + d for t, d in fields)


def _i8(value: int) -> bytes:
    return struct.pack(">b", value)


@st.composite
def acl(draw: Any) -> bytes:
    body = draw(st.binary(min_size=16, max_size=16)) + _i8(draw(int8))
    body += compact_string(draw(text)) + _i8(draw(int8))
    body += compact_string(draw(text)) + compact_string(draw(text))
    return frame(18) + body + _i8(draw(int8)) + _i8(draw(int8)) + draw(tags())


@st.composite
def remove_acl(draw: Any) -> bytes:
    return frame(19) + draw(st.binary(min_size=16, max_size=16)) + draw(tags())


@st.composite
def scram(draw: Any) -> bytes:
    body = compact_string(draw(text)) + _i8(draw(int8))
    body += compact_bytes(draw(raw)) + compact_bytes(draw(raw)) + compact_bytes(draw(raw))
    return (
        frame(11) + body + struct.pack(">i", draw(st.integers(-(2**31), 2**31 - 1))) + draw(tags())
    )


@st.composite
def remove_scram(draw: Any) -> bytes:
    return frame(22) + compact_string(draw(text)) + _i8(draw(int8)) + draw(tags())


unusual = st.one_of(
    st.builds(other_record, st.sampled_from([0, 2, 3, 12, 17, 21, 99]), st.binary(max_size=6)),
    st.just(frame(20) + b"\x00"),  # NoOpRecord
    st.just(frame(20, 3) + b"\x05\x05"),  # a newer NoOpRecord
    st.builds(lambda key: frame(key, 1) + b"\x00", st.sampled_from([11, 18, 19, 22])),
)
one = st.one_of(acl(), remove_acl(), scram(), remove_scram())
batches = st.one_of(
    st.lists(acl(), min_size=1, max_size=20),  # the common case: one type per batch
    st.lists(st.one_of(one, unusual), min_size=1, max_size=20),
)


def _typed(records: list[Any]) -> list[Any]:
    """Each record as its type and its fields' types and values: the enums are ``IntEnum``s,
    so a code read into the wrong enum would still compare equal."""
    return [
        (type(r), [(type(v), v) for v in (astuple_shallow(r) if r is not None else ())])
        for r in records
    ]


def astuple_shallow(record: Any) -> list[Any]:
    return [getattr(record, f.name) for f in dataclasses.fields(record)]


def _reference(values: list[bytes | None]) -> Any:
    try:
        decoded = [
            decode_metadata_value(v, path="p.log", offset=FIRST + i) for i, v in enumerate(values)
        ]
    except KraftFormatError as error:
        return ("error", str(error), error.offset)
    return [d.api_key for d in decoded], _typed([d.record for d in decoded])


def _columnar(values: list[bytes | None]) -> Any:
    try:
        api_keys, records = decode_metadata_values(values, path="p.log", first_offset=FIRST)
    except KraftFormatError as error:
        return ("error", str(error), error.offset)
    return api_keys, _typed(records)


@settings(max_examples=300)
@given(batches)
def test_valid_batches_decode_as_the_codec_does(values: list[bytes]) -> None:
    expected = _reference(list(values))
    assert expected[0] != "error" or "version 1" in expected[1]
    assert _columnar(list(values)) == expected


def _damage(value: bytes, how: int, where: int) -> bytes:
    at = where % max(len(value), 1)
    if how == 0:
        return value[:at]  # cut short
    if how == 1:
        return value + b"\x07"  # a byte left over
    if how == 2:
        return value[:at] + bytes([value[at] ^ 0x80]) + value[at + 1 :]  # a varint made long
    if how == 3:
        return value[:at] + b"\x00" + value[at + 1 :]  # a null string / empty length
    return value[:at] + b"\xff\xfe" + value[at + 2 :]  # not UTF-8, a huge length


@settings(max_examples=300)
@given(
    st.one_of(
        *(st.lists(kind, min_size=1, max_size=12) for kind in (acl(), remove_acl(), scram())),
        st.lists(remove_scram(), min_size=1, max_size=12),
        st.lists(st.one_of(one, unusual), min_size=1, max_size=12),
    ),
    st.data(),
)
def test_damaged_bytes_fail_as_the_codec_does_at_the_same_offset(
    values: list[bytes], data: st.DataObject
) -> None:
    damaged: list[bytes | None] = list(values)
    for _ in range(data.draw(st.integers(1, 2))):
        index = data.draw(st.integers(0, len(values) - 1))
        how, where = data.draw(st.integers(0, 4)), data.draw(st.integers(3, 200))
        damaged[index] = _damage(values[index], how, where)
    assert _columnar(damaged) == _reference(damaged)


def test_a_null_value_fails_at_its_own_offset() -> None:
    values: list[bytes | None] = [frame(19) + bytes(16) + b"\x00", None]
    with pytest.raises(KraftFormatError, match="null value") as info:
        decode_metadata_values(values, first_offset=7)
    assert info.value.offset == 8


def test_the_first_bad_record_in_offset_order_is_named() -> None:
    good_acl = frame(19) + uuid.UUID(int=3).bytes + b"\x00"
    bad_acl = frame(19) + bytes(15)  # one byte short
    bad_scram = frame(22) + compact_string("x")  # no mechanism
    values: list[bytes | None] = [good_acl, bad_scram, bad_acl]
    with pytest.raises(KraftFormatError) as info:
        decode_metadata_values(values, first_offset=0)
    assert info.value.offset == 1
    decoded = decode_metadata_values([good_acl, good_acl])[1]
    assert decoded == [RemoveAccessControlEntryRecord(uuid.UUID(int=3))] * 2
    assert not isinstance(decoded[0], AccessControlEntryRecord)


def test_values_that_are_not_bytes_take_the_codec() -> None:
    value = frame(19) + uuid.UUID(int=9).bytes + b"\x00"
    api_keys, records = decode_metadata_values([bytearray(value), value])
    assert api_keys == [19, 19]
    assert records == [RemoveAccessControlEntryRecord(uuid.UUID(int=9))] * 2
