"""The recovery point tells a torn write from corruption; cut bytes are quarantined, never lost."""

from __future__ import annotations

import logging
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from aclog.log import CorruptLogError, SegmentedLog, TornTailError, read_batches, read_records
from aclog.log.quarantine import list_quarantined
from aclog.log.recovery_point import FILE_NAME, read_recovery_point
from aclog.log.segment import list_segments

VALUES = [[b"first-a", b"first-b"], [b"middle-a", b"middle-b", b"middle-c"], [b"last-a", b"last-b"]]


def _segment(directory: Path) -> Path:
    return list_segments(directory)[-1][1]


def _write(directory: Path, batches: list[list[bytes]]) -> list[tuple[int, int]]:
    """Commit ``batches`` durably; return each batch's (start, end) byte range."""
    with SegmentedLog(directory) as log:
        for values in batches:
            log.append(values, 1, timestamp_ms=5)
    starts = [b.position for b in read_batches(directory)]
    bounds = [*starts, _segment(directory).stat().st_size]
    return [(bounds[i], bounds[i + 1]) for i in range(len(batches))]


def _point_before_last(directory: Path) -> bytes:
    """The recovery point file as it was before the last batch was committed."""
    scratch = directory.with_name(directory.name + "-scratch")
    _write(scratch, VALUES[:-1])
    return (scratch / FILE_NAME).read_bytes()


def test_the_recovery_point_follows_each_commit(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path) as log:
        assert read_recovery_point(tmp_path).offset == 0
        log.append([b"a", b"b"], 1)
        assert read_recovery_point(tmp_path).offset == 2
        log.append([b"c"], 1, fsync=False)
        assert read_recovery_point(tmp_path).offset == 2, "not fsynced, so not covered"
    assert read_recovery_point(tmp_path).offset == 3, "close fsyncs, and says so"


def test_a_bit_flip_anywhere_in_the_newest_batch_is_refused_not_cut(tmp_path: Path) -> None:
    pristine = tmp_path / "pristine"
    start, end = _write(pristine, VALUES)[2]
    original = _segment(pristine).read_bytes()
    for position in range(start, end):
        work = tmp_path / f"flip-{position}"
        shutil.copytree(pristine, work)
        damaged = bytearray(original)
        damaged[position] ^= 0x01
        _segment(work).write_bytes(bytes(damaged))
        with pytest.raises(CorruptLogError) as info:
            SegmentedLog(work).close()
        assert str(_segment(work)) in str(info.value)
        assert info.value.position == start, position
        with pytest.raises(CorruptLogError):
            list(read_records(work))
        assert _segment(work).read_bytes() == bytes(damaged), "corruption must not be cut"
        assert list_quarantined(work) == []
        shutil.rmtree(work)


def test_a_torn_write_above_the_recovery_point_is_quarantined_and_cut(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pristine = tmp_path / "pristine"
    start, end = _write(pristine, VALUES)[2]
    stale_point = _point_before_last(pristine)
    original = _segment(pristine).read_bytes()
    for cut in range(start + 1, end):
        work = tmp_path / f"cut-{cut}"
        shutil.copytree(pristine, work)
        (work / FILE_NAME).write_bytes(stale_point)
        with open(_segment(work), "r+b") as file:
            file.truncate(cut)
        with pytest.raises(TornTailError, match=f"from byte {start}"):
            list(read_batches(work, strict=True))
        assert [r.value for r in read_records(work)] == [*VALUES[0], *VALUES[1]]
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="aclog.log"), SegmentedLog(work) as log:
            assert log.recovery is not None
            assert (log.recovery.position, log.recovery.bytes_removed) == (start, cut - start)
            log.append([b"after"], 1)
        [quarantined] = list_quarantined(work)
        assert quarantined.name == f"{_segment(work).name}.{start}.quarantine"
        assert quarantined.read_bytes() == original[start:cut]
        [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert str(_segment(work)) in warning
        assert f"{cut - start} bytes from byte {start}" in warning
        assert ("offsets 5..6" if cut - start >= 61 else "offsets from 5") in warning
        assert [r.value for r in read_records(work)] == [*VALUES[0], *VALUES[1], b"after"]
        shutil.rmtree(work)


def test_a_zero_filled_tail_is_quarantined_and_cut(tmp_path: Path) -> None:
    end = _write(tmp_path, VALUES)[2][1]
    with open(_segment(tmp_path), "ab") as file:
        file.write(b"\x00" * 4096)
    with SegmentedLog(tmp_path) as log:
        assert log.recovery is not None and log.recovery.position == end
        assert log.end_offset == 7
    [quarantined] = list_quarantined(tmp_path)
    assert quarantined.read_bytes() == b"\x00" * 4096
    assert _segment(tmp_path).stat().st_size == end


def test_a_log_cut_short_below_the_recovery_point_is_refused(tmp_path: Path) -> None:
    start = _write(tmp_path, VALUES)[2][0]
    with open(_segment(tmp_path), "r+b") as file:
        file.truncate(start)  # a whole acknowledged batch gone, at a batch boundary
    with pytest.raises(CorruptLogError, match="acknowledged batches are missing"):
        SegmentedLog(tmp_path)
    _segment(tmp_path).unlink()
    with pytest.raises(CorruptLogError, match="the acknowledged log is missing"):
        SegmentedLog(tmp_path)


def test_an_unreadable_recovery_point_is_reported_and_recovery_stays_lenient(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    start = _write(tmp_path, VALUES)[2][0]
    (tmp_path / FILE_NAME).write_bytes(b"garbage")
    with open(_segment(tmp_path), "r+b") as file:
        file.truncate(start + 10)
    with caplog.at_level(logging.WARNING, logger="aclog.log"), SegmentedLog(tmp_path) as log:
        assert log.end_offset == 5
    assert any("is not a recovery point" in r.getMessage() for r in caplog.records)
    assert read_recovery_point(tmp_path).offset == 5, "rewritten whole"


def test_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        directory = tmp_path / "data"
        start = _write(directory, VALUES)[2][0]
        with open(_segment(directory), "r+b") as file:
            file.truncate(start + 3)
        (directory / FILE_NAME).write_bytes(_point_before_last(directory))
        SegmentedLog(directory).close()
    finally:
        os.umask(old)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    files = list(directory.iterdir())
    kinds = {p.suffix or p.name for p in files}
    assert kinds >= {".log", ".index", ".quarantine", ".lock", FILE_NAME}
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


_WRITER = textwrap.dedent(
    """
    import sys
    from aclog.log import SegmentedLog
    with SegmentedLog(sys.argv[1]) as log:
        for i in range(100000):
            result = log.append([b"v%d-%d" % (i, j) for j in range(1 + i % 7)], 1)
            print(result.last_offset + 1, flush=True)
    """
)


@pytest.mark.parametrize("seed", range(6))
def test_kill_9_under_load_never_lets_damage_cut_an_acknowledged_batch(
    tmp_path: Path, seed: int
) -> None:
    """kill -9 at a random moment of a commit load, then damage the newest acknowledged batch:
    opening the log refuses (it never silently cuts an acknowledged batch), and undamaged, the
    log holds every acknowledged offset."""
    directory = tmp_path / "data"
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(directory)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline(), "the writer started"
        time.sleep(random.Random(seed).uniform(0.01, 0.3))
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        output, _ = writer.communicate(timeout=30)
    acknowledged = int(output.split()[-1])
    pristine = tmp_path / "pristine"
    shutil.copytree(directory, pristine)
    with SegmentedLog(directory) as log:
        assert log.end_offset >= acknowledged
    newest = [b for b in read_batches(pristine) if b.last_offset < acknowledged][-1]
    with open(newest.segment, "r+b") as file:
        # A byte of the batch's records (after its 61-byte header, within its length): the
        # smallest batches here are about 70 bytes, so a fixed distance could land past the end.
        file.seek(newest.position + 8)
        length = 12 + int.from_bytes(file.read(4), "big")
        file.seek(newest.position + 61 + seed % (length - 61))
        byte = file.read(1)
        file.seek(-1, os.SEEK_CUR)
        file.write(bytes([byte[0] ^ 0x40]))
    size = newest.segment.stat().st_size
    with pytest.raises(CorruptLogError):
        SegmentedLog(pristine)
    assert newest.segment.stat().st_size == size
