"""Runs of ACL values taken apart a field at a time decode as fastavro decodes them one by one:
the same records, the same raw fields, and for damaged values the same first error."""

from __future__ import annotations

import io
import uuid

from fastavro import schemaless_writer
from hypothesis import given
from hypothesis import strategies as st

from aclog.records import RecordDecodeError, RecordType, decode_framed
from aclog.records.build import ACL_CODE_CONVERTERS, acls_from_columns
from aclog.records.bulk import MIN_GROUP, decode_values
from aclog.records.codec import frame_of
from aclog.records.columns import acl_columns, code_table, remove_acl_ids
from aclog.records.schemas import parsed_schema

ACL = RecordType.ACCESS_CONTROL_ENTRY
# Short and long (past the one-byte length) text, ASCII or not; codes known, unknown, negative,
# and past one varint byte.
_text = st.one_of(st.text(max_size=10), st.text(min_size=30, max_size=70))
_code = st.one_of(st.integers(0, 15), st.integers(-70, 200))
_fields = st.fixed_dictionaries(
    {
        "id": st.binary(min_size=16, max_size=16),
        "resource_type": _code,
        "resource_name": _text,
        "pattern_type": _code,
        "principal": _text,
        "host": _text,
        "operation": _code,
        "permission_type": _code,
    }
)


def _value(fields: dict[str, object]) -> bytes:
    out = io.BytesIO(frame_of(ACL, 0))
    out.seek(3)
    schemaless_writer(out, parsed_schema(ACL, 0), fields)
    return out.getvalue()


def _damage(value: bytes, how: int, where: int) -> bytes:
    if not value:  # an earlier damage cut it to nothing: nothing left to damage
        return value
    where %= len(value)
    if how == 0:
        return value + value[where:]  # bytes left over
    if how == 1:
        return value[:where]  # cut short
    return value[:where] + bytes((value[where] ^ 0x81,)) + value[where + 1 :]  # a flipped byte


def _outcome(decode, values: list[bytes]) -> object:  # type: ignore[no-untyped-def]
    try:
        return decode(values)
    except RecordDecodeError as error:
        return str(error)


def _one_by_one(values: list[bytes]) -> tuple[list[object], list[object]]:
    decoded = [decode_framed(value, 40 + i) for i, value in enumerate(values)]
    return [d.record for d in decoded], [d.kind for d in decoded]


@given(
    st.lists(_fields, min_size=MIN_GROUP, max_size=3 * MIN_GROUP),
    st.lists(
        st.tuples(st.integers(0, 1 << 16), st.integers(0, 2), st.integers(0, 200)), max_size=2
    ),
)
def test_runs_decode_as_one_by_one(fields: list[dict[str, object]], damage) -> None:  # type: ignore[no-untyped-def]
    values = [_value(f) for f in fields]
    for index, how, where in damage:
        values[index % len(values)] = _damage(values[index % len(values)], how, where)
    assert _outcome(lambda v: decode_values(v, 40), values) == _outcome(_one_by_one, values)


def test_short_text_and_small_codes_are_taken_apart() -> None:
    """The common ACL is decoded by the column path (not handed back to fastavro)."""
    fields = {
        "id": uuid.UUID(int=7).bytes,
        "resource_type": 2,
        "resource_name": "t0001.orders-é",
        "pattern_type": 3,
        "principal": "User:svc-1",
        "host": "*",
        "operation": 3,
        "permission_type": 3,
    }
    columns = acl_columns([_value(fields)] * 2)
    assert columns is not None
    assert [column[0] for column in columns] == list(fields.values())


def test_values_not_in_the_one_byte_form_are_handed_back() -> None:
    base = {
        "id": bytes(16),
        "resource_type": 2,
        "resource_name": "x",
        "pattern_type": 3,
        "principal": "User:a",
        "host": "*",
        "operation": 3,
        "permission_type": 3,
    }
    for change in ({"resource_name": "n" * 64}, {"operation": 64}, {"host": "\xff" * 40}):
        assert acl_columns([_value({**base, **change})]) is None
    good = _value(base)
    for broken in (good + b"\x00", good[:-1], good[:20] + b"\x81" + good[21:]):
        assert acl_columns([good, broken]) is None
    assert remove_acl_ids([b"\x01\x13\x00" + bytes(16), b"\x01\x13\x00" + bytes(15)]) is None


@given(st.lists(_fields, min_size=1, max_size=8))
def test_code_tables_give_what_the_builders_map_codes_to(fields: list[dict[str, object]]) -> None:
    """Codes mapped by the decode's own pass (enum members, UNKNOWN for codes without one)
    equal the raw codes mapped afterwards, and the records built from them are the same."""
    values = [_value(f) for f in fields]
    raw = acl_columns(values)
    converted = acl_columns(values, tuple(map(code_table, ACL_CODE_CONVERTERS)))
    if raw is None:
        assert converted is None
        return
    assert converted is not None
    code_columns = (1, 3, 6, 7)
    for column, convert in zip(code_columns, ACL_CODE_CONVERTERS, strict=True):
        assert converted[column] == list(map(convert, raw[column]))
        assert all(type(c) is type(convert(0)) for c in converted[column])
    assert acls_from_columns(*converted, converted=True) == acls_from_columns(*raw)
