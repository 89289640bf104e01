"""The small-batch rows' tail after a snapshot: a broker that loaded a snapshot of
:data:`SNAPSHOT_ACLS` ACLs and then replays :data:`BATCHES` batches of 1 (or 4) records
(:func:`benchmarks.admin_stream.stream`: ACL additions and removals, SCRAM changes mixed in),
each led by its request context, as admin clients write them onto a big table. Part of the
``smallbatch`` suite.

The log holds the snapshot's ACLs in bulk batches, the snapshot file at their last offset,
then the tail. The image the snapshot restates is loaded once (not timed); two rows per batch
size, each timed in turn with the other sizes, best of :data:`ROUNDS`, collector paused:

- ``tail replay``: :func:`~aclog.replay.rebuild.replay_tail` of the whole tail onto the
  snapshot's image (a broker catching up after its snapshot), in records per second;
- ``tail follow``: each batch replayed on its own onto the image the previous one made
  (:func:`~aclog.replay.batches.replay_batches`, as a broker's loader does when a poll finds
  one new batch), the batches read beforehand, in records per second.

A ``mismatches`` row counts the tails whose image (both ways) differs from replaying the
whole log without the snapshot (ACLs in image order, SCRAM users).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from itertools import repeat
from pathlib import Path

from aclog.image import MetadataImage
from aclog.log import read_batches
from aclog.records.collector import gc_paused
from aclog.replay.batches import replay_batches
from aclog.replay.rebuild import rebuild_image, replay_tail
from aclog.replay.runs import decoded_runs
from aclog.snapshot import write_snapshot
from benchmarks.admin_stream import distinct_acls, stream, write
from benchmarks.harness import best_in_turn
from benchmarks.report import Row

SNAPSHOT_ACLS = 100_000
BATCHES = 5_000
SIZES = (1, 4)
ROUNDS = 3
_BULK = 10_000


def write_tail_log(directory: Path, acls: int, batches: int, size: int) -> tuple[int, int]:
    """A log of ``acls`` ACLs in bulk batches, a snapshot of them, then ``batches`` batches of
    ``size`` records; (the tail's first offset, its records, contexts aside)."""
    snapshot = distinct_acls(acls + 2 * batches * size)[:acls]
    tail = stream(batches * size, after=acls)
    bulk = [min(_BULK, acls - at) for at in range(0, acls, _BULK)]
    write(directory, [*snapshot, *tail], [*bulk, *repeat(size, batches)])
    last = acls + len(bulk) - 1  # each batch is led by its request context
    write_snapshot(directory, snapshot, last_offset=last, epoch=1, timestamp_ms=0, fsync=False)
    return last + 1, len(tail)


def _state(image: MetadataImage) -> tuple[object, ...]:
    return list(image.acls.acls.items()), image.scram.to_dict()


def _follow(directory: Path, image: MetadataImage, start: int) -> Callable[[], MetadataImage]:
    """Each batch from ``start`` replayed on its own (the batches read once, here)."""
    batches = list(read_batches(directory, start))

    def follow() -> MetadataImage:
        now = image
        with gc_paused():
            for batch in batches:
                now = replay_batches(now, decoded_runs([batch], batch.base_offset)).image
        return now

    return follow


def _catch_up(directory: Path, image: MetadataImage, start: int) -> Callable[[], MetadataImage]:
    def catch_up() -> MetadataImage:
        with gc_paused():
            return replay_tail(directory, image, start)[0]

    return catch_up


def rows(suite: str, acls: int = SNAPSHOT_ACLS, batches: int = BATCHES) -> list[Row]:
    """The rows for a snapshot of ``acls`` ACLs and tails of ``batches`` batches of each of
    :data:`SIZES` records (see the module)."""
    calls: list[Callable[[], MetadataImage]] = []
    differ, records = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            log = Path(tmp) / f"tail{size}"
            start, count = write_tail_log(log, acls, batches, size)
            image = rebuild_image(log, at_offset=start - 1).image  # the snapshot's alone
            whole = _state(rebuild_image(log, use_snapshots=False).image)
            pair = [_catch_up(log, image, start), _follow(log, image, start)]
            differ += sum(_state(call()) != whole for call in pair)
            calls.extend(pair)
            records.append(count)
        best = best_in_turn(calls, ROUNDS, collect=True)
    note = "tails (replayed at once, followed a batch at a time) whose state differs from the log's"
    shape = f"{acls}-ACL snapshot + tails"
    out = [Row(suite, "tail vs whole log", shape, acls, "mismatches", differ, "tails", note)]
    for at, size in enumerate(SIZES):
        shape = f"{acls}-ACL snapshot + {batches} batches of {size}"
        for impl, seconds in zip(
            ("tail replay", "tail follow"), best[2 * at : 2 * at + 2], strict=True
        ):
            note = f"{seconds * 1000:.1f} ms; best of {ROUNDS}, in turn with the other tails"
            rate = records[at] / seconds
            out.append(
                Row(
                    suite,
                    f"aclog {impl}",
                    shape,
                    records[at],
                    "throughput",
                    rate,
                    "records/s",
                    note,
                )
            )
    return out
