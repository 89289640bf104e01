"""The numpy fast path for batches of ACL grants and removals (aclog/kraft/acl_batch.py) against the
general path (record_values, then the batch decoder the codec checks): Kafka-written ACL
batches take it and decode alike; anything else, damage included, is declined or decodes
alike, never differently."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.kraft import KraftFormatError, read_kraft
from aclog.kraft.acl_batch import MIN_RECORDS, decode_acl_batch, decode_acl_columns
from aclog.kraft.columns import decode_metadata_values
from aclog.kraft.encoding import encode_record, frame
from aclog.kraft.schemas import ACCESS_CONTROL_ENTRY
from aclog.kraft.writer import LogBuilder, data_batch
from aclog.log.batch import HEADER_SIZE, record_values
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    RemoveAccessControlEntryRecord,
    ResourceType,
)
from tests.kraft.test_columns import _typed, batches

names = st.text(max_size=12) | st.text(min_size=100, max_size=130)
acls = st.builds(
    AccessControlEntryRecord,
    st.builds(uuid.UUID, int=st.integers(0, 2**128 - 1)),
    st.sampled_from(ResourceType),
    names,
    st.sampled_from(PatternType),
    names,
    names,
    st.sampled_from(AclOperation),
    st.sampled_from(AclPermissionType),
)


def _general(data: bytes) -> Any:
    """What the general path gives for a batch: the typed records, or the error it raises."""
    try:
        api_keys, records = decode_metadata_values(record_values(data), path="p", first_offset=0)
    except (ValueError, KraftFormatError) as error:
        return ("error", type(error))
    return api_keys, _typed(records)


def _fast(data: bytes, count: int) -> Any:
    decoded = decode_acl_batch(data, count, min_records=1)
    return None if decoded is None else (decoded[0], _typed(decoded[1]))


def _plain(acl: AccessControlEntryRecord) -> bool:
    """Strings the fast path reads: at most 126 UTF-8 bytes (a one-byte compact length), no NUL."""
    texts = (acl.resource_name, acl.principal, acl.host)
    return all(len(t.encode()) <= 126 and "\x00" not in t for t in texts)


removals = st.builds(RemoveAccessControlEntryRecord, st.builds(uuid.UUID, int=st.integers(0, 9)))


@settings(max_examples=200, deadline=None)
@given(st.lists(acls | removals, min_size=1, max_size=30), st.integers(0, 2**40))
def test_kafka_written_acl_batches_take_the_fast_path(
    records: list[AccessControlEntryRecord | RemoveAccessControlEntryRecord], base: int
) -> None:
    data = data_batch([encode_record(r) for r in records], base, 3, 1_000)
    fast = _fast(data, len(records))
    if all(_plain(r) for r in records if isinstance(r, AccessControlEntryRecord)):
        assert fast is not None
    assert fast is None or fast == _general(data)
    if fast is not None:
        assert decode_acl_batch(data, len(records), min_records=1) == (fast[0], records)


@settings(max_examples=300, deadline=None)
@given(batches)
def test_any_batch_is_declined_or_decoded_as_the_general_path_does(values: list[bytes]) -> None:
    data = data_batch(values, 0, 1, 0)
    fast = _fast(data, len(values))
    assert fast is None or fast == _general(data)


@settings(max_examples=300, deadline=None)
@given(st.lists(acls.filter(_plain), min_size=1, max_size=8), st.data())
def test_damaged_batches_are_declined_or_decoded_as_the_general_path_does(
    records: list[AccessControlEntryRecord], data: st.DataObject
) -> None:
    batch = bytearray(data_batch([encode_record(r) for r in records], 0, 1, 0))
    at = data.draw(st.integers(HEADER_SIZE, len(batch) - 1))
    how = data.draw(st.sampled_from(["set", "insert", "delete"]))
    if how == "set":
        batch[at] = data.draw(st.integers(0, 255))
    elif how == "insert":
        batch.insert(at, data.draw(st.integers(0, 255)))
    else:
        del batch[at]
    count = data.draw(st.sampled_from([len(records), len(records) + 1, max(len(records) - 1, 1)]))
    fast = _fast(bytes(batch), count)
    if fast is not None:
        general = _general(bytes(batch))
        assert general[0] != "error" and len(general[1]) == count
        assert fast == general


@settings(max_examples=200, deadline=None)
@given(st.lists(acls | removals, min_size=1, max_size=30), st.data())
def test_acl_columns_hold_what_the_records_path_decodes(
    records: list[AccessControlEntryRecord | RemoveAccessControlEntryRecord], data: st.DataObject
) -> None:
    batch = bytearray(data_batch([encode_record(r) for r in records], 0, 1, 0))
    if data.draw(st.booleans()):  # damage it: declined, or what the general path reads
        batch[data.draw(st.integers(HEADER_SIZE, len(batch) - 1))] = data.draw(st.integers(0, 255))
    columns = decode_acl_columns(bytes(batch), len(records), min_records=1)
    grants_only = all(type(r) is AccessControlEntryRecord and _plain(r) for r in records)
    if columns is None:
        assert not grants_only or bytes(batch) != data_batch(
            [encode_record(r) for r in records], 0, 1, 0
        )
        return
    general = _general(bytes(batch))
    assert general[0] != "error"
    assert general[0] == [ACCESS_CONTROL_ENTRY] * len(records)
    assert _typed(columns.records()) == general[1]
    assert len(columns) == len(records)


ACL = AccessControlEntryRecord(
    uuid.UUID(int=1),
    ResourceType.TOPIC,
    "orders",
    PatternType.LITERAL,
    "User:alice",
    "*",
    AclOperation.READ,
    AclPermissionType.ALLOW,
)


def _numbered(count: int) -> list[AccessControlEntryRecord]:
    return [dataclasses.replace(ACL, id=uuid.UUID(int=i)) for i in range(count)]


def test_large_batches_with_three_byte_offset_deltas() -> None:
    records = _numbered(9000)  # offset deltas from 8192 take three varint bytes
    data = data_batch([encode_record(r) for r in records], 0, 1, 0)
    assert decode_acl_batch(data, len(records)) == ([18] * len(records), records)
    assert decode_acl_batch(data, len(records) - 1) is None
    assert decode_acl_batch(data, len(records) + 1) is None


def test_small_batches_and_other_records_take_the_general_path() -> None:
    values = [encode_record(r) for r in _numbered(MIN_RECORDS)]
    assert decode_acl_batch(data_batch(values, 0, 1, 0), MIN_RECORDS) is not None
    small = data_batch(values[:-1], 0, 1, 0)
    assert decode_acl_batch(small, MIN_RECORDS - 1) is None
    assert decode_acl_batch(small, MIN_RECORDS - 1, min_records=1) is not None
    led_by_a_no_op = data_batch([frame(20) + b"\x00", *values], 0, 1, 0)
    assert decode_acl_batch(led_by_a_no_op, MIN_RECORDS + 1) is None


def test_a_bad_value_in_a_log_fails_at_its_own_offset(tmp_path: Path) -> None:
    good = [encode_record(r) for r in _numbered(MIN_RECORDS)]
    null_name = frame(18) + bytes(16) + b"\x02" + b"\x00"  # a null ResourceName, then nothing
    log = LogBuilder(tmp_path)
    log.start_at(500)
    log.data([*good[:7], null_name, *good[7:]], 1, 0)  # big enough for the fast path
    log.flush()
    with pytest.raises(KraftFormatError) as caught:
        list(read_kraft(tmp_path))
    assert caught.value.offset == 507
