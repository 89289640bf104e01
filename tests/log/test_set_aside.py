"""A deposed leader's roll that a takeover set aside (``*.log.fenced-by-epoch-N``, README, "Epoch
fencing") is named by ``verify`` (one line) and removed by retention once every offset it could
hold is below the bound segments are deleted below, never before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aclog.log import DeposedError, SegmentedLog, fenced_tails
from aclog.log import log as log_module
from aclog.log.claims import Fence
from aclog.replay.verify import verify_directory

ASIDE = "00000000000000000001.log.fenced-by-epoch-0000000002"


def _set_aside(directory: Path, monkeypatch: pytest.MonkeyPatch) -> SegmentedLog:
    """A log whose epoch-1 leader rolled at the fence (offset 1) and wrote there before epoch
    2's claimer made its segment: the new leader, open, with that roll set aside."""
    real_segment = log_module.new_segment
    old = SegmentedLog(directory, shared=True, segment_bytes=100)
    assert old.begin_epoch(1, 1) == 0
    old.append([b"a" * 60], 1)

    def old_leader_rolls_first(directory: Path, fence: Fence, *, fsync: bool) -> Any:
        with pytest.raises(DeposedError):
            old.append([b"b" * 60], 1)  # rolls to segment 1 and writes offset 1 there
        return real_segment(directory, fence, fsync=fsync)

    new = SegmentedLog(directory, shared=True, segment_bytes=100)
    monkeypatch.setattr(log_module, "new_segment", old_leader_rolls_first)
    assert new.begin_epoch(2, 2) == 1
    monkeypatch.undo()
    old.close()
    return new


def test_verify_names_a_set_aside_segment_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _set_aside(tmp_path, monkeypatch) as new:
        new.append([b"c"], 2)
    report = verify_directory(tmp_path)
    (line,) = [warning for warning in report.warnings if ASIDE in warning]
    assert "epoch 2" in line and "offsets up to 1" in line and "not part of the log" in line
    # (These test values are not records, so only the log's own findings are asserted.)
    assert [p for p in report.problems if not p.startswith("replay failed")] == []
    assert [str(item) for item in fenced_tails(tmp_path)] == [line]


def test_retention_removes_a_set_aside_segment_once_its_offsets_are_below_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _set_aside(tmp_path, monkeypatch) as new:
        new.append([b"c" * 60], 2)  # offset 1, in segment 1
        new.append([b"d" * 60], 2)  # offset 2: rolls to segment 2
        assert tmp_path / ASIDE not in new.delete_segments_below(1)
        assert (tmp_path / ASIDE).exists()  # it holds offset 1: not below 1
        deleted = new.delete_segments_below(2)
        assert tmp_path / ASIDE in deleted
        assert not (tmp_path / ASIDE).exists()


def test_a_set_aside_segment_whose_bytes_say_nothing_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _set_aside(tmp_path, monkeypatch) as new:
        (tmp_path / ASIDE).write_bytes(b"\0" * 20)  # not even a whole header
        new.append([b"c" * 60], 2)
        new.append([b"d" * 60], 2)
        new.delete_segments_below(2)
        assert (tmp_path / ASIDE).exists()
    (line,) = [w for w in verify_directory(tmp_path).warnings if ASIDE in w]
    assert "delete it once looked at" in line
