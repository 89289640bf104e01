"""LogTail: a follower's reads return exactly what a fresh read_batches returns, across segment
rolls, truncation and rewrites, while resuming where the last read ended."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.log import SegmentedLog
from aclog.log.errors import CorruptLogError
from aclog.log.reader import LogTail, read_batches
from aclog.log.region import LogBatch
from aclog.log.segment import list_segments

Step = tuple[str, int]


def _summary(batches: list[LogBatch]) -> list[tuple[int, int, int, tuple[bytes, ...]]]:
    return [(b.base_offset, b.last_offset, b.epoch, b.values) for b in batches]


def _values(n: int, tag: int) -> list[bytes]:
    return [f"{tag}-{i}".encode() * 3 for i in range(n)]


steps = st.lists(
    st.tuples(st.sampled_from(["append", "read", "truncate", "read-elsewhere"]), st.integers(1, 9)),
    max_size=40,
)


@settings(max_examples=100, deadline=None)
@given(steps)
def test_every_read_equals_a_fresh_read(tmp_path_factory: pytest.TempPathFactory, plan) -> None:
    directory: Path = tmp_path_factory.mktemp("tail")
    tail, last_end, starts = LogTail(directory), 0, []
    with SegmentedLog(directory, segment_bytes=300, fsync=False) as log:
        for i, (action, n) in enumerate(plan):
            if action == "append":
                starts.append(log.append(_values(n, i), epoch=1).base_offset)
            elif action == "truncate" and starts:  # to a batch boundary, n batches back
                del starts[max(len(starts) - n, 0) :]
                log.truncate_to(starts[-1] if starts else 0)
            else:
                start = last_end if action == "read" else max(last_end - n, 0)
                bound = start + n if n % 2 else None  # odd n: a reader held below durable
                got = _summary(list(tail.read(start, bound)))
                fresh = list(read_batches(directory, start))
                if bound is not None:
                    fresh = [b for b in fresh if b.base_offset < bound]
                assert got == _summary(fresh)
                last_end = got[-1][1] + 1 if got else start


def test_a_resumed_read_follows_rolls_and_reads_only_the_new_batches(tmp_path: Path) -> None:
    tail = LogTail(tmp_path)
    with SegmentedLog(tmp_path, segment_bytes=200, fsync=False) as log:
        log.append(_values(3, 0), epoch=1)
        assert [b.base_offset for b in tail.read(0)] == [0]
        for tag in range(1, 8):
            log.append(_values(2, tag), epoch=2)
        assert len(list_segments(tmp_path)) > 2  # the new batches span several rolls
        got = list(tail.read(3))
        assert [b.base_offset for b in got] == list(range(3, 17, 2))
        assert list(tail.read(17)) == []
        log.append(_values(1, 9), epoch=2)
        assert [b.base_offset for b in tail.read(17)] == [17]


def test_a_batch_rewritten_under_the_tail_is_read_as_a_fresh_read_sees_it(tmp_path: Path) -> None:
    tail = LogTail(tmp_path)
    with SegmentedLog(tmp_path, fsync=False) as log:
        log.append(_values(2, 0), epoch=1)
        log.append(_values(2, 1), epoch=1)
        assert len(list(tail.read(0))) == 2
        log.truncate_to(2)  # a new leader cut the tail and wrote its own batches
        log.append(_values(5, 2), epoch=2)
        log.append(_values(1, 3), epoch=2)
        assert _summary(list(tail.read(4))) == _summary(list(read_batches(tmp_path, 4)))


def test_corruption_in_the_middle_is_reported_as_a_fresh_read_reports_it(tmp_path: Path) -> None:
    tail = LogTail(tmp_path)
    with SegmentedLog(tmp_path, fsync=False) as log:
        log.append(_values(2, 0), epoch=1)
        assert len(list(tail.read(0))) == 1
        for tag in range(1, 4):
            log.append(_values(2, tag), epoch=1)
    segment = list_segments(tmp_path)[0][1]
    data = bytearray(segment.read_bytes())
    where = len(data) // 2 + random.Random(3).randrange(8)
    data[where] ^= 0xFF
    segment.write_bytes(bytes(data))
    with pytest.raises(CorruptLogError):
        list(read_batches(tmp_path, 2))
    with pytest.raises(CorruptLogError):
        list(tail.read(2))


def test_a_bounded_read_stops_before_the_first_batch_at_the_bound_and_resumes_there(
    tmp_path: Path,
) -> None:
    tail = LogTail(tmp_path)
    with SegmentedLog(tmp_path, fsync=False) as log:
        for tag in range(4):
            log.append(_values(2, tag), epoch=1)  # batches at 0, 2, 4, 6
        assert [b.base_offset for b in tail.read(0, 4)] == [0, 2]
        assert tail._place is not None and tail._place.next_offset == 4  # resumes, not fresh
        assert [b.base_offset for b in tail.read(4, 5)] == [4]
        assert [b.base_offset for b in tail.read(6)] == [6]
