"""Random ACL and SCRAM records through aclog.kraft.writer and back through the reader."""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aclog.kraft import decode_metadata_value, read_checkpoint_info, read_kraft
from aclog.kraft.encoding import encode_record
from aclog.kraft.writer import LogBuilder, write_checkpoint
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    LeaderChangeRecord,
    NoOpRecord,
    PatternType,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
)
from tests.kraft.fakes import other_record

uuids = st.builds(uuid.UUID, int=st.integers(0, 2**128 - 1))
text = st.text(max_size=40)
blobs = st.binary(max_size=80)

acls = st.builds(
    AccessControlEntryRecord,
    uuids,
    st.sampled_from(ResourceType),
    text,
    st.sampled_from(PatternType),
    text,
    text,
    st.sampled_from(AclOperation),
    st.sampled_from(AclPermissionType),
)
credentials = st.builds(
    UserScramCredentialRecord,
    text,
    st.sampled_from(ScramMechanism),
    blobs,
    blobs,
    blobs,
    st.integers(-(2**31), 2**31 - 1),
)
records: st.SearchStrategy[Record] = st.one_of(
    acls,
    credentials,
    st.builds(RemoveAccessControlEntryRecord, uuids),
    st.builds(RemoveUserScramCredentialRecord, text, st.sampled_from(ScramMechanism)),
    st.just(NoOpRecord()),
)
skipped_keys = st.integers(0, 300).filter(lambda k: k not in (11, 18, 19, 20, 22))
others = st.builds(other_record, skipped_keys, st.binary(max_size=30), st.integers(0, 200))


@given(records)
def test_one_value_round_trips(record: Record) -> None:
    assert decode_metadata_value(encode_record(record)).record == record


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.one_of(records, others), min_size=1, max_size=6),
            st.integers(0, 2),  # epoch step
            st.booleans(),  # roll a segment after this batch
        ),
        max_size=12,
    )
)
def test_log_round_trip(batches: list[tuple[list[Record | bytes], int, bool]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        log = LogBuilder(directory)
        expected = []
        epoch, timestamp = 0, 1_000
        skipped = 0
        for items, step, roll in batches:
            epoch += step
            timestamp += 7
            values = [i if isinstance(i, bytes) else encode_record(i) for i in items]
            base = log.data(values, epoch, timestamp)
            for delta, item in enumerate(items):
                if isinstance(item, bytes):
                    skipped += 1
                else:
                    expected.append((base + delta, epoch, timestamp, item))
            if roll:
                log.roll()
        log.flush()
        read = list(read_kraft(directory))
        assert [tuple(r) for b in read for r in b.records] == expected
        assert sum(sum(b.skipped.values()) for b in read) == skipped
        assert len(read) == len(batches)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.lists(st.one_of(records, others), max_size=20),
    st.integers(1, 7),  # batch size
    st.integers(0, 2**40),  # end offset
    st.integers(0, 2**31 - 1),  # epoch
    st.integers(0, 2**45),  # timestamp
)
def test_checkpoint_round_trip(
    items: list[Record | bytes], batch_size: int, end_offset: int, epoch: int, timestamp: int
) -> None:
    values = [i if isinstance(i, bytes) else encode_record(i) for i in items]
    with tempfile.TemporaryDirectory() as tmp:
        path = write_checkpoint(
            Path(tmp), end_offset, epoch, values, timestamp, batch_size=batch_size
        )
        info, read = read_checkpoint_info(path)
        assert os.listdir(tmp) == [f"{end_offset:020d}-{epoch:010d}.checkpoint"]  # no .part
    assert read == [i for i in items if not isinstance(i, bytes)]
    assert (info.end_offset, info.epoch, info.timestamp_ms) == (end_offset, epoch, timestamp)
    assert sum(info.skipped.values()) == sum(isinstance(i, bytes) for i in items)


def test_the_writer_refuses_what_kafka_cannot_hold(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="KRaft has no metadata record for LeaderChangeRecord"):
        encode_record(LeaderChangeRecord(1, 1))
    log = LogBuilder(tmp_path)
    log.records([NoOpRecord()], 1, 0)
    with pytest.raises(ValueError, match="before the first batch"):
        log.start_at(100)
