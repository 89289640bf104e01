"""Replay makes table-backed images equal to the one-by-one reference: a log written to
segments and read back (each batch's ACLs taken from the decoder's columns), handed over from
memory, and restated from a snapshot with the tail after it, all give the ACLs (same ids,
records and order) and the ordered changes that ``AclsDelta`` replaying every record one by
one over a dict gives; a bad batch fails with the reference's error at its offset."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image import AclsDelta, AclsImage, MetadataImage, ReplayError, image_records
from aclog.log import SegmentedLog
from aclog.records import encode
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import (
    AccessControlEntryRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RequestContextRecord,
)
from aclog.replay import CommittedBatch, rebuild_image, replay_batches
from aclog.replay.stream import read_decoded
from aclog.snapshot import write_snapshot
from tests.acl_factory import acl_record

_texts = st.text(alphabet="ab\u00e9\u4e2d*:", max_size=3)


@st.composite
def _histories(draw: st.DrawFn) -> list[list[Record]]:
    """Batches a controller could write: new ACLs (random strings and codes, so bindings
    share strings) and removals of live ones, a request context leading some."""
    live: dict[uuid.UUID, tuple[object, ...]] = {}
    serial = iter(range(1, 10**6))
    batches: list[list[Record]] = []
    for _ in range(draw(st.integers(1, 6))):
        batch: list[Record] = []
        if draw(st.booleans()):
            batch.append(RequestContextRecord("User:admin", "10.0.0.1", "cli", 1))
        for _ in range(draw(st.integers(0, 12))):
            if live and draw(st.integers(0, 3)) == 0:
                gone = draw(st.sampled_from(sorted(live)))
                del live[gone]
                batch.append(RemoveAccessControlEntryRecord(gone))
                continue
            acl = AccessControlEntryRecord(
                uuid.UUID(int=next(serial) << 64 | draw(st.integers(0, 3))),
                draw(st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP])),
                draw(_texts),
                draw(st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED])),
                "User:" + draw(_texts),
                draw(_texts),
                draw(st.sampled_from([AclOperation.READ, AclOperation.ALL])),
                draw(st.sampled_from(list(AclPermissionType)[2:])),
            )
            if acl.key in live.values():
                continue  # a binding stored already: a controller writes no record
            live[acl.id] = acl.key
            batch.append(acl)
        batches.append(batch)
    return batches


def _reference(records: list[Record]) -> AclsDelta:
    """Every ACL record replayed one by one into a delta over ACLs held in a dict."""
    delta = AclsDelta(AclsImage({}))
    for offset, record in enumerate(records):
        if isinstance(record, (AccessControlEntryRecord, RemoveAccessControlEntryRecord)):
            delta.replay(record, offset)
    return delta


def _applied(delta: AclsDelta) -> list[tuple[uuid.UUID, Record]]:
    acls: dict[uuid.UUID, Record] = {}
    for acl_id, change in delta.changes.items():
        acls.pop(acl_id, None)
        if change is not None:
            acls[acl_id] = change
    return list(acls.items())


def _write(directory: Path, batches: list[list[Record]]) -> list[int]:
    """The batches appended to a log in ``directory``; each batch's last offset."""
    lasts = []
    with SegmentedLog(directory, fsync=False) as log:
        for batch in batches:
            if batch:
                lasts.append(
                    log.append([encode(r) for r in batch], epoch=1, timestamp_ms=1).last_offset
                )
    return lasts


@settings(max_examples=60, deadline=None)
@given(_histories(), st.integers(0, 10), st.booleans())
def test_replay_from_segments_memory_and_snapshots_equals_one_by_one(
    batches: list[list[Record]], cut: int, table_base: bool
) -> None:
    records = [record for batch in batches for record in batch]
    reference = _reference(records)
    expected = _applied(reference)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        lasts = _write(directory, batches)
        from_log = replay_batches(MetadataImage.EMPTY, read_decoded(directory))
        committed, offset = [], 0
        for batch in (b for b in batches if b):
            committed.append(CommittedBatch(offset, 1, 1, tuple(batch)))
            offset += len(batch)
        from_memory = replay_batches(MetadataImage.EMPTY, committed)
        for replayed in (from_log, from_memory):
            assert list(replayed.image.acls.acls.items()) == expected
            assert replayed.image.acls.table is not None or not expected
            if replayed.delta is not None and replayed.delta.acls_delta is not None:
                assert list(replayed.delta.acls_delta.changes.items()) == list(
                    reference.changes.items()
                )
        if lasts:  # a snapshot at a batch boundary, then the tail after it
            at = lasts[min(cut, len(lasts) - 1)]
            middle = rebuild_image(directory, at_offset=at, use_snapshots=False).image
            write_snapshot(
                directory,
                image_records(middle),
                last_offset=at,
                epoch=1,
                timestamp_ms=1,
                fsync=False,
            )
            rebuilt = rebuild_image(directory)
            assert rebuilt.snapshot is not None
            assert list(rebuilt.image.acls.acls.items()) == expected
            assert rebuilt.image.acls.table is not None or not expected
            for acl_id, acl in expected:  # lookups through the table
                assert rebuilt.image.acls.id_of_key(acl.key) == acl_id  # type: ignore[attr-defined]


@pytest.mark.parametrize("bad_at", [0, 5, 9])
def test_a_bad_batch_from_a_segment_fails_as_one_by_one_and_applies_nothing(
    tmp_path: Path, bad_at: int
) -> None:
    stored = [acl_record(n, f"t{n}") for n in range(10)]
    batch: list[Record] = [acl_record(n, f"t{n}") for n in range(100, 110)]
    batch[bad_at] = AccessControlEntryRecord(uuid.UUID(int=999), *stored[3].key)  # a stored binding
    _write(tmp_path, [stored, batch])
    with pytest.raises(ReplayError) as raised:
        replay_batches(MetadataImage.EMPTY, read_decoded(tmp_path))
    with pytest.raises(ReplayError) as expected:
        _reference([*stored, *batch])
    assert (str(raised.value), raised.value.offset) == (str(expected.value), 10 + bad_at)
    base = replay_batches(MetadataImage.EMPTY, read_decoded(tmp_path, 0, 10)).image
    before = list(base.acls.acls.items())
    with pytest.raises(ReplayError):
        replay_batches(base, read_decoded(tmp_path, 10))
    assert list(base.acls.acls.items()) == before  # nothing half-applied to the base
    assert replay_batches(base, [CommittedBatch(10, 1, 1, tuple(batch[:bad_at]))]).image is not None
