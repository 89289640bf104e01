"""The segmented log: appends, reads, rolls, reopen, fencing, the lock, index, retention."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aclog.log import (
    FencedEpochError,
    LogLockedError,
    SegmentedLog,
    StaleOffsetError,
    WriterStoppedError,
    read_batches,
    read_records,
)
from aclog.log.index import index_path
from aclog.log.segment import list_segments

batches_strategy = st.lists(
    st.tuples(
        st.lists(st.binary(min_size=0, max_size=80), min_size=1, max_size=12),
        st.integers(min_value=0, max_value=3),  # epoch increment
        st.booleans(),  # reopen after this batch
    ),
    min_size=1,
    max_size=25,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batches=batches_strategy, segment_bytes=st.integers(min_value=100, max_value=3000))
def test_round_trip_across_rolls_and_reopen(
    tmp_path_factory: pytest.TempPathFactory,
    batches: list[tuple[list[bytes], int, bool]],
    segment_bytes: int,
) -> None:
    directory = tmp_path_factory.mktemp("log")
    log = SegmentedLog(directory, segment_bytes=segment_bytes, fsync=False)
    expected: list[tuple[int, int, bytes]] = []
    epoch = 0
    for values, bump, reopen in batches:
        epoch += bump
        result = log.append(values, epoch, timestamp_ms=1000 + epoch)
        assert result.base_offset == len(expected)
        expected += [(len(expected) + i, epoch, v) for i, v in enumerate(values)]
        assert result.last_offset == len(expected) - 1
        if reopen:
            log.close()
            log = SegmentedLog(directory, segment_bytes=segment_bytes, fsync=False)
            assert log.recovery is None
            assert log.end_offset == len(expected)
            assert log.latest_epoch == epoch
    got = [(r.offset, r.epoch, r.value) for r in log.read_records()]
    assert got == expected
    start = len(expected) // 2
    assert [(r.offset, r.epoch, r.value) for r in read_records(directory, start)] == expected[
        start:
    ]
    log.close()


def test_each_append_is_one_batch_with_epoch_and_timestamp(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path) as log:
        log.append([b"a", b"b"], 3, timestamp_ms=111)
        log.append([b"c"], 5, timestamp_ms=222)
        batches = list(log.read())
    assert [(b.base_offset, b.last_offset, b.epoch, b.timestamp_ms, b.values) for b in batches] == [
        (0, 1, 3, 111, (b"a", b"b")),
        (2, 2, 5, 222, (b"c",)),
    ]


def test_append_fsyncs_before_returning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = SegmentedLog(tmp_path)
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    log.append([b"x"], 0)
    assert synced, "append returned without fsync"
    synced.clear()
    log.append([b"y"], 0, fsync=False)
    assert not synced
    log.close()


def test_older_epoch_is_fenced_even_after_reopen(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path) as log:
        log.append([b"a"], 4)
        with pytest.raises(FencedEpochError, match=r"epoch 3 refused.*holds epoch 4"):
            log.append([b"b"], 3)
        assert log.end_offset == 1
    with SegmentedLog(tmp_path) as log:
        with pytest.raises(FencedEpochError):
            log.append([b"b"], 2)
        log.append([b"c"], 4)
        assert log.end_offset == 2


def test_conditional_append_refuses_a_moved_end(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path) as log:
        log.append([b"a"], 0, expected_end_offset=0)
        with pytest.raises(StaleOffsetError):
            log.append([b"b"], 0, expected_end_offset=0)
        assert log.end_offset == 1


def test_second_writer_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    first = SegmentedLog(tmp_path)
    with pytest.raises(LogLockedError, match=f"pid {os.getpid()}"):
        SegmentedLog(tmp_path)
    assert list(read_batches(tmp_path)) == []  # readers need no lock
    first.close()
    SegmentedLog(tmp_path).close()


def test_empty_append_and_oversized_batch_are_rejected(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path) as log:
        with pytest.raises(ValueError, match="at least one record"):
            log.append([], 0)
        assert log.end_offset == 0


def test_segments_roll_at_the_configured_size(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, segment_bytes=500, fsync=False) as log:
        for i in range(30):
            log.append([b"v" * 50, bytes([i])], 0)
    segments = list_segments(tmp_path)
    assert len(segments) > 3
    assert all(path.stat().st_size <= 500 for _, path in segments[:-1])
    assert segments[0][0] == 0
    assert len(list(read_records(tmp_path))) == 60


def test_read_from_offset_uses_the_index_and_survives_a_bad_index(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, fsync=False) as log:
        for i in range(2000):
            log.append([b"%05d" % i + b"x" * 40], 0)
    segment = list_segments(tmp_path)[0][1]
    assert index_path(segment).stat().st_size > 0
    first = next(read_batches(tmp_path, 1234))
    assert first.base_offset == 1234 and first.position > 0
    index_path(segment).write_bytes(b"\x00\x00\x00\x05\x00\x00\x00\x07" * 3)  # nonsense
    assert next(read_batches(tmp_path, 1234)).base_offset == 1234
    index_path(segment).unlink()
    assert next(read_records(tmp_path, 1999)).value.startswith(b"01999")


def test_truncate_to_a_batch_boundary(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, segment_bytes=300, fsync=False) as log:
        for i in range(20):
            log.append([bytes([i]) * 30, bytes([i])], i // 5)
        with pytest.raises(ValueError, match=r"inside the batch 10\.\.11"):
            log.truncate_to(11)
        log.truncate_to(12)
        assert (log.end_offset, log.latest_epoch) == (12, 1)
        log.append([b"new"], 1)
        assert log.end_offset == 13
    values = [r.value for r in read_records(tmp_path)]
    assert len(values) == 13 and values[-1] == b"new"
    with SegmentedLog(tmp_path) as log:
        assert log.end_offset == 13


def test_delete_segments_below_keeps_what_is_needed(tmp_path: Path) -> None:
    with SegmentedLog(tmp_path, segment_bytes=300, fsync=False) as log:
        for i in range(20):
            log.append([bytes([i]) * 60], 0)
        bases = [b for b, _ in list_segments(tmp_path)]
        deleted = log.delete_segments_below(bases[2] + 1)
        assert len(deleted) == 2
        assert log.start_offset == bases[2]
        assert next(log.read_records(log.start_offset)).offset == bases[2]
        log.delete_segments_below(10**9)
        assert len(list_segments(tmp_path)) == 1  # the active segment stays
        log.append([b"z"], 0)
        assert log.end_offset == 21


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.binary(max_size=300), min_size=1, max_size=40),
    headers=st.lists(st.tuples(st.text(max_size=5), st.none() | st.binary(max_size=5)), max_size=3),
    keyed=st.booleans(),
)
def test_fast_record_parser_equals_kafka_python(
    values: list[bytes], headers: list[tuple[str, bytes | None]], keyed: bool
) -> None:
    """The uncompressed-batch parser returns what kafka-python's reader returns."""
    from kafka.record.default_records import DefaultRecordBatchBuilder

    from aclog.log.batch import _values_via_kafka_python, record_values

    builder = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 30)
    for i, value in enumerate(values):
        builder.append(i, 1000 + i * 7, b"k%d" % i if keyed else None, value, headers)
    batch = bytes(builder.build())
    assert record_values(batch) == _values_via_kafka_python(batch) == values


def test_compressed_batches_are_read_through_kafka_python() -> None:
    from kafka.record.default_records import DefaultRecordBatchBuilder

    from aclog.log.batch import record_values

    builder = DefaultRecordBatchBuilder(2, 1, False, -1, -1, -1, 1 << 30)  # gzip
    values = [b"x" * 100, b"y" * 100]
    for i, value in enumerate(values):
        builder.append(i, 5, None, value, [])
    assert record_values(bytes(builder.build())) == values


def _reference_values(buf: bytes, count: int) -> list[bytes]:
    """The record parser before its single-byte fast paths, field by field."""
    from aclog.log.batch import HEADER_SIZE, _skip_header, _varint

    values, pos = [], HEADER_SIZE
    for expected_delta in range(count):
        length, pos = _varint(buf, pos)
        end = pos + length
        _, pos = _varint(buf, pos + 1)
        offset_delta, pos = _varint(buf, pos)
        if offset_delta != expected_delta:
            raise ValueError("offset delta out of order")
        key_length, pos = _varint(buf, pos)
        value_length, pos = _varint(buf, pos + max(key_length, 0))
        if value_length < 0:
            raise ValueError("null value")
        values.append(buf[pos : pos + value_length])
        headers, pos = _varint(buf, pos + value_length)
        if headers < 0:
            raise ValueError("negative header count")
        for _ in range(headers):
            pos = _skip_header(buf, pos)
        if pos != end:
            raise ValueError("length does not fit")
    if pos != len(buf):
        raise ValueError("bytes after the last record")
    return values


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(st.binary(max_size=80), min_size=1, max_size=12),
    timestamps=st.booleans(),
    keyed=st.booleans(),
    damage=st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), max_size=3),
)
def test_record_parser_accepts_and_rejects_like_the_field_by_field_parser(
    values: list[bytes], timestamps: bool, keyed: bool, damage: list[tuple[int, int]]
) -> None:
    """Fast paths or not, damaged records are refused exactly when the plain parser refuses
    them, and intact ones give the same values."""
    from kafka.record.default_records import DefaultRecordBatchBuilder

    from aclog.log.batch import HEADER_SIZE, record_values

    builder = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 30)
    for i, value in enumerate(values):
        builder.append(i, 1000 + i * 7 * timestamps, b"k" if keyed else None, value, [])
    batch = bytearray(builder.build())
    for position, byte in damage:
        batch[HEADER_SIZE + position % (len(batch) - HEADER_SIZE)] = byte
    try:
        expected: list[bytes] | None = _reference_values(bytes(batch), len(values))
    except (ValueError, IndexError):
        expected = None
    if expected is None:
        with pytest.raises(ValueError, match="records do not parse"):
            record_values(bytes(batch))
    else:
        assert record_values(bytes(batch)) == expected


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.binary(max_size=300), min_size=1, max_size=30),
    base_offset=st.integers(min_value=0, max_value=1 << 62),
    epoch=st.integers(min_value=0, max_value=(1 << 31) - 1),
    timestamp_ms=st.integers(min_value=0, max_value=1 << 50),
)
def test_batches_are_built_byte_for_byte_as_kafka_python_builds_them(
    values: list[bytes], base_offset: int, epoch: int, timestamp_ms: int
) -> None:
    _assert_built_as_kafka_python(values, base_offset, epoch, timestamp_ms)


@pytest.mark.parametrize(
    "values",
    [
        [b"v"] * 8200,  # offset deltas from 8192 on take three varint bytes
        [b"x" * 8191, b"y" * 8192, b"z" * 70_000],  # value lengths past the ready-made varints
    ],
)
def test_large_batches_are_built_as_kafka_python_builds_them(values: list[bytes]) -> None:
    _assert_built_as_kafka_python(values, 1 << 40, 3, 1_700_000_000_000)


def _assert_built_as_kafka_python(
    values: list[bytes], base_offset: int, epoch: int, timestamp_ms: int
) -> None:
    import struct

    from kafka.record.default_records import DefaultRecordBatchBuilder

    from aclog.log.batch import build_batch

    builder = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 62)
    for delta, value in enumerate(values):
        builder.append(delta, timestamp_ms, None, value, [])
    expected = builder.build()
    struct.pack_into(">q", expected, 0, base_offset)  # what kafka-python leaves to the broker
    struct.pack_into(">i", expected, 12, epoch)
    assert build_batch(values, base_offset, epoch, timestamp_ms) == expected


def test_a_failed_fsync_cuts_the_batch_and_stops_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a failed fsync the durability of what was written is unknown: the batch is cut
    (so it never reappears) and the writer takes no further write until it is reopened."""
    import aclog.log.files as files_module

    real_fsync = os.fsync
    with SegmentedLog(tmp_path) as log:
        log.append([b"kept"], epoch=1)

        def failing(fd: int) -> None:
            raise OSError(5, "Input/output error")

        monkeypatch.setattr(files_module.os, "fsync", failing)
        with pytest.raises(WriterStoppedError, match=r"Input/output error \(EIO\) on .*\.log"):
            log.append([b"lost-1", b"lost-2"], epoch=1)
        monkeypatch.setattr(files_module.os, "fsync", real_fsync)
        assert log.end_offset == 1
        with pytest.raises(WriterStoppedError, match="accepts no more writes"):
            log.append([b"next"], epoch=1)  # never retried as if the fsync had worked
    with SegmentedLog(tmp_path) as reopened:
        assert reopened.recovery is None  # nothing torn: the failed batch was cut at once
        reopened.append([b"next"], epoch=1)  # takes the failed batch's offset, as a retry would
        assert [(r.offset, r.value) for r in read_records(tmp_path)] == [(0, b"kept"), (1, b"next")]


def test_a_negative_header_key_length_is_refused_not_walked_back() -> None:
    """A header key length below zero would move the parser backwards over the same bytes (with
    a large header count, for as long as the count lasts): it is refused, as Kafka does."""
    from kafka.record.default_records import DefaultRecordBatchBuilder

    from aclog.log.batch import record_values

    builder = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 30)
    builder.append(0, 1000, None, b"value", [("key", b"v")])
    batch = bytearray(builder.build())
    at = bytes(batch).index(b"key")
    assert batch[at - 1] == 6  # zigzag 3: the key's length
    batch[at - 2 : at] = bytes([0x7E, 0x01])  # 63 headers, the first with key length -1
    with pytest.raises(ValueError, match="negative length"):
        record_values(bytes(batch))
