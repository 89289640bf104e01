"""Random ACL and SCRAM records through the test writer and back through the reader."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aclog.kraft import decode_metadata_value, read_kraft
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    NoOpRecord,
    PatternType,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
)
from tests.kraft.writer import LogBuilder, encode_record, other_record

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
