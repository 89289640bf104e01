"""Rebuilding an image from a KRaft metadata directory: the snapshot restated, then the log
batches through the one replay loop, each record at its own KRaft offset even where the batch
held records aclog skips."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import pytest

from aclog.image import ReplayError
from aclog.kraft.writer import LogBuilder, encode_record, write_checkpoint
from aclog.records import RemoveAccessControlEntryRecord
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
