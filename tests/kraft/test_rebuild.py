"""Rebuilding an image from a KRaft metadata directory: the snapshot restated, then the log
batches through the one replay loop, each record at its own KRaft offset even where the batch
held records aclog skips."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import pytest

from aclog.image import MetadataDelta, MetadataImage, MetadataProvenance, ReplayError
from aclog.kraft.encoding import encode_record
from aclog.kraft.writer import LogBuilder, write_checkpoint
from aclog.records import Record, RemoveAccessControlEntryRecord
from aclog.replay import DecodedBatch, rebuild_image
from tests.kraft.layout import (
    ACL_A,
    ACL_B,
    ACL_C,
    ACL_D,
    FEATURE,
    T0,
    TOPIC,
    Layout,
    acl,
    build_layout,
)


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return build_layout(tmp_path / "__cluster_metadata-0")


def test_rebuild_from_the_snapshot_and_the_batches_after_it(layout: Layout) -> None:
    told: list[DecodedBatch] = []
    rebuilt = rebuild_image(layout.directory, kraft=True, on_batch=told.append)
    assert rebuilt.kraft_checkpoint is not None and rebuilt.kraft_checkpoint.end_offset == 13
    assert set(rebuilt.image.acls.acls.values()) == {ACL_C, ACL_D}
    assert set(rebuilt.image.scram.users) == {"bob"}
    assert (rebuilt.next_offset, rebuilt.image.provenance.epoch) == (18, 3)
    assert rebuilt.records_replayed == 5  # offsets 13..17: skipped records are not counted
    assert [(b.base_offset, b.last_offset) for b in told] == [(13, 14), (15, 15), (16, 17)]
    assert [e.offset for b in told for e in b.entries] == [13, 14, 15, 16, 17]


def test_full_replay_counts_the_records_aclog_tracks(layout: Layout) -> None:
    rebuilt = rebuild_image(layout.directory, kraft=True, use_snapshots=False)
    assert rebuilt.kraft_checkpoint is None
    assert rebuilt.records_replayed == len(layout.log_records)
    from_snapshot = rebuild_image(layout.directory, kraft=True)
    assert rebuilt.image == from_snapshot.image


def test_a_snapshot_inside_a_batch_replays_only_the_records_after_it(layout: Layout) -> None:
    # The state after offset 13 (end offset 14): the batch 13..14 straddles it.
    write_checkpoint(layout.directory, 14, 2, [encode_record(ACL_B), encode_record(ACL_C)], T0)
    rebuilt = rebuild_image(layout.directory, kraft=True)
    assert rebuilt.kraft_checkpoint is not None and rebuilt.kraft_checkpoint.end_offset == 14
    assert set(rebuilt.image.acls.acls.values()) == {ACL_C, ACL_D}
    assert rebuilt.records_replayed == 4  # 14..17
    assert rebuilt.image == rebuild_image(layout.directory, kraft=True, use_snapshots=False).image


@pytest.mark.parametrize("bulk", [False, True], ids=["small batch", "bulk batch"])
def test_a_replay_error_names_the_records_own_offset_past_skipped_ones(
    tmp_path: Path, bulk: bool
) -> None:
    log = LogBuilder(tmp_path)
    filler = [acl(100 + i, f"filler-{i}") for i in range(10 if bulk else 0)]
    values = [TOPIC, encode_record(ACL_A), FEATURE, *map(encode_record, filler), TOPIC]
    log.data([*values, encode_record(RemoveAccessControlEntryRecord(ACL_B.id))], 1, T0)
    log.flush()
    with pytest.raises(ReplayError, match="cannot remove ACL id") as caught:
        rebuild_image(tmp_path, kraft=True)
    assert caught.value.offset == len(values)


def test_a_duplicate_after_skipped_records_names_its_offset(tmp_path: Path) -> None:
    log = LogBuilder(tmp_path)
    log.records([ACL_A], 1, T0)  # offset 0
    twin = dataclasses.replace(ACL_A, id=uuid.UUID(int=99))
    log.data([TOPIC, FEATURE, TOPIC, encode_record(twin)], 1, T0 + 1)  # 1..4
    log.flush()
    with pytest.raises(ReplayError, match="duplicates the stored ACL") as caught:
        rebuild_image(tmp_path, kraft=True)
    assert caught.value.offset == 4


def test_big_batches_rebuild_the_state_a_one_by_one_replay_gives(tmp_path: Path) -> None:
    # Batches of 512 records or more decode through the numpy path (aclog/kraft/acl_batch.py).
    snapshot = [acl(1_000 + i, f"t{i % 300}", f"User:u{i % 7}") for i in range(1_500)]
    tail: list[Record] = [acl(5_000 + i, f"n{i}", "User:ü") for i in range(600)]
    for i in range(0, 600, 10):
        tail[i] = RemoveAccessControlEntryRecord(snapshot[i].id)
    write_checkpoint(tmp_path, 1_500, 1, [encode_record(r) for r in snapshot], T0, batch_size=750)
    log = LogBuilder(tmp_path)
    log.start_at(1_500)
    log.records(tail, 1, T0 + 1)
    log.flush()
    rebuilt = rebuild_image(tmp_path, kraft=True)
    delta = MetadataDelta(MetadataImage.EMPTY)
    for offset, record in enumerate([*snapshot, *tail]):
        delta.replay(record, offset)
    expected = delta.apply(MetadataProvenance(2_099, 1, T0 + 1))
    assert dict(rebuilt.image.acls.acls.items()) == dict(expected.acls.acls.items())
    assert rebuilt.records_replayed == 600 and rebuilt.next_offset == 2_100
