"""The one-pass reader of a segment's bytes (aclog.log.region) against the batch-at-a-time
scan it stands in for: the same batches, values, positions, problem, errors and end state, on
any mix of batch sizes and value lengths, with damage anywhere in a run of batches, in read
windows of any size."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aclog.log import CorruptLogError, SegmentedLog, read_batches
from aclog.log import region as region_module
from aclog.log.batch import CRC_START, HEADER_SIZE, build_batch, calc_crc32c
from aclog.log.region import LogBatch, region_batches, to_batch
from aclog.log.segment import SegmentScan, list_segments

_value = st.one_of(
    st.binary(max_size=70),  # one- and two-byte lengths around 63/64
    st.integers(8180, 8200).map(b"\x7f".__mul__),  # record lengths past two varint bytes
)
_batch_values = st.one_of(
    st.lists(_value, min_size=1, max_size=5),  # a request's batch
    st.lists(st.binary(max_size=3), min_size=60, max_size=70),  # offset deltas past 63
)
_DAMAGE = ("none", "flip", "records", "base", "epoch", "count", "cut", "zeros")


def _segment(batches: list[list[bytes]], base: int) -> tuple[bytearray, list[int]]:
    """The bytes of a segment holding ``batches`` from ``base``, and where each starts."""
    data, starts, offset = bytearray(), [], base
    for n, values in enumerate(batches):
        starts.append(len(data))
        data += build_batch(values, offset, 1 + n // 3, 1_700_000_000_000 + n)
        offset += len(values)
    return data, starts


def _recrc(data: bytearray, start: int) -> None:
    """Fix the CRC of the batch at ``start`` after its covered bytes were changed."""
    (length,) = struct.unpack_from(">i", data, start + 8)
    crc = calc_crc32c(memoryview(data)[start + CRC_START : start + 12 + length])
    struct.pack_into(">I", data, start + CRC_START - 4, crc)


def _damage(data: bytearray, starts: list[int], kind: str, which: int, byte: int) -> bytearray:
    at = starts[which % len(starts)]
    if kind == "flip":  # anywhere in the batch: a header field or a CRC mismatch
        end = (
            starts[which % len(starts) + 1] if which % len(starts) + 1 < len(starts) else len(data)
        )
        data[at + byte % (end - at)] ^= 0x5A
    elif kind == "records":  # a record byte changed and the CRC made to fit: a parse problem
        end = (
            starts[which % len(starts) + 1] if which % len(starts) + 1 < len(starts) else len(data)
        )
        data[at + HEADER_SIZE + byte % (end - at - HEADER_SIZE)] = byte
        _recrc(data, at)
    elif kind == "base":  # the base offset is outside the CRC
        struct.pack_into(">q", data, at, struct.unpack_from(">q", data, at)[0] + 1)
    elif kind == "epoch":  # so is the epoch
        struct.pack_into(">i", data, at + 12, -5)
    elif kind == "count":
        struct.pack_into(">i", data, at + HEADER_SIZE - 4, byte % 4)
        _recrc(data, at)
    elif kind == "cut":
        del data[at + byte % 70 :]
    elif kind == "zeros":
        data += bytes(byte)
    return data


def _read(scan: SegmentScan, one_pass: bool) -> tuple[list[LogBatch], tuple[object, ...]]:
    """What reading ``scan`` gives: its batches, then the error or the scan's end state."""
    out: list[LogBatch] = []
    try:
        if one_pass:
            out.extend(region_batches(scan))
        else:
            for raw in scan:
                out.append(
                    to_batch(
                        raw.data, raw.header.base_offset, raw.header.epoch, scan.path, raw.position
                    )
                )
    except CorruptLogError as error:
        return out, ("error", error.position, error.reason)
    return out, (scan.problem, scan.end_position, scan.next_offset, scan.last_epoch)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    batches=st.lists(_batch_values, min_size=1, max_size=12),
    base=st.integers(0, 1 << 40),
    damage=st.sampled_from(_DAMAGE),
    which=st.integers(0, 50),
    byte=st.integers(0, 255),
    skip=st.integers(0, 80),
    window=st.sampled_from([64, 100, 300, 5000, region_module.WINDOW]),
)
def test_one_pass_reads_what_the_batch_at_a_time_scan_reads(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    batches: list[list[bytes]],
    base: int,
    damage: str,
    which: int,
    byte: int,
    skip: int,
    window: int,
) -> None:
    data, starts = _segment(batches, base)
    path = tmp_path / "segment.log"
    path.write_bytes(_damage(data, starts, damage, which, byte))
    monkeypatch.setattr(region_module, "WINDOW", window)

    def scan() -> SegmentScan:
        return SegmentScan(path, position=0, next_offset=base, skip_below=base + skip)

    assert _read(scan(), one_pass=True) == _read(scan(), one_pass=False)


def test_damage_in_the_middle_of_a_run_of_small_batches_stops_the_read_there(
    tmp_path: Path,
) -> None:
    """A log written a request at a time, one byte of its 500th batch flipped: the 499 batches
    before it are read, then the error names that batch's byte."""
    with SegmentedLog(tmp_path, fsync=False) as log:
        for n in range(1000):
            log.append([b"context %d" % n, b"acl %d" % n], epoch=1, timestamp_ms=n)
    ((_, segment),) = list_segments(tmp_path)
    whole = list(read_batches(tmp_path))
    data = bytearray(segment.read_bytes())
    data[whole[499].position + HEADER_SIZE + 3] ^= 1
    segment.write_bytes(data)
    read: list[LogBatch] = []
    with pytest.raises(CorruptLogError) as caught:
        read.extend(read_batches(tmp_path))
    assert read == whole[:499]
    assert (caught.value.path, caught.value.position) == (str(segment), whole[499].position)
    assert caught.value.reason == "CRC-32C mismatch"
