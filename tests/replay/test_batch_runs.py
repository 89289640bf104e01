"""The fast path of a backlog's replay (:func:`~aclog.replay.runs.decoded_runs`: runs of
small batches decoded together) against the reference (each batch decoded on its own,
:func:`~aclog.replay.stream.decode_batch`): for any sequence of batches of any sizes, onto an
empty, a table-backed and a mapping-backed image, the same image, ACL changes, SCRAM users and
decisions, or the same first error (a record that cannot apply, a value that does not decode,
damage the log reader finds) at the same offset; and a snapshot plus the tail after it
replays to what the whole log does, wherever the snapshot's offset falls."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.authorizer import Authorizer
from aclog.image import MetadataImage, ReplayError
from aclog.log import CorruptLogError, LogBatch, SegmentedLog
from aclog.records import AclOperation, RequestContextRecord, ResourceType, encode
from aclog.records.codec import RecordDecodeError
from aclog.records.small_batch import SMALL_BATCH
from aclog.records.types import Record
from aclog.replay import rebuild_image
from aclog.replay.batches import CommittedBatch, ReplayBatch, replay_batches
from aclog.replay.runs import BatchRun, decoded_runs
from aclog.replay.stream import decode_batch
from tests.replay.record_stream import NAMES, STORED, RecordStream, op

CONTEXT = RequestContextRecord("User:admin", "10.0.0.1", "cli", 1000, "CreateAcls")
DAMAGED = b"\x00\x7f\x01garbage"
"""A value no decoder takes (an unknown frame)."""

_sizes = st.tuples(
    st.lists(st.integers(1, 5), min_size=1, max_size=6),
    st.one_of(st.none(), st.integers(2, 60)),
)
"""Batch sizes (records after the context): a few, cycled, and (if set) every so many batches
one around the line between a small batch and a large one."""
_ops = st.tuples(st.lists(op, min_size=1, max_size=40), st.integers(1, 800))
"""What the stream does, cycled to that many records (enough for small batches to make runs)."""


def _bases() -> dict[str, MetadataImage]:
    table = replay_batches(MetadataImage.EMPTY, [CommittedBatch(0, 1, 1, STORED)]).image
    return {"empty": MetadataImage.EMPTY, "table": table, "mapping": table.in_a_mapping()}


def _log_batches(
    records: list[Record], sizes: tuple[list[int], int | None], first: int
) -> list[LogBatch]:
    """``records`` as log batches of ``sizes`` records, each led by a context, at offsets from
    ``first``, with an epoch and a timestamp per batch."""
    batches, at, offset = [], 0, first
    small, every = sizes
    for count, size in enumerate(small * (len(records) + 1)):
        if at >= len(records):
            break
        large = every is not None and count % every == every - 1
        end = at + (SMALL_BATCH - 3 + count % 5 if large else size)
        values = tuple(encode(r) for r in [CONTEXT, *records[at:end]])
        last = offset + len(values) - 1
        batches.append(LogBatch(offset, last, 1 + at % 3, 1000 + at, values, Path("s"), 0))
        at, offset = end, last + 1
    return batches


def _damaged(batches: list[LogBatch], which: int | None) -> list[LogBatch]:
    """``batches`` with the last value of batch ``which`` (cycled; ``None``: none) damaged."""
    if which is None:
        return batches
    at = which % len(batches)
    hit = batches[at]
    batch = LogBatch(
        *(hit.base_offset, hit.last_offset, hit.epoch, hit.timestamp_ms),
        (*hit.values[:-1], DAMAGED),
        hit.segment,
        0,
    )
    return [*batches[:at], batch, *batches[at + 1 :]]


def _torn(batches: list[LogBatch], after: int | None) -> Iterator[LogBatch]:
    """``batches`` as a reader gives them, raising damage after ``after`` of them."""
    for count, batch in enumerate(batches):
        if count == after:
            raise CorruptLogError("s", batch.base_offset, "a damaged batch")
        yield batch


def _outcome(image: MetadataImage, batches: Iterable[ReplayBatch], start: int) -> object:
    try:
        replayed = replay_batches(image, batches, start=start)
    except (ReplayError, RecordDecodeError, CorruptLogError) as error:
        return f"{type(error).__name__}: {error}"
    acls = None if replayed.delta is None else replayed.delta.acls_delta
    authorizer = Authorizer()
    authorizer.load(replayed.image.acls)
    decisions = [
        authorizer.authorize(principal, "10.0.0.9", AclOperation.READ, ResourceType.TOPIC, name)
        for name in NAMES
        for principal in ("User:bob", "User:x")
    ]
    return (
        replayed.image,
        list(replayed.image.acls.acls.items()),
        replayed.image.scram.to_dict(),
        None if acls is None else list(acls.changes.items()),
        decisions,
    )


def _stream(ops: tuple[list[tuple[str, int]], int], base: str) -> list[Record]:
    stream = RecordStream(stored=base != "empty")
    cycle, count = ops
    return [stream.record(*cycle[i % len(cycle)]) for i in range(count)]


@settings(max_examples=120, deadline=None)
@given(
    ops=_ops,
    sizes=_sizes,
    base=st.sampled_from(["empty", "table", "mapping"]),
    damaged=st.one_of(st.none(), st.integers(0, 300)),
    torn=st.one_of(st.none(), st.integers(0, 300)),
)
def test_runs_replay_as_batch_by_batch_does(
    ops: tuple[list[tuple[str, int]], int],
    sizes: tuple[list[int], int | None],
    base: str,
    damaged: int | None,
    torn: int | None,
) -> None:
    image = _bases()[base]
    first = image.provenance.last_offset + 1
    batches = _damaged(_log_batches(_stream(ops, base), sizes, first), damaged)
    reference = _outcome(image, map(decode_batch, _torn(batches, torn)), first)
    assert _outcome(image, decoded_runs(_torn(batches, torn), first), first) == reference


@settings(max_examples=80, deadline=None)
@given(
    ops=_ops,
    sizes=_sizes,
    base=st.sampled_from(["empty", "table", "mapping"]),
    cut=st.integers(0, 10_000),
)
def test_a_snapshot_and_its_tail_replay_as_the_whole_log(
    ops: tuple[list[tuple[str, int]], int], sizes: tuple[list[int], int | None], base: str, cut: int
) -> None:
    """The head up to any offset (the snapshot's image) plus the runs of the batches holding
    offsets from it (one of them may straddle it) equals the whole log replayed; a stream with
    an error in it fails either way."""
    image = _bases()[base]
    first = image.provenance.last_offset + 1
    batches = _log_batches(_stream(ops, base), sizes, first)
    whole = _state(_outcome(image, decoded_runs(batches, first), first))
    start = first + cut % (batches[-1].last_offset + 2 - first)
    try:
        head = replay_batches(image, _up_to(batches, start), start=first).image
    except ReplayError:
        assert isinstance(whole, str)
        return
    tail = [b for b in batches if b.last_offset >= start]
    if not tail:
        assert not isinstance(whole, str)
        assert head == whole[0]  # type: ignore[index]
        return
    assert _state(_outcome(head, decoded_runs(tail, start), start)) == whole


def _state(outcome: object) -> object:
    """An outcome without the delta's changes (a tail's delta holds only the tail's)."""
    if isinstance(outcome, str):
        return outcome
    image, acls, scram, _, decisions = outcome  # type: ignore[misc]
    return image, acls, scram, decisions


def _up_to(batches: list[LogBatch], start: int) -> list[ReplayBatch]:
    """The records of ``batches`` below ``start`` (decoded batch by batch), a batch that
    straddles ``start`` cut there."""
    out: list[ReplayBatch] = []
    for batch in batches:
        records = decode_batch(batch).records[: max(start - batch.base_offset, 0)]
        if records:
            out.append(CommittedBatch(batch.base_offset, batch.epoch, batch.timestamp_ms, records))
    return out


def test_small_batches_are_joined_into_runs_and_large_ones_are_not() -> None:
    """The fast path is taken: consecutive small batches become one run (and a large batch,
    or one straddling the start, stays a batch of its own)."""
    records = _stream(([("add", 50 + i % 40) for i in range(40)], 400), "empty")
    batches = _log_batches(records, ([3], 50), 0)
    out = list(decoded_runs(batches, start=1))
    kinds = [type(b).__name__ for b in out]
    assert "BatchRun" in kinds and "DecodedBatch" in kinds
    assert type(out[0]).__name__ == "DecodedBatch"  # straddles the start
    runs = [b for b in out if isinstance(b, BatchRun)]
    assert all(run.batches > 1 for run in runs)
    assert [b.base_offset for b in out] == sorted(b.base_offset for b in out)
    replayed = replay_batches(MetadataImage.EMPTY, decoded_runs(batches))
    assert replayed.batches == len(batches)  # a run counts the batches it joined


def test_a_rebuild_of_a_log_of_small_batches_equals_its_batch_by_batch_replay(
    tmp_path: Path,
) -> None:
    """On disk, through ``rebuild_image``: the run path (no listener) gives the image the
    batch-by-batch path (a listener hearing of every batch) gives, to the end and to a point."""
    records = _stream(([("add", 50 + i % 40) for i in range(30)] + [("scram", 3)], 700), "empty")
    with SegmentedLog(tmp_path, fsync=False) as log:
        for batch in _log_batches(records, ([1, 3, 2], 90), 0):
            log.append(list(batch.values), 1, timestamp_ms=batch.timestamp_ms)
    heard: list[int] = []
    for point in (None, 333):
        fast = rebuild_image(tmp_path, at_offset=point)
        each = rebuild_image(tmp_path, at_offset=point, on_batch=lambda b: heard.append(1))
        assert fast.image == each.image and fast.records_replayed == each.records_replayed
        assert fast.batches_replayed == len(heard) and len(fast.image.acls) > 100
        heard.clear()


def test_a_point_does_not_hide_a_value_that_does_not_decode_right_after_it(
    tmp_path: Path,
) -> None:
    """Replayed to offset 0, a log whose next batch does not decode is refused, as a replay of
    everything refuses it (the batch past the point is decoded, not replayed)."""
    with SegmentedLog(tmp_path, fsync=False) as log:
        log.append([encode(CONTEXT)], 1)
        log.append([DAMAGED], 1)
    with pytest.raises(RecordDecodeError, match="offset 1"):
        rebuild_image(tmp_path, at_offset=0)
