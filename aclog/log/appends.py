"""What a group append is before it touches a file: the value types, the checks that refuse a
group whole, and each batch's bytes and offsets.

:func:`check_group` applies the log's rules (at least one record and at most
:data:`MAX_BATCH_RECORDS` per batch, no epoch older than the newest, the conditional end offset)
to every batch first, so a refused group writes nothing; :func:`build_group` then encodes the
batches back to back from the log's end offset. :class:`~aclog.log.log.SegmentedLog` writes and
fsyncs what it returns.

Thread-safe (no shared state; the values are immutable). Cost: O(batches) to check, O(batch
bytes) to build.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aclog.log.batch import build_batch
from aclog.log.errors import FencedEpochError, StaleOffsetError

MAX_BATCH_RECORDS = 100_000


@dataclass(frozen=True, slots=True)
class AppendResult:
    """Offsets given to one appended batch."""

    base_offset: int
    last_offset: int
    epoch: int
    timestamp_ms: int


@dataclass(frozen=True, slots=True)
class BatchSpec:
    """One batch of a group append: its record values, epoch and timestamp (``None``: now)."""

    values: Sequence[bytes]
    epoch: int
    timestamp_ms: int | None = None


def check_group(
    batches: Sequence[BatchSpec],
    latest_epoch: int,
    end_offset: int,
    expected_end_offset: int | None,
) -> None:
    """Refuse the whole group before anything is written."""
    if not batches:
        raise ValueError("append needs at least one batch")
    latest = latest_epoch
    for spec in batches:
        if not spec.values:
            raise ValueError("append needs at least one record")
        if len(spec.values) > MAX_BATCH_RECORDS:
            raise ValueError(f"a batch holds at most {MAX_BATCH_RECORDS} records")
        if spec.epoch < latest:
            raise FencedEpochError(spec.epoch, latest)
        latest = spec.epoch
    if expected_end_offset is not None and expected_end_offset != end_offset:
        raise StaleOffsetError(expected_end_offset, end_offset)


def build_group(
    batches: Sequence[BatchSpec], base: int, clock: Callable[[], float]
) -> tuple[list[tuple[int, bytearray]], list[AppendResult]]:
    """Each batch's (base offset, bytes) and result, the first at offset ``base``; a batch
    without a timestamp is stamped with ``clock`` (seconds) when it is built."""
    built: list[tuple[int, bytearray]] = []
    results: list[AppendResult] = []
    for spec in batches:
        timestamp_ms = int(clock() * 1000) if spec.timestamp_ms is None else spec.timestamp_ms
        built.append((base, build_batch(spec.values, base, spec.epoch, timestamp_ms)))
        results.append(AppendResult(base, base + len(spec.values) - 1, spec.epoch, timestamp_ms))
        base += len(spec.values)
    return built, results
