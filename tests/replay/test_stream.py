"""Batches read from a segment keep their records a type at a time and give them in offset order
when asked: the records, kinds, entries and author written, equal to a batch made of those
entries, and replayed (from any start, straddling a batch or not) to the same image as the
committed batches the writer handed over."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from aclog.image import MetadataImage
from aclog.log import SegmentedLog
from aclog.records import (
    NoOpRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RequestContextRecord,
    encode,
)
from aclog.replay import CommittedBatch, replay_batches
from aclog.replay.stream import DecodedBatch, read_decoded
from tests.acl_factory import acl_record


def _batches() -> list[list[Record]]:
    context = RequestContextRecord("User:admin", "10.0.0.1", "cli", 1, "CreateAcls")
    first: list[Record] = [context, *(acl_record(n, f"t{n}") for n in range(1, 30))]
    second: list[Record] = [context, *(acl_record(n, f"t{n}") for n in range(30, 50)), NoOpRecord()]
    second[5:5] = [RemoveAccessControlEntryRecord(uuid.UUID(int=n)) for n in (3, 7, 11)]
    third: list[Record] = [RemoveAccessControlEntryRecord(uuid.UUID(int=n)) for n in (1, 2)]
    return [
        first,
        second,
        third,
        [acl_record(60, "t60"), RemoveAccessControlEntryRecord(uuid.UUID(int=60))],
    ]


def _written(directory: Path) -> list[CommittedBatch]:
    committed, offset = [], 0
    with SegmentedLog(directory, fsync=False) as log:
        for records in _batches():
            log.append([encode(r) for r in records], 1, timestamp_ms=1000 + offset)
            committed.append(CommittedBatch(offset, 1, 1000 + offset, tuple(records)))
            offset += len(records)
    return committed


def test_a_read_batch_gives_what_was_written(tmp_path: Path) -> None:
    committed = _written(tmp_path)
    read = list(read_decoded(tmp_path))
    assert [b.records for b in read] == [c.records for c in committed]
    for batch in read:
        assert batch.decoded is not None and batch.decoded.count == len(batch.records)
        assert [e.offset for e in batch.entries] == list(
            range(batch.base_offset, batch.last_offset + 1)
        )
        first = batch.records[0]
        assert batch.author == (first if isinstance(first, RequestContextRecord) else None)
        same = DecodedBatch.of_entries(
            batch.base_offset,
            batch.last_offset,
            batch.epoch,
            batch.timestamp_ms,
            batch.entries,
            batch.author,
        )
        assert same == batch and hash(same) == hash(batch)
    assert read[0] != read[1]


@pytest.mark.parametrize("start", [0, 1, 30, 31, 55, 56, 57])
def test_read_batches_replay_as_the_committed_ones(tmp_path: Path, start: int) -> None:
    committed = _written(tmp_path)
    # The image before ``start``: the committed records below it, replayed one batch each.
    below = [c for c in committed if c.base_offset < start]
    base = MetadataImage.EMPTY
    for batch in below:
        cut = batch.records[: start - batch.base_offset]
        base = replay_batches(base, [CommittedBatch(batch.base_offset, 1, 1, cut)]).image
    from_log = replay_batches(base, read_decoded(tmp_path, start), start=start)
    handed = replay_batches(base, committed, start=start)
    assert from_log.image == handed.image and from_log.records == handed.records
    assert list(from_log.image.acls.acls) == list(handed.image.acls.acls)
    logged, given = from_log.delta, handed.delta
    assert logged is not None and given is not None
    assert logged.acls_delta is not None and given.acls_delta is not None
    assert list(logged.acls_delta.changes.items()) == list(given.acls_delta.changes.items())
    assert logged.request_context == given.request_context
