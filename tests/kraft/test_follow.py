"""Following a live KRaft directory (:mod:`aclog.kraft.follow`, :mod:`aclog.kraft.tail`) on real
files: new batches are imported with their positions, a restart resumes with no duplicate and
no gap, a batch being written is waited for, and damage, truncation and rolling stop the follow
with a clear error after the last good batch. The KRaft directory is never written."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aclog.kraft.importer
from aclog.controller import RecordAdmission
from aclog.image.metadata import MetadataImage
from aclog.image.metadata_delta import MetadataDelta
from aclog.image.provenance import MetadataProvenance
from aclog.kraft import (
    BatchPosition,
    ImportTargetError,
    KraftCorruptError,
    KraftFollow,
    KraftLayoutError,
    KraftRolledError,
    KraftTail,
    KraftTruncatedError,
    SnapshotPosition,
    position_of,
)
from aclog.log import SegmentedLog
from aclog.records import (
    NoOpRecord,
    Record,
    RemoveUserScramCredentialRecord,
    RequestContextRecord,
    encode,
)
from aclog.replay import kraft_reconcile, rebuild_image, reconcile_records
from aclog.replay.stream import DecodedBatch, read_decoded
from tests.kraft.layout import scram
from tests.kraft.live import LiveKraft, acl, remove


def checked(target: Path) -> Callable[[], RecordAdmission]:
    """The controller's checks on the state of ``target``, as ``aclog import`` passes them."""
    return lambda: RecordAdmission.of_directory(target)


def follow(kraft: LiveKraft, target: Path, polls: int = 1) -> KraftFollow:
    follower = KraftFollow(kraft.directory, target, 0.01, checked(target), max_polls=polls)
    follower.run()
    return follower


def imported(target: Path) -> list[Record]:
    """The records imported into ``target``, without their request contexts."""
    return [
        r
        for b in read_decoded(target)
        for r in b.records
        if not isinstance(r, RequestContextRecord)
    ]


def batches(target: Path) -> list[DecodedBatch]:
    return list(read_decoded(target)) if target.exists() else []


def expected(kraft: LiveKraft) -> list[Record]:
    return [record for _, record in kraft.records]


def test_follow_imports_then_picks_up_new_batches(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1)], other=2)
    kraft.append([], other=3)  # a batch with nothing aclog tracks writes nothing
    target = tmp_path / "aclog"
    follower = KraftFollow(kraft.directory, target, 0.01, checked(target), max_polls=3)
    seen: list[tuple[int, int]] = []

    def on_append(appended: object) -> None:
        position = appended.position  # type: ignore[attr-defined]
        seen.append((position.base_offset, position.last_offset))
        if len(seen) == 2:  # while following: KRaft commits two more batches
            kraft.append([acl(2, "payments")])
            kraft.append([remove(acl(1)), NoOpRecord()])

    follower.on_append = on_append
    follower.run()
    assert imported(target) == expected(kraft)
    assert seen == [(0, 0), (1, 3), (7, 7), (8, 9)]
    last = batches(target)[-1]
    assert position_of(last.author) == BatchPosition(8, 9, 1)
    assert last.epoch == 1 and last.timestamp_ms == kraft.clock
    assert follower.report.kraft_next_offset == kraft.next_offset


def test_restart_resumes_without_duplicate_or_gap(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1)])
    target = tmp_path / "aclog"
    follow(kraft, target)
    kraft.append([acl(2)], other=1)
    kraft.append([], other=2)
    follow(kraft, target)
    follow(kraft, target)  # nothing new: nothing written
    kraft.append([acl(3), remove(acl(2))])
    follow(kraft, target)
    assert imported(target) == expected(kraft)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1))
def test_any_crash_and_restart_imports_each_change_once(
    tmp_path_factory: pytest.TempPathFactory, seed: int
) -> None:
    """Seeded runs: batches (some with nothing aclog tracks, some rolled into new segments)
    arrive between restarts, and a crash loses a random number of the last aclog batches
    (cut from the log as recovery cuts a torn tail); the result is always every change once."""
    rng = random.Random(seed)
    tmp = tmp_path_factory.mktemp("crash")
    kraft = LiveKraft(tmp)
    target = tmp / "aclog"
    n = 1
    for _ in range(rng.randint(1, 6)):
        for _ in range(rng.randint(0, 4)):
            records: list[Record] = [acl(n := n + 1) for _ in range(rng.randint(0, 2))]
            if rng.random() < 0.3:
                records.append(NoOpRecord())
            kraft.append(records, other=rng.randint(0, 2) if records else rng.randint(1, 2))
            if rng.random() < 0.2:
                kraft.roll()
        follow(kraft, target, polls=rng.randint(1, 2))
        held = batches(target)
        if held and rng.random() < 0.5:  # a crash lost the newest batches
            keep = rng.randint(0, len(held) - 1)
            with SegmentedLog(target) as log:
                log.truncate_to(held[keep].base_offset)
    follow(kraft, target)
    assert imported(target) == expected(kraft)


def test_a_half_written_batch_is_waited_for(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    tail = KraftTail.open(kraft.directory, 0)
    assert [b.base_offset for b in tail.poll()] == [0]
    raw = kraft.batch([acl(1)])
    kraft.append_bytes(raw[:10])  # a partial header, then a partial body
    assert list(tail.poll()) == []
    kraft.append_bytes(raw[10:70])
    assert list(tail.poll()) == []
    kraft.append_bytes(raw[70:-1])
    assert list(tail.poll()) == []
    kraft.append_bytes(raw[-1:])
    kraft.next_offset += 1
    (batch,) = tail.poll()
    assert [r.record for r in batch.records] == [acl(1)]


def _damaged(raw: bytes) -> bytes:
    """``raw`` with one byte of a record changed: complete, but its CRC no longer matches."""
    spoiled = bytearray(raw)
    spoiled[-3] ^= 0xFF
    return bytes(spoiled)


def test_a_damaged_complete_batch_stops_after_the_last_good_one(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1)])
    target = tmp_path / "aclog"
    follow(kraft, target)
    before = [(b.base_offset, b.records) for b in batches(target)]
    kraft.append([acl(2)])  # good: imported
    kraft.append_bytes(_damaged(kraft.batch([acl(3)])))
    with pytest.raises(KraftCorruptError, match=r"CRC-32C mismatch .*still bad at the next poll"):
        follow(kraft, target, polls=3)
    after = batches(target)
    assert [(b.base_offset, b.records) for b in after[: len(before)]] == before
    assert imported(target) == [*expected(kraft)]  # acl(2) is in, acl(3) is not
    assert position_of(after[-1].author) == BatchPosition(2, 2, 1)


@pytest.mark.parametrize("more_after", [False, True])
def test_damage_to_the_batch_imported_last_is_damage_at_resume_not_truncation(
    tmp_path: Path, more_after: bool
) -> None:
    """A restart finds the batch it stopped after with bad bytes: the disk changed it since
    (it was read whole and checked), so the message says damage, never "a new leader"."""
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1)])
    target = tmp_path / "aclog"
    follow(kraft, target)
    end = batches(target)[-1].last_offset
    raw = kraft.segment.read_bytes()
    kraft.segment.write_bytes(_damaged(raw))
    if more_after:
        kraft.append([acl(2)])
    with pytest.raises(KraftCorruptError, match=r"CRC-32C mismatch in KRaft batch 1\.\.1, which"):
        follow(kraft, target)
    assert batches(target)[-1].last_offset == end  # nothing written


def test_damage_followed_by_valid_batches_is_damage_at_the_second_look(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    tail = KraftTail.open(kraft.directory, 0)
    list(tail.poll())
    bad = _damaged(kraft.batch([acl(1)]))
    kraft.append_bytes(bad)
    kraft.next_offset += 1
    kraft.append([acl(2)])
    assert list(tail.poll()) == []
    with pytest.raises(KraftCorruptError, match="still bad at the next poll"):
        list(tail.poll())


def test_damage_at_the_end_of_an_older_segment_stops_at_once(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    tail = KraftTail.open(kraft.directory, 0)
    list(tail.poll())
    kraft.append_bytes(kraft.batch([acl(1)])[:30])  # never completed, yet a segment follows
    kraft.next_offset += 1
    kraft.roll()
    kraft.append([acl(2)])
    with pytest.raises(KraftCorruptError, match="at the end of a segment that is not the last"):
        list(tail.poll())


def test_a_segment_that_shrinks_is_truncation(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1)])
    tail = KraftTail.open(kraft.directory, 0)
    list(tail.poll())
    kraft.truncate_segment(kraft.segment.stat().st_size - 5)
    with pytest.raises(KraftTruncatedError, match=r"shrank .* below the .* bytes already imported"):
        list(tail.poll())


def test_a_batch_replaced_by_a_new_leader_is_truncation(tmp_path: Path) -> None:
    """A new leader truncates the uncommitted batch 1..1 and writes its own with epoch 2."""
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1)])
    target = tmp_path / "aclog"
    follow(kraft, target)
    kraft.truncate_segment(kraft.segment.stat().st_size - len(kraft.batch([acl(1)])))
    kraft.next_offset, kraft.epoch = 1, 2
    kraft.append([acl(7)], other=3)
    end = batches(target)[-1].last_offset
    with pytest.raises(KraftTruncatedError, match=r"batch 1\.\.1 \(epoch 1\) .* now has epoch 2"):
        follow(kraft, target)
    assert batches(target)[-1].last_offset == end  # nothing written
    # While following, the same replacement is caught by the header check.
    kraft2 = LiveKraft(tmp_path / "two")
    kraft2.append([acl(1)])
    tail = KraftTail.open(kraft2.directory, 0)
    list(tail.poll())
    size = len(kraft2.batch([acl(1)]))
    kraft2.truncate_segment(kraft2.segment.stat().st_size - size)
    kraft2.next_offset, kraft2.epoch = 1, 2
    kraft2.append([acl(8)])
    with pytest.raises(KraftTruncatedError, match="a new leader replaced"):
        list(tail.poll())


def test_new_segments_are_followed_and_a_roll_past_the_position_is_an_error(
    tmp_path: Path,
) -> None:
    kraft = LiveKraft(tmp_path)
    target = tmp_path / "aclog"
    kraft.append([acl(1)])
    follow(kraft, target)
    kraft.roll()
    kraft.append([acl(2)])
    kraft.roll()
    kraft.append([acl(3)])
    follow(kraft, target)
    assert imported(target) == expected(kraft)
    # Stopped; meanwhile Kafka takes a snapshot and deletes the segments below it.
    kraft.append([acl(4)])
    kraft.roll()
    kraft.checkpoint([acl(1), acl(2), acl(3), acl(4)])
    kraft.append([acl(5)])
    kraft.delete_segments_below(kraft.next_offset - 1)
    end = batches(target)[-1].last_offset
    with pytest.raises(KraftRolledError, match="rolled past offset 4, the next one to import"):
        follow(kraft, target)
    assert batches(target)[-1].last_offset == end


def test_a_segment_deleted_while_followed_before_it_was_read(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    tail = KraftTail.open(kraft.directory, 0)
    list(tail.poll())
    kraft.append([acl(1)])
    kraft.roll()
    kraft.append([acl(2)])
    kraft.delete_segments_below(kraft.next_offset - 1)
    with pytest.raises(KraftRolledError, match="was deleted before it was read to its end"):
        list(tail.poll())


def test_a_snapshot_interrupted_between_its_batches_resumes_inside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(aclog.kraft.importer, "MAX_BATCH_RECORDS", 3)  # 2 records a batch
    kraft = LiveKraft(tmp_path)
    state = [acl(n) for n in range(1, 6)]
    kraft.append(state)
    kraft.checkpoint(state)
    kraft.roll()
    kraft.append([acl(9)])
    kraft.delete_segments_below(kraft.next_offset - 1)
    target = tmp_path / "aclog"
    follow(kraft, target)
    assert imported(target) == [*state, acl(9)]
    held = batches(target)
    assert len(held) == 4  # the snapshot in 3 batches, then 6..6
    with SegmentedLog(target) as log:  # a crash after the snapshot's first batch
        log.truncate_to(held[1].base_offset)
    follow(kraft, target)
    assert imported(target) == [*state, acl(9)]


def test_refuses_a_target_holding_other_data(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1)])
    other = tmp_path / "other"
    with SegmentedLog(other) as log:  # a change made with aclog itself
        context = RequestContextRecord("User:bob", "local", "aclog", 1, "aclog acls add")
        log.append([encode(context), encode(acl(5))], 1)
    with pytest.raises(ImportTargetError, match="not imported from KRaft"):
        follow(kraft, other)
    files = tmp_path / "files"
    files.mkdir()
    (files / "notes.txt").write_text("mine")
    with pytest.raises(ImportTargetError, match="holds files but no aclog log"):
        follow(kraft, files)
    target = tmp_path / "aclog"
    follow(kraft, target)
    second = LiveKraft(tmp_path / "second")
    with pytest.raises(ImportTargetError, match=r"was imported from .*, not from"):
        follow(second, target)
    with pytest.raises(ImportTargetError, match="inside the KRaft directory"):
        follow(kraft, kraft.directory / "aclog")


def test_the_kraft_directory_is_only_read(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1)])
    kraft.checkpoint([acl(1)])
    kraft.append_bytes(kraft.batch([acl(2)])[:30])  # a write in progress
    before = kraft.fingerprint()
    follow(kraft, tmp_path / "aclog", polls=3)
    assert kraft.fingerprint() == before  # byte-identical, no lock or side file


def test_the_newest_segment_removed_is_truncation(tmp_path: Path) -> None:
    """A new leader truncating below the active segment's base removes that segment."""
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1)])
    kraft.roll()
    kraft.append([acl(2)])
    tail = KraftTail.open(kraft.directory, 0)
    assert [b.base_offset for b in tail.poll()] == [0, 1, 2]
    kraft.segment.unlink()
    with pytest.raises(KraftTruncatedError, match="removed while it was the newest segment"):
        list(tail.poll())


def test_a_first_start_that_fails_leaves_no_directory(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1)])
    kraft.roll()
    kraft.append([acl(2)])
    kraft.delete_segments_below(2)  # no snapshot covers offsets 0..1
    target = tmp_path / "aclog"
    with pytest.raises(KraftLayoutError, match="starts at offset 2"):
        follow(kraft, target)
    assert not target.exists()


def test_a_position_mark_lets_a_restart_skip_deleted_segments_without_changes(
    tmp_path: Path,
) -> None:
    """ACLs change rarely: the last change is in a segment Kafka deletes after a snapshot, but
    the follow read past it and marked its place, so a restart resumes."""
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1)])
    kraft.append([], other=2)  # 2..3: nothing aclog tracks
    kraft.roll()
    kraft.append([], other=1)  # 4: in a new segment
    target = tmp_path / "aclog"
    follow(kraft, target)
    marks = [position_of(b.author) for b in batches(target)][-2:]
    assert marks == [BatchPosition(2, 3, 1, mark=True), BatchPosition(4, 4, 1, mark=True)]
    assert [len(b.records) for b in batches(target)][-2:] == [1, 1]  # the context alone
    follow(kraft, target)  # nothing read since: no new mark
    assert len(batches(target)) == 4
    kraft.checkpoint([acl(1)])
    kraft.roll()
    kraft.append([acl(2)])
    kraft.delete_segments_below(kraft.next_offset - 1)  # the segment holding acl(1) is gone
    follow(kraft, target)
    assert imported(target) == expected(kraft)


@pytest.mark.parametrize("seed", range(4))
def test_stress_a_writer_appending_in_pieces_while_followed(tmp_path: Path, seed: int) -> None:
    """A controller thread appends batches a few bytes at a time and rolls segments while the
    follow polls every 5 ms: every change arrives once, in order, whatever the interleaving."""
    rng = random.Random(seed)
    kraft = LiveKraft(tmp_path)
    target = tmp_path / "aclog"
    follower = KraftFollow(kraft.directory, target, 0.005, checked(target))

    def controller() -> None:
        for n in range(2, 40):
            records: list[Record] = [acl(n)] if rng.random() < 0.7 else []
            raw = kraft.batch(records, other=0 if records else 1)
            cuts = sorted(rng.sample(range(1, len(raw)), rng.randint(0, 3)))
            for start, end in zip([0, *cuts], [*cuts, len(raw)], strict=True):
                kraft.append_bytes(raw[start:end])
                time.sleep(rng.random() / 500)
            kraft.records += [(kraft.next_offset, r) for r in records]
            kraft.next_offset += max(len(records), 1)
            if rng.random() < 0.1:
                kraft.roll()

    writer = threading.Thread(target=controller)
    running = threading.Thread(target=follower.run)
    running.start()
    writer.start()
    writer.join(timeout=60)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and follower.report.kraft_next_offset < kraft.next_offset:
        time.sleep(0.01)
    follower.stop.set()
    running.join(timeout=30)
    assert not running.is_alive()
    assert imported(target) == expected(kraft)


def test_zeros_after_the_last_batch_are_space_not_yet_written(tmp_path: Path) -> None:
    """With log.preallocate, a segment ends in zeros until batches fill it."""
    kraft = LiveKraft(tmp_path)
    tail = KraftTail.open(kraft.directory, 0)
    list(tail.poll())
    end = kraft.segment.stat().st_size
    kraft.append_bytes(bytes(4096))
    assert list(tail.poll()) == [] and list(tail.poll()) == []  # waited for, twice
    raw = kraft.batch([acl(1)])
    with open(kraft.segment, "r+b") as file:  # Kafka writes over the preallocated zeros
        file.seek(end)
        file.write(raw)
    (batch,) = tail.poll()
    assert [r.record for r in batch.records] == [acl(1)]


def test_reconcile_records_the_net_effect_of_deleted_segments(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path)
    kraft.append([acl(1), scram("bob")])
    target = tmp_path / "aclog"
    follow(kraft, target)
    # Never read: Kafka snapshots past these and deletes their segment.
    kraft.append([acl(2, "payments"), remove(acl(1))])
    kraft.append([scram("alice"), RemoveUserScramCredentialRecord("bob", scram("bob").mechanism)])
    kraft.roll()
    snapshot = kraft.checkpoint([acl(2, "payments"), scram("alice")])
    kraft.append([acl(3, "refunds")])
    kraft.delete_segments_below(kraft.next_offset - 1)
    with pytest.raises(KraftRolledError):
        follow(kraft, target)

    def reconcile(end: int) -> list[Record]:
        return kraft_reconcile(target, kraft.directory, end)

    follower = KraftFollow(
        kraft.directory, target, 0.01, checked(target), max_polls=1, reconcile=reconcile
    )
    follower.run()
    reconciled, last = batches(target)[-2:]
    assert position_of(reconciled.author) == SnapshotPosition.reconciled(snapshot.name, 3)
    assert list(reconciled.records[1:]) == [
        remove(acl(1)),
        acl(2, "payments"),
        scram("alice"),
        RemoveUserScramCredentialRecord("bob", scram("bob").mechanism),
    ]
    assert reconciled.epoch == 1 and reconciled.timestamp_ms == kraft.clock - 1000
    assert list(last.records[1:]) == [acl(3, "refunds")]
    ours, theirs = rebuild_image(target).image, rebuild_image(kraft.directory, kraft=True).image
    assert ours.acls.acls == theirs.acls.acls and ours.scram == theirs.scram
    follow(kraft, target)  # resumes normally after it
    assert batches(target)[-1].base_offset == last.base_offset


ACL_POOL = [acl(n, f"t{n % 3}", f"User:u{n % 2}") for n in range(1, 7)]
USER_POOL = [scram(name, iterations) for name in ("a", "b", "c") for iterations in (4096, 8192)]


def _image(acls: list[int], users: dict[str, int]) -> MetadataImage:
    delta = MetadataDelta(MetadataImage.EMPTY)
    records: list[Record] = [ACL_POOL[i] for i in sorted(set(acls))]
    records += [USER_POOL[i] for _, i in sorted(users.items())]
    for offset, record in enumerate(records):
        delta.replay(record, offset)
    return delta.apply(MetadataProvenance(len(records), 1, 0))


states = st.tuples(
    st.lists(st.integers(0, len(ACL_POOL) - 1), max_size=6),
    st.dictionaries(st.sampled_from("abc"), st.integers(0, len(USER_POOL) - 1), max_size=3),
)


@settings(max_examples=60, deadline=None)
@given(held=states, wanted=states)
def test_reconcile_records_take_any_state_to_any_other(
    held: tuple[list[int], dict[str, int]], wanted: tuple[list[int], dict[str, int]]
) -> None:
    before, after = _image(*held), _image(*wanted)
    delta = MetadataDelta(before)
    for offset, record in enumerate(reconcile_records(before, after), start=100):
        delta.replay(record, offset)
    result = delta.apply(MetadataProvenance(200, 1, 0))
    assert result.acls.acls == after.acls.acls
    assert result.scram == after.scram
