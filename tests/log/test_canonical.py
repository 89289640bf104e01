"""The fast path for batches in this log's own layout: it takes every batch the log writes,
and whatever it is given, the values it returns are the general parser's, and what it refuses
the general parser decides."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.log.batch import HEADER_SIZE, _parse_values, build_batch, record_values
from aclog.log.canonical import MAX_RECORDS, canonical_values
from aclog.log.canonical_vector import vector_values
from tests.log.test_log import _reference_values

# Value sizes around the varint boundaries of the value and record lengths (63/64 bytes).
_values = st.lists(
    st.one_of(st.binary(max_size=80), st.binary(min_size=120, max_size=140)),
    min_size=1,
    max_size=80,
)


@settings(max_examples=200, deadline=None)
@given(_values, st.integers(min_value=0, max_value=1 << 40))
def test_the_batches_this_log_writes_take_the_fast_path(values: list[bytes], base: int) -> None:
    batch = bytes(build_batch(values, base, 3, 1_700_000_000_000))
    assert canonical_values(batch, HEADER_SIZE, len(values)) == values
    assert record_values(batch) == values


@pytest.mark.parametrize(
    "values",
    [
        [b"v"] * 8200,  # offset deltas from 8192 on take three varint bytes
        [b"x" * 63, b"y" * 64, b"z" * 8000, b"w" * 8200],  # lengths past the ready-made varints
    ],
)
def test_large_batches_give_the_general_parsers_values(values: list[bytes]) -> None:
    batch = bytes(build_batch(values, 0, 1, 0))
    assert record_values(batch) == _parse_values(batch, len(values))[0] == values


def test_more_records_than_the_tables_hold_take_the_general_parser() -> None:
    values = [b""] * (MAX_RECORDS + 1)
    batch = bytes(build_batch(values, 0, 1, 0))
    assert canonical_values(batch, HEADER_SIZE, len(values)) is None
    assert record_values(batch) == values


@settings(max_examples=400, deadline=None)
@given(
    values=_values,
    damage=st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), max_size=3),
    cut=st.integers(min_value=-3, max_value=3),
    count_error=st.sampled_from([0, 0, 0, -1, 1]),
)
def test_damaged_batches_are_refused_exactly_when_the_plain_parser_refuses_them(
    values: list[bytes], damage: list[tuple[int, int]], cut: int, count_error: int
) -> None:
    """Bytes changed, the records cut short or extended, or a wrong record count (the CRC is
    not checked at this level): the same values or the same refusal as field by field."""
    batch = bytearray(build_batch(values, 0, 1, 0))
    for position, byte in damage:
        batch[HEADER_SIZE + position % (len(batch) - HEADER_SIZE)] = byte
    if cut < 0:
        del batch[cut:]
    else:
        batch += bytes(cut)
    count = len(values) + count_error
    data = bytes(batch)
    try:
        expected: list[bytes] | None = _reference_values(data, count)
    except (ValueError, IndexError):
        expected = None
    fast = canonical_values(data, HEADER_SIZE, count)
    assert fast is None or fast == expected
    if count_error == 0 and len(batch) >= HEADER_SIZE + 1:
        if expected is None:
            with pytest.raises(ValueError, match="records do not parse"):
                record_values(data)
        else:
            assert record_values(data) == expected


# Values as this log holds them: an Avro body after a small frame, text and small ints, with
# the odd zero byte (an id's bytes, an empty string), around the 63/64-byte varint boundaries.
_log_values = st.lists(
    st.one_of(
        st.binary(max_size=30).map(lambda b: b"\x01\x12\x00" + b + b"User:alice*topic" * 3),
        st.text("abc-_.:*", min_size=0, max_size=70).map(str.encode),
    ),
    min_size=1,
    max_size=120,
)


@settings(max_examples=300, deadline=None)
@given(_log_values, st.integers(min_value=0, max_value=1 << 40))
def test_the_vector_pass_gives_the_loops_values_or_declines(values: list[bytes], base: int) -> None:
    """The numpy pass finds the values this log writes (it may decline a batch whose values
    hold something like a record prefix: then the loop decides, as the tests above check)."""
    batch = bytes(build_batch(values, base, 3, 1_700_000_000_000))
    found = vector_values(batch, HEADER_SIZE, len(values))
    assert found is None or found == values
    if all(b"\x00\x00" not in value for value in values):
        assert found == values


@settings(max_examples=400, deadline=None)
@given(
    values=_log_values,
    damage=st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), max_size=3),
    count_error=st.sampled_from([0, 0, -1, 1]),
)
def test_the_vector_pass_refuses_what_the_plain_parser_refuses(
    values: list[bytes], damage: list[tuple[int, int]], count_error: int
) -> None:
    batch = bytearray(build_batch(values, 0, 1, 0))
    for position, byte in damage:
        batch[HEADER_SIZE + position % (len(batch) - HEADER_SIZE)] = byte
    data, count = bytes(batch), len(values) + count_error
    try:
        expected: list[bytes] | None = _reference_values(data, count)
    except (ValueError, IndexError):
        expected = None
    found = vector_values(data, HEADER_SIZE, count)
    assert found is None or found == expected
