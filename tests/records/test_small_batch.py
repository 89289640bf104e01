"""The small-batch decoder gives what the columnar decoder gives: the same records, kinds, ACL
rows and first error (at the same offset), for every record type and version, at batch sizes
around :data:`~aclog.records.small_batch.SMALL_BATCH` (where the batch decoder switches)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.records import RecordDecodeError, RecordType, encode
from aclog.records.build import FROM_FIELDS
from aclog.records.column_records import _field_columns, decode_columnar_records
from aclog.records.decoded import DecodedRecords
from aclog.records.schemas import known_versions
from aclog.records.small_batch import SMALL_BATCH, decode_batch_records, decode_small
from tests.records.samples import SAMPLES
from tests.records.test_columnar import KINDS, LONG, _damage, _records

_one = st.sampled_from(KINDS).flatmap(lambda kind: _records(kind, LONG))
_sizes = st.sampled_from([1, 2, 3, SMALL_BATCH - 1, SMALL_BATCH, SMALL_BATCH + 1])
# Batches of every type and version, their sizes around the threshold: a run of one kind (as a
# controller writes ACLs) with a few others spread in, or a mix of everything.
_batches = _sizes.flatmap(
    lambda n: st.one_of(
        st.lists(_one, min_size=n, max_size=n),
        st.tuples(_one, st.lists(_one, max_size=3)).map(lambda p: [p[0]] * (n - len(p[1])) + p[1]),
    )
)


def _outcome(decode: Any, values: list[bytes], first: int) -> object:
    try:
        decoded: DecodedRecords = decode(values, first)
    except RecordDecodeError as error:
        return str(error)
    acls = decoded.acls
    rows = None
    if acls is not None:
        rows = (
            [int(row) for row in acls.add_rows],
            acls.add_ids,
            acls.adds,
            [int(row) for row in acls.remove_rows],
            acls.remove_ids,
            acls.removes,
            acls.in_order(),
        )
    kinds = decoded.kinds()
    return (
        decoded.count,
        decoded.records,
        [type(r) for r in decoded.records],
        kinds,
        [type(k[0]) for k in kinds],
        decoded.others,
        [(kind, [int(row) for row in r]) for kind, r in decoded.kind_rows],
        decoded.leading_other(),
        decoded.first(),
        rows,
    )


@settings(max_examples=150, deadline=None)
@given(_batches, st.integers(min_value=0, max_value=1 << 40))
def test_every_type_and_version_decodes_as_the_columnar_decoder_does(
    values: list[bytes], first: int
) -> None:
    assert _outcome(decode_small, values, first) == _outcome(decode_columnar_records, values, first)


@settings(max_examples=300, deadline=None)
@given(st.data(), _batches)
def test_damaged_values_give_the_same_first_error_at_their_own_offset(
    data: st.DataObject, values: list[bytes]
) -> None:
    damaged = _damage(data, values)
    small = _outcome(decode_small, damaged, 700)
    assert small == _outcome(decode_columnar_records, damaged, 700)
    if isinstance(small, str):  # the offset of one of the batch's records
        offset = int(small.removeprefix("record at offset ").split(":")[0])
        assert 700 <= offset < 700 + len(damaged)


def test_the_batch_decoder_switches_at_the_threshold() -> None:
    sample = encode(SAMPLES[(RecordType.ACCESS_CONTROL_ENTRY, 0)])
    below = decode_batch_records([sample] * (SMALL_BATCH - 1), 0)
    at = decode_batch_records([sample] * SMALL_BATCH, 0)
    assert not below.columnar and below.acl_kinds == []
    assert at.columnar and at.acl_kinds
    assert below.records == at.records[1:]


def test_every_sample_alone_and_none() -> None:
    for record_type in RecordType:
        for version in known_versions(record_type):
            value = encode(SAMPLES[(record_type, version)], version)
            assert _outcome(decode_small, [value], 3) == _outcome(
                decode_columnar_records, [value], 3
            )
    assert decode_small([]).records == [] and decode_small([]).kinds() == []


def test_the_classes_built_from_columns_take_their_fields_in_schema_order() -> None:
    """The columnar decoder builds these types positionally from the schema's field order."""
    for record_type, build in FROM_FIELDS.items():
        names, _ = _field_columns(RecordType(record_type))
        assert tuple(f.name for f in fields(build)) == names  # type: ignore[arg-type]
