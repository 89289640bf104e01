"""Runs of small batches decoded together: a backlog's fast path from log batches to replay.

A log written one request at a time is nearly all batches of a request context and 1-4
records. Decoded batch by batch (:func:`~aclog.replay.stream.decode_batch`, the reference)
each pays a fastavro call per record and a :class:`~aclog.records.decoded.DecodedRecords` of
its own; :func:`decoded_runs` instead joins consecutive small batches (fewer than
:data:`~aclog.records.small_batch.SMALL_BATCH` values each) into a :class:`BatchRun` of up to
:data:`RUN_VALUES` values and decodes those in one pass of the columnar decoder, whose fixed
cost a run shares. Replay takes a run as it takes a batch handed over from memory
(:func:`~aclog.replay.batches.replay_batches`: its records, queued with their neighbours onto
the table), so the image and the first error are the ones batch-by-batch replay gives; the
batches a run joins are all replayed into one delta anyway, so no reader could see a run's
inside. ``tests/replay/test_batch_runs.py`` holds the two paths equal.

Strictness is the reference's: a run whose values do not all decode is decoded again batch by
batch, so the batches before the damaged one replay first and its error is the reference's
(an earlier record's replay error still wins); damage the log reader finds while a run is
being gathered is raised after the batches read before it have been handed on.

Only for a replay that wants no batch on its own (no ``on_batch`` listener, no bound inside
the log): a run has one epoch and timestamp (its last batch's) and no author.

Thread-safe (no shared state). Cost: the columnar decoder's passes over each run plus one
record object per value, O(values) with no per-batch decode, where replaying batch by batch
pays one decoder set-up per batch; the ``smallbatch`` suite of ``make bench`` measures both
(replay of batches of 1, 4 and 100 records against the bulk log).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import chain

from aclog.log import LogBatch
from aclog.records.codec import RecordDecodeError
from aclog.records.decoded import DecodedRecords
from aclog.records.small_batch import SMALL_BATCH
from aclog.records.types import Record
from aclog.replay.stream import DecodedBatch, decode_batch

RUN_VALUES = 10_000
"""The most values a run holds (the size of the bulk batches the decoder is measured at): a
run's values and records are all in memory while it replays."""


@dataclass(frozen=True)
class BatchRun:
    """Consecutive small batches at offsets ``base_offset..last_offset`` (no gap), decoded
    together: their records in offset order, with the epoch and timestamp of the last one.
    What replay needs of a batch (:class:`~aclog.replay.batches.ReplayBatch`), nothing more.
    Immutable; thread-safe (``records`` is built once, on first read). Cost: O(1) until read."""

    base_offset: int
    last_offset: int
    epoch: int
    timestamp_ms: int
    batches: int
    decoded: DecodedRecords

    @cached_property
    def records(self) -> list[Record]:
        """Every record of the run, in offset order."""
        return self.decoded.records


def decoded_runs(batches: Iterable[LogBatch], start: int = 0) -> Iterator[BatchRun | DecodedBatch]:
    """``batches`` (in log order) decoded for replay from ``start``: runs of small batches as
    one :class:`BatchRun` each, every other batch (a large one, one that straddles ``start``,
    a small one alone) as :func:`~aclog.replay.stream.decode_batch` gives it.

    A batch joins a run when it holds fewer than ``SMALL_BATCH`` values, all from ``start`` on,
    at consecutive offsets starting right after the run's last one (a run's records take the
    offsets after its first), and the run stays within ``RUN_VALUES`` values. (The test is
    written out in the loop: a log of 1-record batches runs it once a batch.)"""
    run: list[LogBatch] = []
    values = 0
    follows = -1  # the offset a batch must start at to join the run
    iterator = iter(batches)
    while True:
        try:
            batch = next(iterator, None)
        except Exception:  # the log is damaged here: what was read before it replays first
            yield from _decoded(run)
            raise
        if batch is None:
            break
        base, last, size = batch.base_offset, batch.last_offset, len(batch.values)
        small = size < SMALL_BATCH and base >= start and last - base + 1 == size
        if small and base == follows and values + size <= RUN_VALUES:
            run.append(batch)
            values += size
            follows = last + 1
            continue
        yield from _decoded(run)
        run, values, follows = ([batch], size, last + 1) if small else ([], 0, -1)
        if not small:
            yield decode_batch(batch)
    yield from _decoded(run)


def _decoded(run: list[LogBatch]) -> Iterator[BatchRun | DecodedBatch]:
    """The batches of ``run`` decoded as one :class:`BatchRun`, or one by one when they hold
    too few values to pay for a columnar pass, or when a value does not decode (the
    reference then raises its error, after the batches before it)."""
    if not run or sum(len(b.values) for b in run) < SMALL_BATCH:
        yield from map(decode_batch, run)
        return
    from aclog.records.column_records import decode_columnar_records  # noqa: PLC0415  # numpy

    first, last = run[0], run[-1]
    try:
        decoded = decode_columnar_records(
            list(chain.from_iterable(b.values for b in run)), first.base_offset
        )
    except RecordDecodeError:
        yield from map(decode_batch, run)
        return
    yield BatchRun(
        first.base_offset, last.last_offset, last.epoch, last.timestamp_ms, len(run), decoded
    )
