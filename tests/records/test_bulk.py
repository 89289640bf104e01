"""The batch decoder gives what the one-record decoder gives, records and errors alike."""

from __future__ import annotations

import gc
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    RecordDecodeError,
    RecordType,
    RemoveAccessControlEntryRecord,
    ResourceType,
    decode_framed,
    encode,
)
from aclog.records.bulk import (
    MIN_GROUP,
    SENTINEL,
    _group_by_frame,
    decode_values,
)
from aclog.records.schemas import known_versions
from tests.records.samples import SAMPLES

_text = st.text(max_size=12)
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
# Values of every type and version, with long runs of one type mixed in.
_values = st.lists(
    st.one_of(
        _samples,
        st.lists(st.builds(encode, _acls), min_size=1, max_size=3 * MIN_GROUP),
        st.lists(st.builds(lambda i: encode(RemoveAccessControlEntryRecord(i)), _uuids)),
    ).map(lambda v: v if isinstance(v, list) else [v]),
    max_size=8,
).map(lambda runs: [value for run in runs for value in run])


def _one_by_one(values: list[bytes], first: int) -> tuple[list[object], list[object]]:
    decoded = [decode_framed(value, first + i) for i, value in enumerate(values)]
    return [d.record for d in decoded], [d.kind for d in decoded]


@given(_values, st.integers(min_value=0, max_value=1 << 40))
def test_bulk_equals_one_by_one(values: list[bytes], first: int) -> None:
    records, kinds = decode_values(values, first)
    assert (records, kinds) == _one_by_one(values, first)
    assert [type(r) for r in records] == [type(r) for r in _one_by_one(values, first)[0]]


def test_empty_and_single() -> None:
    assert decode_values([]) == ([], [])
    value = encode(SAMPLES[(RecordType.ACCESS_CONTROL_ENTRY, 0)])
    assert decode_values([value], 7) == _one_by_one([value], 7)


def _acl_values(count: int) -> list[bytes]:
    return [encode(SAMPLES[(RecordType.ACCESS_CONTROL_ENTRY, 0)]) for _ in range(count)]


@given(st.integers(min_value=0, max_value=3 * MIN_GROUP - 1), st.binary(min_size=1, max_size=20))
def test_left_over_bytes_inside_a_run_name_the_offset(index: int, extra: bytes) -> None:
    values = _acl_values(3 * MIN_GROUP)
    values[index] += extra
    with pytest.raises(RecordDecodeError, match=f"offset {100 + index}: .* left over"):
        decode_values(values, 100)


def test_left_over_bytes_that_look_like_the_sentinel_are_still_caught() -> None:
    values = _acl_values(2 * MIN_GROUP)
    values[1] += SENTINEL
    with pytest.raises(RecordDecodeError, match="offset 11: 8 bytes left over"):
        decode_values(values, 10)


def test_short_body_inside_a_run_names_the_offset() -> None:
    values = [encode(RemoveAccessControlEntryRecord(uuid.UUID(int=i))) for i in range(10)]
    values[3] += b"\x00"  # 17 bytes, then 15: together still a whole number of ids
    values[4] = values[4][:-1]
    with pytest.raises(RecordDecodeError, match="offset 3: 1 bytes left over"):
        decode_values(values, 0)


def test_unknown_type_in_a_batch_names_type_version_and_offset() -> None:
    values = [*_acl_values(MIN_GROUP), bytes((1, 99, 3))]
    with pytest.raises(RecordDecodeError, match=r"offset 4: unknown record type 99 version 3"):
        decode_values(values, 0)


def _damage(value: bytes, how: int) -> bytes:
    if how == 0:
        return value + b"\x00"  # left-over bytes
    if how == 1:
        return value[:-1]  # a body cut short
    return bytes((1, 99, 0)) + value[3:]  # an unknown type


def _outcome(decode: Callable[[list[bytes], int], object], values: list[bytes], at: int) -> object:
    """What ``decode`` returns for ``values`` from offset ``at``, or its error's message."""
    try:
        return decode(values, at)
    except RecordDecodeError as error:
        return str(error)


@given(
    _values.filter(bool),
    st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 2)), min_size=1, max_size=3),
)
def test_damaged_batches_raise_what_one_by_one_raises_first(
    values: list[bytes], damage: list[tuple[int, int]]
) -> None:
    for position, how in damage:
        index = position % len(values)
        values[index] = _damage(values[index], how)
    assert _outcome(decode_values, values, 50) == _outcome(_one_by_one, values, 50)


def test_a_run_of_an_older_version_resolves_to_the_current_schema() -> None:
    """The array path resolves like the one-record path. Today only RequestContextRecord has
    two versions, and its type code takes two frame bytes (never bulk-decoded), so its v0
    bodies are run through the array path directly, under a stand-in 3-byte frame."""
    from aclog.records import RequestContextRecord
    from aclog.records.bulk import _decode_run
    from aclog.records.codec import _plan

    records = [RequestContextRecord(f"User:{i}", "10.0.0.1", "c", i) for i in range(6)]
    values = [b"\x01\x7f\x00" + encode(record, 0)[4:] for record in records]
    plan = _plan(RecordType.REQUEST_CONTEXT, 0)
    items = _decode_run(plan, values)
    assert items is not None
    assert [plan.build(item) for item in items] == records  # v1's api takes its default


BIG = 300


def _big_batch() -> list[bytes]:
    """Hundreds of values, of every type and version, with ACL runs in between."""
    samples = [encode(SAMPLES[(t, v)], v) for t in RecordType for v in known_versions(t)]
    acls = _acl_values(BIG)
    return [*samples, *acls, *samples, *acls[:MIN_GROUP]]


@pytest.mark.parametrize("enabled", [True, False])
def test_a_big_decode_leaves_the_collector_to_the_program(
    enabled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library call never switches the process-wide collector: pausing it is the program's
    choice at its edges (the loader's start, the CLI). The decode equals the one-record
    decoder's."""
    from aclog.records import bulk

    seen: list[bool] = []
    inner = bulk._decode

    def spy(*args: Any) -> Any:
        seen.append(gc.isenabled())
        return inner(*args)

    monkeypatch.setattr(bulk, "_decode", spy)
    values = _big_batch()
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        got = decode_values(values, 5)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
    assert seen == [enabled]
    assert got == _one_by_one(values, 5)


@given(st.lists(st.binary(max_size=4).map(lambda b: bytes(x % 3 for x in b)), max_size=40))
def test_values_are_grouped_by_their_first_three_bytes(values: list[bytes]) -> None:
    """Short values (shorter than a frame) only group with equal ones; order is kept."""
    expected: dict[bytes, list[int]] = {}
    for index, value in enumerate(values):
        expected.setdefault(value[:3], []).append(index)
    groups = _group_by_frame(values)
    assert list(groups) == list(expected)
    for frame, (indices, run) in groups.items():
        assert indices == expected[frame]
        assert run == [values[i] for i in indices]


@given(
    st.lists(st.builds(encode, _acls), min_size=MIN_GROUP, max_size=3 * MIN_GROUP),
    st.lists(st.tuples(st.integers(min_value=0), st.binary(max_size=3)), min_size=1, max_size=3),
)
def test_short_values_among_runs_raise_what_one_by_one_raises_first(
    values: list[bytes], short: list[tuple[int, bytes]]
) -> None:
    for position, value in short:
        values[position % len(values)] = value
    assert _outcome(decode_values, values, 70) == _outcome(_one_by_one, values, 70)
