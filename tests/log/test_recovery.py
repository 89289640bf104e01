"""Crash recovery: torn tails are cut, damage inside the log is reported, never cut."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aclog.log import CorruptLogError, SegmentedLog, read_batches, read_records
from aclog.log.segment import list_segments

VALUES = [[b"first-a", b"first-b"], [b"middle-a", b"middle-b", b"middle-c"], [b"last-a", b"last-b"]]


def _three_batches(directory: Path) -> list[tuple[int, int]]:
    """Write three batches into one segment; return each batch's (start, end) byte range."""
    with SegmentedLog(directory, fsync=False) as log:
        for values in VALUES:
            log.append(values, 1, timestamp_ms=5)
    starts = [b.position for b in read_batches(directory)]
    bounds = [*starts, _segment(directory).stat().st_size]
    return [(bounds[i], bounds[i + 1]) for i in range(3)]


def _segment(directory: Path) -> Path:
    return list_segments(directory)[-1][1]


def test_torn_last_batch_is_cut_at_every_byte(tmp_path: Path) -> None:
    pristine = tmp_path / "pristine"
    start, end = _three_batches(pristine)[2]
    for cut in range(start, end):
        work = tmp_path / f"cut-{cut}"
        shutil.copytree(pristine, work)
        with open(_segment(work), "r+b") as file:
            file.truncate(cut)
        with SegmentedLog(work) as log:
            assert log.end_offset == 5
            if cut > start:
                assert log.recovery is not None
                assert log.recovery.position == start
                assert log.recovery.bytes_removed == cut - start
            else:
                assert log.recovery is None
            log.append([b"after"], 1)
        assert [r.value for r in read_records(work)] == [
            *VALUES[0],
            *VALUES[1],
            b"after",
        ]
        shutil.rmtree(work)


def test_garbage_at_the_tail_is_cut_when_nothing_valid_follows(tmp_path: Path) -> None:
    ranges = _three_batches(tmp_path)
    with open(_segment(tmp_path), "ab") as file:
        file.write(b"\x00" * 300)
    with SegmentedLog(tmp_path) as log:
        assert log.recovery is not None and log.recovery.position == ranges[2][1]
        assert log.end_offset == 7


def test_damage_anywhere_in_a_middle_batch_is_corruption(tmp_path: Path) -> None:
    pristine = tmp_path / "pristine"
    start, end = _three_batches(pristine)[1]
    original = _segment(pristine).read_bytes()
    for position in range(start, end):
        work = tmp_path / f"flip-{position}"
        shutil.copytree(pristine, work)
        damaged = bytearray(original)
        damaged[position] ^= 0xFF
        _segment(work).write_bytes(bytes(damaged))
        with pytest.raises(CorruptLogError) as info:
            SegmentedLog(work).close()
        assert str(_segment(work)) in str(info.value)
        assert info.value.position in (start, end), position
        with pytest.raises(CorruptLogError):
            list(read_records(work))
        assert _segment(work).read_bytes() == bytes(damaged), "corruption must not be cut"
        shutil.rmtree(work)


def test_a_short_segment_before_the_last_is_corruption(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, segment_bytes=200, fsync=False) as log:
        for i in range(10):
            log.append([bytes([i]) * 80], 0)
    segments = list_segments(tmp_path)
    assert len(segments) >= 3
    first = segments[0][1]
    size = first.stat().st_size
    with open(first, "r+b") as file:
        file.truncate(size - 10)
    with pytest.raises(CorruptLogError, match=first.name):
        list(read_records(tmp_path))
