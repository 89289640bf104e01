"""The columnar decoder gives what fastavro and the codec give: values, defaults and errors.

Records are generated from the checked-in ``.avsc`` files themselves (every type and version,
every field at random, enum codes unknown to this build included), written with fastavro behind
the codec's frame, and compared with fastavro's own read of the same bytes.
"""

from __future__ import annotations

import io
from typing import Any

import pyarrow as pa
import pytest
from fastavro import schemaless_reader, schemaless_writer
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.records import RecordDecodeError, RecordType, decode_framed
from aclog.records.codec import frame_of
from aclog.records.column_assembly import assemble
from aclog.records.columnar import (
    CONTEXT_PREFIX,
    TYPE_CODE,
    VERSION,
    _vectorised,
    columns_schema,
    decode_columns,
    decode_kinds,
)
from aclog.records.render import SECRET_FIELDS
from aclog.records.schemas import CURRENT_VERSIONS, known_versions, parsed_schema, raw_schema
from aclog.records.vector import NotColumnar
from aclog.varint import read_uvarint

KINDS = [(t, v) for t in RecordType for v in known_versions(t)]
INT = st.integers(-(2**31), 2**31 - 1)
LONG = st.integers(-(2**63), 2**63 - 1)
SMALL_LONG = st.integers(-(2**61), 2**61)  # a zigzag varint of nine bytes at most


def _field_values(avro_type: Any, long: st.SearchStrategy[int]) -> st.SearchStrategy[Any]:
    if isinstance(avro_type, dict):
        return st.binary(min_size=avro_type["size"], max_size=avro_type["size"])
    if isinstance(avro_type, list):
        return st.none() | st.text(max_size=80)
    return {
        "int": INT,
        "long": long,
        "string": st.text(max_size=80),
        "bytes": st.binary(max_size=70),
    }[avro_type]


def _records(
    kind: tuple[RecordType, int], long: st.SearchStrategy[int]
) -> st.SearchStrategy[bytes]:
    record_type, version = kind
    fields = raw_schema(record_type, version)["fields"]
    dicts = st.fixed_dictionaries({f["name"]: _field_values(f["type"], long) for f in fields})
    return dicts.map(lambda d: _frame_and_write(record_type, version, d))


def _frame_and_write(record_type: RecordType, version: int, fields: dict[str, Any]) -> bytes:
    out = io.BytesIO()
    out.write(frame_of(record_type, version))
    schemaless_writer(out, parsed_schema(record_type, version), fields)
    return out.getvalue()


def _any_values(long: st.SearchStrategy[int]) -> st.SearchStrategy[list[bytes]]:
    one_kind = st.sampled_from(KINDS).flatmap(lambda k: st.lists(_records(k, long), min_size=1))
    mixed = st.lists(st.sampled_from(KINDS).flatmap(lambda k: _records(k, long)), min_size=1)
    return st.one_of(one_kind, mixed)


def _fastavro_row(value: bytes) -> dict[str, Any]:
    """What the decoder must give for one value, read by fastavro with the writer's schema
    resolved to today's (the frame of these values is always three bytes long)."""
    record_type, version, start = _frame(value)
    writer = parsed_schema(record_type, version)
    current = CURRENT_VERSIONS[record_type]
    reader = None if version == current else parsed_schema(record_type, current)
    stream = io.BytesIO(value)
    stream.seek(start)
    fields = schemaless_reader(stream, writer, reader)
    row: dict[str, Any] = dict.fromkeys(columns_schema().names)
    row[TYPE_CODE], row[VERSION] = int(record_type), version
    prefix = CONTEXT_PREFIX if record_type == RecordType.REQUEST_CONTEXT else ""
    for name, field in fields.items():
        if name not in SECRET_FIELDS:
            row[prefix + name] = field
    return row


def _frame(value: bytes) -> tuple[RecordType, int, int]:
    _, pos = read_uvarint(value, 0)
    code, pos = read_uvarint(value, pos)
    version, pos = read_uvarint(value, pos)
    return RecordType(code), version, pos


@given(_any_values(LONG))
def test_every_type_and_version_decodes_as_fastavro_reads_it(values: list[bytes]) -> None:
    batch = decode_columns(values, 40)
    assert batch.schema == columns_schema()
    assert batch.to_pylist() == [_fastavro_row(value) for value in values]


@given(_any_values(SMALL_LONG))
def test_valid_records_take_the_vectorised_path(values: list[bytes]) -> None:
    # No fallback: the passes themselves read every valid record whose longs fit nine bytes.
    batch = assemble(len(values), _vectorised(values, False), False)
    assert batch.to_pylist() == [_fastavro_row(v) for v in values]


@given(_any_values(LONG))
def test_kinds_are_the_batch_taken_apart(values: list[bytes]) -> None:
    """Each (type, version) apart, as replay reads them: their rows cover the batch once, in
    order of first appearance, and hold exactly the batch's values of their columns."""
    batch = decode_columns(values, 40, secrets=True).to_pylist()
    kinds = decode_kinds(values, 40, secrets=True)
    rows = [row for kind in kinds for row in kind.rows.tolist()]
    assert sorted(rows) == list(range(len(values)))
    assert [kind.rows[0] for kind in kinds] == sorted(kind.rows[0] for kind in kinds)
    for kind in kinds:
        for row in kind.rows.tolist():
            assert (batch[row][TYPE_CODE], batch[row][VERSION]) == (kind.record_type, kind.version)
        for name, array in kind.columns.items():
            assert array.to_pylist() == [batch[row][name] for row in kind.rows.tolist()]


def test_secrets_are_columns_only_when_asked_for() -> None:
    fields = {"name": "al", "mechanism": 1, "salt": b"s", "stored_key": b"k", "server_key": b"v"}
    value = _frame_and_write(RecordType.USER_SCRAM_CREDENTIAL, 0, {**fields, "iterations": 4096})
    assert not SECRET_FIELDS & set(decode_columns([value] * 3).schema.names)
    with_secrets = decode_columns([value] * 3, secrets=True).to_pylist()
    assert [row["stored_key"] for row in with_secrets] == [b"k"] * 3
    assert with_secrets[0]["salt"] == b"s" and with_secrets[0]["server_key"] == b"v"


def test_an_old_version_gets_todays_default() -> None:
    old = {"principal": "User:a", "client_address": "local", "client_id": "c", "timestamp_ms": 5}
    value = _frame_and_write(RecordType.REQUEST_CONTEXT, 0, old)
    row = decode_columns([value])[0:1].to_pylist()[0]
    assert row["context_api"] is None and row["context_timestamp_ms"] == 5


def test_no_values_is_an_empty_batch() -> None:
    assert decode_columns([]).num_rows == 0


def _damage(data: st.DataObject, values: list[bytes]) -> list[bytes]:
    index = data.draw(st.integers(0, len(values) - 1))
    value = bytearray(values[index])
    how = data.draw(st.sampled_from(["truncate", "flip", "append", "insert", "varint", "frame"]))
    at = data.draw(st.integers(0, max(len(value) - 1, 0)))
    if how == "truncate":
        del value[at:]
    elif how == "flip":
        value[at] = data.draw(st.integers(0, 255))
    elif how == "append":
        value += data.draw(st.binary(min_size=1, max_size=3))
    elif how == "insert":
        value[at:at] = data.draw(st.binary(min_size=1, max_size=3))
    elif how == "varint":  # a run of continuation bytes: a varint too long for its type
        value[at:at] = b"\xff" * data.draw(st.integers(1, 11))
    else:
        value[: data.draw(st.integers(1, 4))] = data.draw(st.binary(max_size=4))
    return [*values[:index], bytes(value), *values[index + 1 :]]


@settings(max_examples=400)
@given(st.data(), _any_values(LONG))
def test_damaged_values_give_the_codecs_error_at_their_own_offset(
    data: st.DataObject, values: list[bytes]
) -> None:
    damaged = _damage(data, values)
    try:
        for i, value in enumerate(damaged):
            decode_framed(value, 1000 + i)
    except RecordDecodeError as expected:
        with pytest.raises(RecordDecodeError) as raised:
            decode_columns(damaged, 1000)
        assert str(raised.value) == str(expected)
        return
    # Damage that still reads as valid records (a flipped byte inside a string, say), except an
    # int field over 32 bits, which fastavro reads but no int column holds: an error naming it.
    rows = [_fastavro_row(v) for v in damaged]
    too_big = [i for i, row in enumerate(rows) if _has_wide_int(row)]
    if too_big:
        with pytest.raises(RecordDecodeError, match=f"record at offset {1000 + too_big[0]}: "):
            decode_columns(damaged, 1000)
        return
    assert decode_columns(damaged, 1000).to_pylist() == [_fastavro_row(v) for v in damaged]


def _has_wide_int(row: dict[str, Any]) -> bool:
    ints = [f.name for f in columns_schema() if f.type == pa.int32()]
    return any(row[name] is not None and not -(2**31) <= row[name] < 2**31 for name in ints)


def test_errors_name_the_offsets_given_per_value() -> None:
    good = _frame_and_write(RecordType.REMOVE_ACCESS_CONTROL_ENTRY, 0, {"id": bytes(16)})
    with pytest.raises(RecordDecodeError, match="record at offset 77: unknown record type 99"):
        decode_columns([good, b"\x01\x63\x00"], [12, 77])


@pytest.mark.parametrize(
    "value",
    [b"\x01\x12\x00" + bytes(16) + b"\x04", b"\x01\x13", b"\x02\x13\x00" + bytes(16)],
    ids=["cut-in-body", "cut-in-frame", "frame-version"],
)
def test_the_vectorised_pass_refuses_what_it_cannot_read(value: bytes) -> None:
    with pytest.raises(NotColumnar):
        _vectorised([value], False)


def test_text_that_is_not_utf8_is_the_codecs_error() -> None:
    fields = {"name": "x", "mechanism": 1}
    value = _frame_and_write(RecordType.REMOVE_USER_SCRAM_CREDENTIAL, 0, fields)
    broken = value[:4] + b"\xff" + value[5:]
    with pytest.raises(RecordDecodeError, match="offset 3"):
        decode_columns([value, value, value, broken], 0)
    assert isinstance(decode_columns([value]).column("name"), pa.StringArray)
