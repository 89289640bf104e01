"""Reading a generated KRaft metadata directory: segments, snapshot, control batches, skipped
record types, a torn tail, live appends, damage and holes."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from aclog.image.metadata import MetadataImage
from aclog.image.metadata_delta import MetadataDelta
from aclog.image.provenance import MetadataProvenance
from aclog.kraft import (
    KraftCorruptError,
    KraftError,
    KraftLayoutError,
    checkpoint_batch,
    is_kraft_path,
    kraft_replay_batches,
    list_checkpoints,
    newest_checkpoint,
    read_checkpoint,
    read_checkpoint_batches,
    read_kraft,
    read_kraft_segment,
)
from aclog.kraft.encoding import encode_record
from aclog.kraft.writer import data_batch, write_checkpoint
from aclog.records import LeaderChangeRecord, Record
from tests.kraft.layout import (
    ACL_B,
    ACL_C,
    ACL_D,
    BOB,
    T0,
    Layout,
    build_layout,
    kraft_records_for_replay,
)


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return build_layout(tmp_path / "__cluster_metadata-0")


def flat(layout_dir: Path, **kw: int) -> list[tuple[int, int, int, Record]]:
    return [tuple(r) for b in read_kraft(layout_dir, **kw) for r in b.records]  # type: ignore[misc]


def test_reads_every_aclog_record_in_order_with_offsets_epochs_and_times(layout: Layout) -> None:
    assert flat(layout.directory) == layout.log_records


def test_batches_keep_kraft_positions_and_count_what_was_skipped(layout: Layout) -> None:
    batches = list(read_kraft(layout.directory))
    assert [(b.base_offset, b.last_offset, b.epoch) for b in batches] == [
        (0, 0, 1),
        (1, 3, 1),
        (4, 6, 1),
        (7, 7, 1),
        (8, 8, 2),
        (9, 10, 2),
        (11, 12, 2),
        (13, 14, 2),
        (15, 15, 3),
        (16, 17, 3),
    ]
    assert batches[0].is_control and batches[0].records[0].record == LeaderChangeRecord(1, 1)
    assert batches[1].records == () and batches[1].skipped == {0: 1, 2: 1, 12: 1}
    assert batches[2].skipped == {2: 1}
    total: Counter[int] = Counter()
    for batch in batches:
        total.update(batch.skipped)
    assert total == {0: 1, 2: 2, 12: 2}
    assert batches[-1].source == layout.segments[-1]
    assert batches[-1].timestamp_ms == T0 + 31_000


def test_from_and_to_offsets_return_whole_batches(layout: Layout) -> None:
    batches = list(read_kraft(layout.directory, from_offset=10, to_offset=14))
    assert [(b.base_offset, b.last_offset) for b in batches] == [(9, 10), (11, 12), (13, 14)]
    assert [b.base_offset for b in read_kraft(layout.directory, from_offset=13)] == [13, 15, 16]


def test_torn_tail_ends_the_read_quietly_and_a_finished_append_is_read(layout: Layout) -> None:
    last = layout.segments[-1]
    assert flat(layout.directory)[-1][0] == 17
    # The writer finishes the batch it was appending: the reader now sees it.
    size = last.stat().st_size
    with open(last, "r+b") as file:
        file.truncate(size - layout.torn_bytes)
    extra = data_batch([encode_record(ACL_C)], 18, 3, T0 + 50_000)
    with open(last, "ab") as file:
        file.write(extra[:10])
        assert flat(layout.directory)[-1][0] == 17
        file.write(extra[10:])
    assert flat(layout.directory)[-1] == (18, 3, T0 + 50_000, ACL_C)


def test_bytes_appended_during_a_read_do_not_change_its_verdict(layout: Layout) -> None:
    """The scan judges the bytes after a torn tail only up to the size it took at the start:
    a writer that finishes the torn batch and appends another meanwhile (a live log) leaves a
    quiet end of the log, not "damage followed by valid batches"."""
    last = layout.segments[-1]
    size = last.stat().st_size
    with open(last, "r+b") as file:
        file.truncate(size - layout.torn_bytes)
    finished = data_batch([encode_record(ACL_C)], 18, 3, T0 + 50_000)
    following = data_batch([encode_record(ACL_D)], 19, 3, T0 + 60_000)
    with open(last, "ab") as file:
        file.write(finished[:40])  # torn when the reader takes the newest segment's size
    batches = read_kraft(layout.directory, 13)
    assert next(batches).base_offset == 13  # the scan of the newest segment has begun
    with open(last, "ab") as file:  # the write lands, and the next one after it
        file.write(finished[40:] + following)
    assert [b.last_offset for b in batches] == [15, 17]
    assert [b.last_offset for b in read_kraft(layout.directory, 13)] == [14, 15, 17, 18, 19]


def test_damage_before_valid_batches_is_corruption(layout: Layout) -> None:
    first = layout.segments[0]
    data = bytearray(first.read_bytes())
    data[120] ^= 0xFF  # inside the second batch: valid batches follow
    first.write_bytes(bytes(data))
    with pytest.raises(KraftCorruptError, match=r"00000000000000000000\.log at byte \d+"):
        list(read_kraft(layout.directory))


def test_torn_end_of_a_segment_that_is_not_the_last_is_corruption(layout: Layout) -> None:
    middle = layout.segments[1]
    middle.write_bytes(middle.read_bytes()[:-5])
    with pytest.raises(KraftCorruptError, match="not the last"):
        list(read_kraft(layout.directory))


def test_a_missing_segment_is_a_hole(layout: Layout) -> None:
    layout.segments[1].unlink()
    with pytest.raises(KraftCorruptError, match="hole"):
        list(read_kraft(layout.directory))


def test_reader_never_writes(layout: Layout) -> None:
    def state() -> dict[str, tuple[int, int]]:
        return {
            e.name: (e.stat().st_size, e.stat().st_mtime_ns) for e in os.scandir(layout.directory)
        }

    before = state()
    list(read_kraft(layout.directory))
    _, records = kraft_records_for_replay(layout.directory)
    list(records)
    read_checkpoint(layout.checkpoint)  # type: ignore[arg-type]
    assert state() == before


def test_checkpoints_are_listed_by_name_ignoring_part_and_deleted(layout: Layout) -> None:
    assert [c.path.name for c in list_checkpoints(layout.directory)] == [
        "00000000000000000013-0000000002.checkpoint"
    ]
    write_checkpoint(layout.directory, 0, 0, [], 0)  # a bootstrap snapshot
    assert newest_checkpoint(layout.directory).end_offset == 13  # type: ignore[union-attr]
    assert newest_checkpoint(layout.directory, at_or_below=12).end_offset == 13  # type: ignore[union-attr]
    assert newest_checkpoint(layout.directory, at_or_below=11).end_offset == 0  # type: ignore[union-attr]
    (layout.directory / f"{0:020d}-{0:010d}.checkpoint").unlink()
    assert newest_checkpoint(layout.directory, at_or_below=11) is None


def test_read_checkpoint(layout: Layout) -> None:
    end_offset, epoch, timestamp, records = read_checkpoint(layout.checkpoint)  # type: ignore[arg-type]
    assert (end_offset, epoch, timestamp) == (13, 2, layout.checkpoint_timestamp)
    assert records == [ACL_B]
    batches = list(read_checkpoint_batches(layout.checkpoint))  # type: ignore[arg-type]
    assert batches[0].is_control and batches[0].skipped_control == {3: 1, 5: 1}
    assert batches[-1].is_control and batches[-1].skipped_control == {4: 1}
    assert [b.base_offset for b in batches] == [0, 2, 4, 6]  # offsets restart at 0
    whole = checkpoint_batch(layout.checkpoint)  # type: ignore[arg-type]
    assert (whole.base_offset, whole.last_offset, whole.epoch) == (12, 12, 2)
    assert whole.from_checkpoint and [r.record for r in whole.records] == [ACL_B]


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("no footer", "no SnapshotFooterRecord"),
        ("cut", "runs past the end|partial batch header"),
        ("no header", "not a control batch"),
        ("empty", "empty"),
    ],
)
def test_damaged_checkpoints_fail(tmp_path: Path, damage: str, reason: str) -> None:
    values = [encode_record(ACL_B)]
    if damage == "no footer":
        path = write_checkpoint(tmp_path, 5, 1, values, 0, footer=False)
    elif damage == "cut":
        path = write_checkpoint(tmp_path, 5, 1, values, 0)
        path.write_bytes(path.read_bytes()[:-7])
    elif damage == "no header":
        path = tmp_path / f"{5:020d}-{1:010d}.checkpoint"
        path.write_bytes(data_batch(values, 0, 1, 0))
    else:
        path = tmp_path / f"{5:020d}-{1:010d}.checkpoint"
        path.write_bytes(b"")
    with pytest.raises(KraftError, match=reason):
        read_checkpoint(path)


def test_a_checkpoint_needs_its_name(tmp_path: Path) -> None:
    path = write_checkpoint(tmp_path, 5, 1, [], 0).rename(tmp_path / "snap.checkpoint")
    with pytest.raises(KraftError, match="not named like a KRaft snapshot"):
        read_checkpoint(path)


def replay(records: list[tuple[int, int, int, Record]], snapshot_end: int | None) -> MetadataImage:
    image = MetadataImage.EMPTY
    rest = records
    if snapshot_end is not None:
        delta = MetadataDelta(image, snapshot=True)
        snap = [r for r in records if r[0] == snapshot_end - 1]
        for offset, _, _, record in snap:
            delta.replay(record, offset)
        image = delta.apply(MetadataProvenance(snapshot_end - 1, 0, 0))
        rest = records[len(snap) :]
    delta = MetadataDelta(image)
    for offset, _, _, record in rest:
        delta.replay(record, offset)
    return delta.apply(MetadataProvenance(records[-1][0] if records else -1, 0, 0))


def test_replay_starts_from_the_snapshot_and_equals_a_full_replay(layout: Layout) -> None:
    info, records = kraft_records_for_replay(layout.directory)
    assert info is not None
    assert (info.end_offset, info.epoch, info.timestamp_ms) == (13, 2, layout.checkpoint_timestamp)
    got = [tuple(r) for r in records]
    snapshot_at = (12, 2, layout.checkpoint_timestamp)
    assert got[0] == (*snapshot_at, ACL_B)
    assert got[1:] == [r for r in layout.log_records if r[0] >= 13]
    from_snapshot = replay(got, 13)  # type: ignore[arg-type]
    full = replay(layout.log_records, None)
    assert from_snapshot.acls.acls == full.acls.acls
    assert from_snapshot.scram == full.scram
    assert set(from_snapshot.acls.acls.values()) == {ACL_C, ACL_D}
    assert set(from_snapshot.scram.users) == {"bob"}
    assert BOB.name in full.scram.users


def test_at_offset_picks_an_older_point_with_whole_batches(layout: Layout) -> None:
    info, records = kraft_records_for_replay(layout.directory, at_offset=11)
    assert info is None  # the snapshot covers offset 12, after the target
    assert [r.offset for r in records] == [0, 4, 6, 7, 8, 9, 10]  # 11..12 is one batch
    info, records = kraft_records_for_replay(layout.directory, at_offset=13)
    assert info is not None and info.end_offset == 13
    assert [r.offset for r in records] == [12]  # batch 13..14 is past the target


def test_at_time_picks_snapshot_and_batches_by_time(layout: Layout) -> None:
    info, records = kraft_records_for_replay(layout.directory, at_time_ms=T0 + 20_000)
    assert info is not None
    assert [r.offset for r in records] == [12, 13, 14]
    info, records = kraft_records_for_replay(layout.directory, at_time_ms=T0 + 10_000)
    assert info is None
    assert [r.offset for r in records][-1] == 8


def test_a_damaged_snapshot_falls_back_to_the_log_with_a_warning(layout: Layout) -> None:
    assert layout.checkpoint is not None
    layout.checkpoint.write_bytes(layout.checkpoint.read_bytes()[:-10])
    warnings: list[str] = []
    info, records = kraft_records_for_replay(layout.directory, on_warning=warnings.append)
    assert info is None
    assert [tuple(r) for r in records] == layout.log_records
    assert len(warnings) == 1 and "unusable" in warnings[0]


def test_log_starting_after_a_snapshot(layout: Layout) -> None:
    for segment in layout.segments[:2]:  # Kafka deleted the segments below the snapshot
        segment.unlink()
    info, records = kraft_records_for_replay(layout.directory)
    assert info is not None
    assert [r.offset for r in records] == [12, 13, 14, 15, 16, 17]
    info, records = kraft_records_for_replay(layout.directory, at_offset=12)
    assert [r.offset for r in records] == [12]
    with pytest.raises(KraftLayoutError, match="starts at offset 13"):
        kraft_records_for_replay(layout.directory, at_offset=11)
    assert layout.checkpoint is not None
    layout.checkpoint.write_bytes(layout.checkpoint.read_bytes()[:-10])
    with pytest.raises(KraftLayoutError, match=r"0000000002\.checkpoint is unusable"):
        kraft_replay_batches(layout.directory)
    layout.checkpoint.unlink()
    with pytest.raises(KraftLayoutError, match=r"starts at offset 13, but .* needs offsets from 0"):
        kraft_replay_batches(layout.directory)


def test_snapshot_only_directory(tmp_path: Path) -> None:
    write_checkpoint(tmp_path, 40, 4, [encode_record(ACL_B), encode_record(BOB)], 123)
    info, records = kraft_records_for_replay(tmp_path)
    assert info is not None and info.record_count == 2
    assert [r.record for r in records] == [ACL_B, BOB]


def test_detects_kraft_paths(layout: Layout, tmp_path: Path) -> None:
    assert is_kraft_path(layout.directory)
    assert is_kraft_path(layout.checkpoint)  # type: ignore[arg-type]
    renamed = tmp_path / "copy"
    shutil.copytree(layout.directory, renamed)
    assert is_kraft_path(renamed)  # holds .checkpoint files
    for checkpoint in renamed.glob("*.checkpoint"):
        checkpoint.unlink()
    assert not is_kraft_path(renamed)
    assert not is_kraft_path(layout.segments[0])
    assert not is_kraft_path(tmp_path / "missing")
    assert is_kraft_path(tmp_path / "x" / "__cluster_metadata-0") is False


def test_use_snapshots_false_replays_the_whole_log(layout: Layout) -> None:
    info, records = kraft_records_for_replay(layout.directory, use_snapshots=False)
    assert info is None
    assert [tuple(r) for r in records] == layout.log_records


def test_one_segment_read_on_its_own(layout: Layout) -> None:
    batches = list(read_kraft_segment(layout.segments[1]))
    assert [(b.base_offset, b.last_offset) for b in batches] == [(8, 8), (9, 10), (11, 12)]
    renamed = layout.segments[2].rename(layout.directory / "copy.bin")
    assert [b.base_offset for b in read_kraft_segment(renamed)] == [13, 15, 16]


def test_gzip_batches_are_read(tmp_path: Path) -> None:
    values = [encode_record(ACL_B), encode_record(BOB), encode_record(ACL_C)]
    (tmp_path / f"{0:020d}.log").write_bytes(data_batch(values, 0, 1, 9, compression_type=1))
    (batch,) = read_kraft(tmp_path)
    assert [r.record for r in batch.records] == [ACL_B, BOB, ACL_C]


def test_check_newest_tail_warns_as_a_replay_to_the_point_would(layout: Layout) -> None:
    from aclog.kraft import check_newest_tail, kraft_replay_source

    def warnings(**point: int) -> tuple[list[str], list[str]]:
        checked: list[str] = []
        check_newest_tail(layout.directory, checked.append, **point)
        replayed: list[str] = []
        list(kraft_replay_source(layout.directory, on_warning=replayed.append, **point).batches)
        return checked, replayed

    assert warnings() == ([], [])  # a torn tail: quiet
    last = layout.segments[-1]
    with open(last, "r+b") as file:
        file.truncate(last.stat().st_size - layout.torn_bytes)
    spoiled = bytearray(last.read_bytes())
    spoiled[-3] ^= 0xFF  # the last batch (16..17) is whole but fails its CRC
    last.write_bytes(bytes(spoiled))
    for point in ({}, {"at_offset": 15}, {"at_offset": 99}, {"at_time_ms": T0 + 30_000}):
        checked, replayed = warnings(**point)
        assert checked == replayed and len(checked) == 1, point
        assert "whole but fails its CRC-32C" in checked[0]
    for point in ({"at_offset": 14}, {"at_time_ms": T0 + 20_000}):
        assert warnings(**point) == ([], []), point


@pytest.mark.parametrize("byte", [70, 11])  # a record byte; the low byte of its length
def test_check_newest_tail_leaves_damage_before_valid_batches_to_the_reader(
    tmp_path: Path, byte: int
) -> None:
    from aclog.kraft import check_newest_tail

    layout = build_layout(tmp_path / "__cluster_metadata-0", torn_tail=False)
    newest = layout.segments[-1]
    data = bytearray(newest.read_bytes())
    data[byte] ^= 0xFF  # in the segment's first batch (13..14); three valid batches follow
    newest.write_bytes(bytes(data))
    told: list[str] = []
    check_newest_tail(layout.directory, told.append)
    assert told == []
    with pytest.raises(KraftCorruptError, match="damage followed by valid batches"):
        list(read_kraft(layout.directory))
