"""Records built from the columnar decoder equal the codec's one-record decode: the same records
(same classes, enum members, UNKNOWN for codes without one, secrets), the same kinds, and for
damaged values the same first error at the same offset."""

from __future__ import annotations

import gc
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    RecordDecodeError,
    RecordType,
    RemoveAccessControlEntryRecord,
    RequestContextRecord,
    ResourceType,
    decode_framed,
    encode,
)
from aclog.records.checked import _check_ints
from aclog.records.codec import decode_avro_fields
from aclog.records.schemas import known_versions
from aclog.records.small_batch import decode_records
from tests.records.samples import SAMPLES
from tests.records.test_columnar import LONG, _any_values, _damage

_text = st.one_of(st.text(max_size=12), st.text(min_size=60, max_size=90))
_uuids = st.builds(uuid.UUID, bytes=st.binary(min_size=16, max_size=16))
_acls = st.builds(
    AccessControlEntryRecord,
    _uuids,
    st.sampled_from(ResourceType),
    _text,
    st.sampled_from(PatternType),
    _text,
    _text,
    st.sampled_from(AclOperation),
    st.sampled_from(AclPermissionType),
)
_samples = st.sampled_from(
    [encode(SAMPLES[(t, v)], v) for t in RecordType for v in known_versions(t)]
)
# Values of every type and version, with long runs of ACL additions and removals mixed in, as
# a controller's batches hold them (a request context first, then the changes).
_values = st.lists(
    st.one_of(
        _samples.map(lambda v: [v]),
        st.lists(st.builds(encode, _acls), min_size=1, max_size=12),
        st.lists(st.builds(lambda i: encode(RemoveAccessControlEntryRecord(i)), _uuids)),
    ),
    max_size=8,
).map(lambda runs: [value for run in runs for value in run])


def _reference(values: list[bytes], first: int) -> tuple[list[object], list[object]]:
    """The codec's decode of each value in turn; an int field past 32 bits is the columnar
    decoder's documented error (fastavro reads it, but no Kafka field or column holds it)."""
    records, kinds = [], []
    for i, value in enumerate(values):
        kind, fields = decode_avro_fields(value, first + i)
        _check_ints(kind, fields, first + i)
        decoded = decode_framed(value, first + i)
        records.append(decoded.record)
        kinds.append(decoded.kind)
    return records, kinds


def _outcome(decode, values: list[bytes], first: int) -> object:  # type: ignore[no-untyped-def]
    try:
        records, kinds = decode(values, first)
    except RecordDecodeError as error:
        return str(error)
    return records, kinds, [type(r) for r in records], [type(k[0]) for k in kinds]


@given(_values, st.integers(min_value=0, max_value=1 << 40))
def test_records_equal_the_codecs_one_by_one(values: list[bytes], first: int) -> None:
    assert _outcome(decode_records, values, first) == _outcome(_reference, values, first)


@settings(max_examples=300)
@given(_any_values(LONG))
def test_every_field_value_of_every_type_and_version(values: list[bytes]) -> None:
    """Records written by fastavro straight from the ``.avsc`` files, with any field value
    (enum codes this build does not know, wide ints, long text) decode as the codec does."""
    assert _outcome(decode_records, values, 9) == _outcome(_reference, values, 9)


@settings(max_examples=300)
@given(st.data(), _any_values(LONG))
def test_damaged_values_give_the_codecs_first_error(
    data: st.DataObject, values: list[bytes]
) -> None:
    damaged = _damage(data, values)
    assert _outcome(decode_records, damaged, 500) == _outcome(_reference, damaged, 500)


def test_no_values_and_one() -> None:
    assert decode_records([]) == ([], [])
    value = encode(SAMPLES[(RecordType.ACCESS_CONTROL_ENTRY, 0)])
    assert decode_records([value], 7) == _reference([value], 7)


def test_an_old_version_among_new_ones_takes_todays_default() -> None:
    old = [encode(RequestContextRecord(f"User:{i}", "10.0.0.1", "c", i), 0) for i in range(3)]
    new = encode(RequestContextRecord("User:x", "10.0.0.2", "d", 9, "CreateAcls"))
    records, kinds = decode_records([*old, new, *old], 0)
    assert [r.api for r in records] == [None] * 3 + ["CreateAcls"] + [None] * 3  # type: ignore[union-attr]
    assert (
        kinds
        == [(RecordType.REQUEST_CONTEXT, 0)] * 3
        + [(RecordType.REQUEST_CONTEXT, 1)]
        + [(RecordType.REQUEST_CONTEXT, 0)] * 3
    )


def test_a_damaged_record_inside_a_long_run_names_its_own_offset() -> None:
    acl = encode(SAMPLES[(RecordType.ACCESS_CONTROL_ENTRY, 0)])
    values = [acl] * 40
    values[17] = acl + b"\x00"
    with pytest.raises(RecordDecodeError, match="offset 117: 1 bytes left over"):
        decode_records(values, 100)
    values[17] = bytes((1, 99, 3))
    with pytest.raises(RecordDecodeError, match="offset 117: unknown record type 99 version 3"):
        decode_records(values, 100)


@pytest.mark.parametrize("enabled", [True, False])
def test_a_big_decode_leaves_the_collector_to_the_program(enabled: bool) -> None:
    """A library call never switches the process-wide collector: pausing it is the program's
    choice at its edges (the loader's start, the CLI)."""
    samples = [encode(SAMPLES[(t, v)], v) for t in RecordType for v in known_versions(t)]
    acls = [encode(SAMPLES[(RecordType.ACCESS_CONTROL_ENTRY, 0)])] * 300
    values = [*samples, *acls, *samples]
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        got = decode_records(values, 5)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
    assert got == _reference(values, 5)
