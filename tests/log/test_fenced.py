"""Readers end a segment where the next begins: a deposed leader's appends after that point are
fenced (never read, never damage), and ``fenced_tails`` finds them (README, "Epoch fencing")."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.log import CorruptLogError, SegmentedLog, fenced_tails
from aclog.log.check import check_batches
from aclog.log.claims import Fence, claim_epoch, publish_fence
from aclog.log.index import OffsetIndex, index_path
from aclog.log.reader import LogTail, read_batches
from aclog.log.segment import list_segments
from aclog.replay.verify import verify_directory
from tests.log.fenced_log import fenced_log

OLD = [[b"a", b"b"], [b"c"]]
NEW = [[b"new-1"], [b"new-2", b"new-3"]]


def _read(directory: Path, **kwargs: bool) -> list[tuple[int, int, tuple[bytes, ...]]]:
    return [(b.base_offset, b.epoch, b.values) for b in read_batches(directory, **kwargs)]


EXPECTED = [
    (0, 1, (b"a", b"b")),
    (2, 1, (b"c",)),
    (3, 2, (b"new-1",)),
    (4, 2, (b"new-2", b"new-3")),
]


def test_a_read_skips_the_stale_batches_after_the_next_segments_base(tmp_path: Path) -> None:
    directory = tmp_path / "log"
    fenced_log(directory, OLD, [[b"stale-1"], [b"stale-2"]], NEW)
    assert _read(directory, strict=True) == EXPECTED
    assert _read(directory) == EXPECTED
    assert check_batches(directory) > 0  # the scrub finds nothing wrong


def test_half_a_stale_batch_is_fenced_not_damage(tmp_path: Path) -> None:
    directory = tmp_path / "log"
    fenced_log(directory, OLD, [[b"stale-1"]], NEW)
    segment = list_segments(directory)[0][1]
    with segment.open("r+b") as file:
        file.truncate(segment.stat().st_size - 5)  # the deposed leader froze mid-write
    assert _read(directory, strict=True) == EXPECTED
    check_batches(directory)
    (tail,) = fenced_tails(directory)
    assert (tail.segment, tail.end, tail.epoch) == (segment, 3, 1)
    assert "fenced" in str(tail) and "not part of the log" in str(tail)


def test_fenced_tails_counts_the_stale_bytes(tmp_path: Path) -> None:
    directory = tmp_path / "log"
    size = fenced_log(directory, OLD, [[b"stale-1"], [b"stale-2", b"x"]], NEW)
    (tail,) = fenced_tails(directory)
    assert tail.size == size
    assert tail.position + size == tail.segment.stat().st_size


def test_no_fenced_tails_in_a_log_rolled_as_usual(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, segment_bytes=200, fsync=False) as log:
        for i in range(20):
            log.append([b"%d" % i * 20], 1)
    assert len(list_segments(tmp_path)) > 2
    assert fenced_tails(tmp_path) == []


def test_damage_before_the_segments_end_is_still_damage(tmp_path: Path) -> None:
    directory = tmp_path / "log"
    fenced_log(directory, OLD, [[b"stale-1"]], NEW)
    segment = list_segments(directory)[0][1]
    data = bytearray(segment.read_bytes())
    data[70] ^= 0xFF  # inside the first batch
    segment.write_bytes(bytes(data))
    with pytest.raises(CorruptLogError):
        list(read_batches(directory))
    with pytest.raises(CorruptLogError):
        check_batches(directory)


def test_a_batch_running_past_the_next_segments_base_is_damage(tmp_path: Path) -> None:
    directory = tmp_path / "log"
    fenced_log(directory, [[b"a"]], [], [[b"new"]])
    # Segment 0 ends at offset 1, yet holds a batch of offsets 0..1.
    scratch = tmp_path / "wide"
    with SegmentedLog(scratch, fsync=False) as log:
        log.append([b"a", b"b"], 1, timestamp_ms=1)
    list_segments(directory)[0][1].write_bytes(list_segments(scratch)[0][1].read_bytes())
    with pytest.raises(CorruptLogError, match="runs past 1, where the next segment begins"):
        list(read_batches(directory))
    with pytest.raises(CorruptLogError, match="runs past 1"):
        check_batches(directory)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=4), st.integers(0, 6))
def test_a_tail_reads_what_a_fresh_read_does_from_any_offset(
    tmp_path_factory: pytest.TempPathFactory, stale: list[int], start: int
) -> None:
    directory = tmp_path_factory.mktemp("fenced") / "log"
    fenced_log(directory, OLD, [[b"s"] * n for n in stale], NEW)
    tail = LogTail(directory)
    got = [(b.base_offset, b.epoch, b.values) for b in tail.read(start)]
    assert got == [b for b in EXPECTED if b[0] + len(b[2]) > start]
    with SegmentedLog(directory, fsync=False) as log:  # the new leader writes on
        log.append([b"new-4"], 2, timestamp_ms=4)
    end = got[-1][0] + len(got[-1][2]) if got else start
    assert [(b.base_offset, b.values) for b in tail.read(end)] == [(6, (b"new-4",))]


def test_index_entries_the_deposed_leader_wrote_for_its_stale_batches_change_nothing(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "log"
    big = [[bytes([65 + i]) * 6000] for i in range(4)]  # each past an index interval
    size = fenced_log(directory, OLD, big, NEW)
    scratch = list_segments(tmp_path / "log-stale")[0][1]
    segment = list_segments(directory)[0][1]
    index = index_path(segment)
    index.write_bytes(index_path(scratch).read_bytes())  # as the deposed leader left it
    assert OffsetIndex.load(segment, 0).floor(5)[0] >= 3  # entries for fenced batches
    assert _read(directory, strict=True) == EXPECTED
    assert [b.base_offset for b in read_batches(directory, 2)] == [2, 3, 4]
    check_batches(directory)
    (tail,) = fenced_tails(directory)
    assert tail.size == size


def _fenced_before_the_new_segment(directory: Path, stale: list[list[bytes]]) -> int:
    """Epoch 1 wrote OLD (offsets 0..2) and, deposed, ``stale`` after them; epoch 2 was claimed
    and fenced at 3, and its segment does not exist yet. Returns the stale batches' byte."""
    with SegmentedLog(directory, fsync=False) as log:
        for values in OLD:
            log.append(values, 1, timestamp_ms=1)
        position = log._active.size
        for values in stale:
            log.append(values, 1, timestamp_ms=2)
    assert claim_epoch(directory, 2, 2)
    assert publish_fence(directory, 2, 3) == Fence(2, 3)
    return position


def test_a_fence_ends_the_newest_segment_before_the_new_leaders_segment_exists(
    tmp_path: Path,
) -> None:
    """The window between a claimer's fence and its segment: the deposed leader's batches at
    the fence and after are fenced already (never read, never damage); verify warns naming
    the file and the byte."""
    position = _fenced_before_the_new_segment(tmp_path, [[b"stale-1"], [b"stale-2"]])
    assert _read(tmp_path, strict=True) == EXPECTED[:2]
    assert [b.base_offset for b in LogTail(tmp_path).read(0)] == [0, 2]
    check_batches(tmp_path)
    (tail,) = fenced_tails(tmp_path)
    assert (tail.position, tail.end, tail.epoch) == (position, 3, 1)
    report = verify_directory(tmp_path)
    # (These test values are not records, so only the log's own findings are asserted.)
    assert [p for p in report.problems if not p.startswith("replay failed")] == []
    (warning,) = [w for w in report.warnings if "fenced" in w]
    assert f"{tail.segment}" in warning and f"from byte {position}" in warning


def test_a_tail_never_returns_a_batch_that_a_fence_published_after_it_covers(
    tmp_path: Path,
) -> None:
    """A follower that read to the deposed leader's end, then finds its stale batch: the fence
    published meanwhile keeps it out, and once the new leader's segment exists the follower
    goes on there."""
    _fenced_before_the_new_segment(tmp_path, [])
    (tmp_path / "leader-epoch-0000000002.fence").unlink()  # not yet fenced when first read
    tail = LogTail(tmp_path)
    assert [b.base_offset for b in tail.read(0)] == [0, 2]
    with SegmentedLog(tmp_path, fsync=False) as log:  # the deposed leader writes on
        log.append([b"stale"], 1, timestamp_ms=2)
    assert publish_fence(tmp_path, 2, 3) == Fence(2, 3)
    assert list(tail.read(3)) == []
    stale = sorted(tmp_path.glob("*.log"))[0]
    fresh = tmp_path / "fresh"
    with SegmentedLog(fresh, fsync=False) as log:
        for values in OLD:
            log.append(values, 1, timestamp_ms=1)
        log.roll()
        log.append([b"new-1"], 2, timestamp_ms=3)
    (new,) = [p for p in sorted(fresh.glob("*.log")) if p.name != stale.name]
    (tmp_path / new.name).write_bytes(new.read_bytes())  # the new leader's segment, at 3
    assert [(b.base_offset, b.epoch) for b in tail.read(3)] == [(3, 2)]
    assert [(b.base_offset, b.epoch) for b in read_batches(tmp_path)] == [(0, 1), (2, 1), (3, 2)]


def _with_segment(directory: Path, base: int, epoch: int, value: bytes) -> Path:
    """Put a segment at ``base`` holding one batch of ``epoch`` into ``directory``."""
    scratch = directory.parent / f"{directory.name}-at-{base}"
    with SegmentedLog(scratch, fsync=False) as log:
        for offset in range(base):
            log.append([b"%d" % offset], epoch, timestamp_ms=1)
        log.roll()
        log.append([value], epoch, timestamp_ms=2)
    path = directory / list_segments(scratch)[-1][1].name
    path.write_bytes(list_segments(scratch)[-1][1].read_bytes())
    path.chmod(0o600)
    return path


def _deposed_at_1(directory: Path, new: int) -> Path:
    """Epoch 1 wrote offset 0; epoch 2, fenced at 1, wrote ``new`` batches from 1 in a segment
    of its own; epoch 1's deposed leader rolled at 3 and wrote there (forbidden by the
    protocol). Returns that stray segment."""
    with SegmentedLog(directory, fsync=False) as log:
        log.append([b"a"], 1, timestamp_ms=1)
        log.roll()
        for i in range(1, new + 1):
            log.append([b"n%d" % i], 2, timestamp_ms=2)
    assert claim_epoch(directory, 2, 2) and publish_fence(directory, 2, 1) == Fence(2, 1)
    return _with_segment(directory, 3, 1, b"stale")


def test_a_segment_an_old_leader_created_above_a_newer_fence_is_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Every reader skips the stray whole, naming it with its epoch and the fence once, and it
    does not end the new leader's segment (offsets 1..4)."""
    directory = tmp_path / "log"
    stray = _deposed_at_1(directory, 4)
    expected = [(0, 1, (b"a",))] + [(i, 2, (b"n%d" % i,)) for i in range(1, 5)]
    assert _read(directory, strict=True) == expected
    assert [b.base_offset for b in read_batches(directory, 3)] == [3, 4]
    assert [b.base_offset for b in LogTail(directory).read(3)] == [3, 4]
    check_batches(directory)
    warnings = [r.getMessage() for r in caplog.records if str(stray) in r.getMessage()]
    assert len(warnings) == 1
    assert "epoch 1" in warnings[0] and "epoch 2's fence at offset 1" in warnings[0]
    (found,) = fenced_tails(directory)
    assert str(found) == warnings[0]
    assert [w for w in verify_directory(directory).warnings if str(stray) in w] == warnings
    # Not a stray: epoch 2's claimer made its segment at 1 and appended nothing, and an
    # exclusive writer went on with epoch 1 there and rolled: its batches are the log.
    alone = tmp_path / "alone"
    with SegmentedLog(alone, fsync=False) as log:
        for values in ([b"a"], None, [b"b"], [b"c"], None, [b"d"]):
            if values is None:
                log.roll()
            else:
                log.append(values, 1, timestamp_ms=1)
    assert claim_epoch(alone, 2, 2) and publish_fence(alone, 2, 1) == Fence(2, 1)
    assert [b.base_offset for b in read_batches(alone)] == [0, 1, 2, 3]
    assert fenced_tails(alone) == []


def test_a_tail_at_a_strays_base_never_follows_into_it(tmp_path: Path) -> None:
    """The new leader's end is the stray's base for a moment: a tail that reads there stays in
    the leader's segment and reads on when the leader writes on."""
    directory = tmp_path / "log"
    _deposed_at_1(directory, 2)
    tail = LogTail(directory)
    assert [(b.base_offset, b.epoch) for b in tail.read(0)] == [(0, 1), (1, 2), (2, 2)]
    _deposed_at_1(tmp_path / "on", 3)
    segment = list_segments(directory)[1][1]
    segment.write_bytes(list_segments(tmp_path / "on")[1][1].read_bytes())  # it wrote n3
    assert [(b.base_offset, b.epoch) for b in tail.read(3)] == [(3, 2)]
