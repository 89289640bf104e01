"""Group appends: several batches with one write and one fsync, refused whole before any byte is
written, rolled before (never across) a segment boundary, cut back whole on a short write, and
recovered batch by batch on reopen."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aclog.log import BatchSpec, FencedEpochError, LogError, SegmentedLog, StaleOffsetError
from aclog.log import files as files_module
from aclog.log.segment import list_segments

GROUP = [
    BatchSpec([b"a", b"b"], 2, 100),
    BatchSpec([b"c"], 2, 101),
    BatchSpec([b"d", b"e", b"f"], 3, 102),
]


def _counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(os, name)

    def counted(fd: int, *args: object) -> object:
        calls.append(fd)
        return real(fd, *args)

    monkeypatch.setattr(files_module.os, name, counted)
    return calls


def test_a_group_is_one_write_and_one_fsync_of_separate_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with SegmentedLog(tmp_path) as log:
        log.append([b"first"], 1, timestamp_ms=99)
        writes, fsyncs = _counting(monkeypatch, "write"), _counting(monkeypatch, "fsync")
        results = log.append_batches(GROUP, expected_end_offset=1)
        assert writes.count(log._active.fd) == 1 and fsyncs == [log._active.fd]
        monkeypatch.undo()
        assert [(r.base_offset, r.last_offset, r.epoch, r.timestamp_ms) for r in results] == [
            (1, 2, 2, 100),
            (3, 3, 2, 101),
            (4, 6, 3, 102),
        ]
        assert (log.end_offset, log.latest_epoch) == (7, 3)
    with SegmentedLog(tmp_path) as reopened:
        assert reopened.recovery is None and reopened.end_offset == 7
        batches = list(reopened.read())
        assert [(b.base_offset, b.epoch, b.timestamp_ms) for b in batches] == [
            (0, 1, 99),
            (1, 2, 100),
            (3, 2, 101),
            (4, 3, 102),
        ]
        values = [r.value for r in reopened.read_records()]
        assert values == [b"first", b"a", b"b", b"c", b"d", b"e", b"f"]


@pytest.mark.parametrize(
    ("group", "expected", "error"),
    [
        (GROUP, 0, StaleOffsetError),
        ([*GROUP, BatchSpec([b"old"], 1, 103)], 1, FencedEpochError),
        ([BatchSpec([b"x"], 0, 1), *GROUP], 1, FencedEpochError),
        ([*GROUP, BatchSpec([], 3, 103)], 1, ValueError),
        ([*GROUP, BatchSpec([b"x"] * 100_001, 3, 103)], 1, ValueError),
        ([], 1, ValueError),
    ],
)
def test_a_refused_group_writes_nothing(
    tmp_path: Path, group: list[BatchSpec], expected: int, error: type[Exception]
) -> None:
    with SegmentedLog(tmp_path) as log:
        log.append([b"first"], 1, timestamp_ms=99)
        segment = list_segments(tmp_path)[-1][1]
        size = segment.stat().st_size
        with pytest.raises(error):
            log.append_batches(group, expected_end_offset=expected)
        assert segment.stat().st_size == size and (log.end_offset, log.latest_epoch) == (1, 1)
        assert log.append([b"next"], 1).base_offset == 1


def test_a_group_that_does_not_fit_rolls_first_and_stays_in_one_segment(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, segment_bytes=200) as log:
        log.append([b"x" * 60], 1, timestamp_ms=1)
        log.append_batches([BatchSpec([b"y" * 60], 1, 2), BatchSpec([b"z" * 60], 1, 3)])
        segments = list_segments(tmp_path)
        assert [base for base, _ in segments] == [0, 1]
        assert log.append_batches([BatchSpec([b"w"], 1, 4)] * 3)[0].base_offset == 3
    with SegmentedLog(tmp_path, segment_bytes=200) as reopened:
        assert reopened.recovery is None and reopened.end_offset == 6
        assert [b.base_offset for b in reopened.read()] == [0, 1, 2, 3, 4, 5]
        assert [b.base_offset for b in reopened.read(2)] == [2, 3, 4, 5]


def test_a_short_group_write_is_cut_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with SegmentedLog(tmp_path) as log:
        log.append([b"first"], 1, timestamp_ms=99)
        segment = list_segments(tmp_path)[-1][1]
        size = segment.stat().st_size
        real = os.write

        def short(fd: int, data: bytes) -> int:
            return real(fd, bytes(data)[: len(data) - 7])

        monkeypatch.setattr(files_module.os, "write", short)
        with pytest.raises(LogError, match="short write"):
            log.append_batches(GROUP)
        monkeypatch.undo()
        assert segment.stat().st_size == size and log.end_offset == 1
        assert log.append_batches(GROUP)[-1].last_offset == 6
    with SegmentedLog(tmp_path) as reopened:
        assert reopened.recovery is None and reopened.end_offset == 7
