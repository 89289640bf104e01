"""``check_batches`` (the integrity check of bytes a reader skips) finds exactly the damage a
full read finds, at the same file and byte, and finds none in a whole log."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aclog.log import CorruptLogError, SegmentedLog, list_segments, read_batches
from aclog.log import check as check_module
from aclog.log.check import check_batches


def _make(directory: Path, sizes: list[int], *, fsync: bool = False) -> None:
    """Without fsync the recovery point stays at 0: damage at the end reads as a torn tail."""
    with SegmentedLog(directory, segment_bytes=300, fsync=fsync) as log:
        for epoch, size in enumerate(sizes, start=1):
            log.append([bytes([epoch]) * size] * (1 + size % 3), epoch=epoch, timestamp_ms=epoch)


def _outcome(call: object) -> tuple[str, int] | None:
    try:
        call()  # type: ignore[operator]
    except CorruptLogError as error:
        return error.path, error.position
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sizes=st.lists(st.integers(1, 120), min_size=2, max_size=10),
    segment=st.integers(0, 99),
    where=st.floats(0, 1, exclude_max=True),
    bit=st.integers(0, 7),
    from_offset=st.integers(0, 12),
    chunk=st.sampled_from([70, 200, 1 << 22]),  # small reads cut batches: read on
    cut=st.booleans(),
)
def test_the_check_and_a_full_read_agree(
    sizes: list[int],
    segment: int,
    where: float,
    bit: int,
    from_offset: int,
    chunk: int,
    cut: bool,
) -> None:
    directory = Path(tempfile.mkdtemp(prefix="aclog-check-"))
    check_module._CHUNK, kept = chunk, check_module._CHUNK
    try:
        _make(directory, sizes)
        segments = list_segments(directory)
        assert check_batches(directory) == sum(p.stat().st_size for _, p in segments)
        path = segments[segment % len(segments)][1]
        data = bytearray(path.read_bytes())
        if cut:
            del data[int(where * len(data)) :]
        else:
            data[int(where * len(data))] ^= 1 << bit
        path.write_bytes(bytes(data))
        read = _outcome(lambda: list(read_batches(directory)))
        assert _outcome(lambda: check_batches(directory)) == read
        # From a later offset a read skips the CRC of the batches before it in its segment;
        # the check does not, so it finds at least what the read finds.
        later = _outcome(lambda: list(read_batches(directory, from_offset)))
        if later is not None:
            assert _outcome(lambda: check_batches(directory, from_offset)) is not None
    finally:
        check_module._CHUNK = kept
        shutil.rmtree(directory)


def test_a_check_up_to_an_offset_stops_before_damage_after_it(tmp_path: Path) -> None:
    _make(tmp_path, [100] * 8, fsync=True)
    last = list_segments(tmp_path)[-1]
    data = bytearray(last[1].read_bytes())
    data[-2] ^= 1
    last[1].write_bytes(bytes(data))
    assert check_batches(tmp_path, 0, last[0]) > 0
    assert _outcome(lambda: check_batches(tmp_path)) is not None
