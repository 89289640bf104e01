"""The offset index follows Kafka's convention (an entry is the last offset of the batch at its
position), and a log whose indexes an older aclog wrote (first offsets) reads the same, is left
alone by readers and is rebuilt by its next writer."""

from __future__ import annotations

import random
from pathlib import Path

from aclog.log import SegmentedLog, list_segments, read_batches, read_records
from aclog.log.index import index_path
from aclog.log.reader import LogTail
from tests.log.kafka_index import index_entries, rewrite_as_first_offsets
from tests.tools.harness import tree_stamps


def _write(directory: Path, records: int = 3000, seed: int = 3) -> None:
    """``records`` records in batches of 1 to 25, over segments of 32 KiB."""
    rng = random.Random(seed)
    with SegmentedLog(directory, segment_bytes=32 << 10, fsync=False) as log:
        written = 0
        while written < records:
            count = rng.choice((1, 1, 2, 3, 7, 25))
            log.append([b"%06d" % (written + i) + b"v" * 40 for i in range(count)], 0)
            written += count


def test_every_index_entry_is_the_last_offset_of_the_batch_at_its_position(
    tmp_path: Path,
) -> None:
    _write(tmp_path)
    entries = index_entries(tmp_path)
    assert len(list_segments(tmp_path)) > 3
    assert sum(1 for _, _, span in entries if span and span[0] != span[1]) > 20
    assert [(f.name, o) for f, o, span in entries if span is None or span[1] != o] == []


def test_a_read_from_each_offset_starts_at_the_batch_holding_it(tmp_path: Path) -> None:
    _write(tmp_path, records=1500)
    for offset in range(0, 1500, 7):
        batch = next(read_batches(tmp_path, offset))
        assert batch.base_offset <= offset <= batch.last_offset
        assert next(read_records(tmp_path, offset)).value.startswith(b"%06d" % offset)


def test_old_first_offset_indexes_read_the_same_and_readers_leave_them_alone(
    tmp_path: Path,
) -> None:
    _write(tmp_path)
    before = {o: [r.value for r in read_records(tmp_path, o, o + 40)] for o in range(0, 3000, 13)}
    assert rewrite_as_first_offsets(tmp_path) > 20
    stamps = tree_stamps(tmp_path)
    for offset, values in before.items():
        assert [r.value for r in read_records(tmp_path, offset, offset + 40)] == values
        tail = LogTail(tmp_path)
        first = next(tail.read(offset))
        assert first.base_offset <= offset <= first.last_offset
    assert tree_stamps(tmp_path) == stamps  # a read never writes, even to fix an index


def test_the_next_writer_rebuilds_old_first_offset_indexes(tmp_path: Path) -> None:
    _write(tmp_path)
    kafka_style = {p: p.read_bytes() for _, s in list_segments(tmp_path) for p in [index_path(s)]}
    rewrite_as_first_offsets(tmp_path)
    assert {p: p.read_bytes() for p in kafka_style} != kafka_style
    with SegmentedLog(tmp_path, fsync=False) as log:
        log.append([b"after"], 0)
    last = index_path(list_segments(tmp_path)[-1][1])
    assert {p: p.read_bytes() for p in kafka_style if p != last} == {
        p: data for p, data in kafka_style.items() if p != last
    }
    assert [(f.name, o) for f, o, span in index_entries(tmp_path) if span and span[1] != o] == []
    assert [r.value for r in read_records(tmp_path)][-1] == b"after"


def test_a_writer_leaves_kafka_indexes_untouched(tmp_path: Path) -> None:
    _write(tmp_path)
    stamps = tree_stamps(tmp_path)
    with SegmentedLog(tmp_path, fsync=False):
        pass
    assert tree_stamps(tmp_path) == stamps
