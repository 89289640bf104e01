"""What a group append is before it touches a file: the value types, the checks that refuse a
group whole, and each batch's bytes and offsets.

:func:`check_group` applies the log's rules (at least one record and at most
:data:`MAX_BATCH_RECORDS` per batch, no epoch older than the newest, the conditional end offset)
to every batch first, so a refused group writes nothing; :func:`build_group` then encodes the
batches back to back from the log's end offset; :func:`placed` describes them, once the writer
knows where they go, as the :class:`~aclog.log.region.LogBatch` a read would return (one type of
batch for the log layer). :class:`~aclog.log.log.SegmentedLog` writes and fsyncs them.

Thread-safe (no shared state; the values are immutable). Cost: O(batches) to check, O(batch
bytes) to build.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from aclog.log.batch import build_batch
from aclog.log.errors import FencedEpochError, StaleOffsetError
from aclog.log.region import LogBatch

MAX_BATCH_RECORDS = 100_000


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
) -> tuple[list[tuple[int, bytearray]], list[int]]:
    """Each batch's (base offset, bytes), the first at offset ``base``, and its timestamp; a
    batch without one is stamped with ``clock`` (seconds) when it is built."""
    built: list[tuple[int, bytearray]] = []
    stamps: list[int] = []
    for spec in batches:
        timestamp_ms = int(clock() * 1000) if spec.timestamp_ms is None else spec.timestamp_ms
        built.append((base, build_batch(spec.values, base, spec.epoch, timestamp_ms)))
        stamps.append(timestamp_ms)
        base += len(spec.values)
    return built, stamps


def placed(
    batches: Sequence[BatchSpec],
    built: Sequence[tuple[int, bytearray]],
    stamps: Sequence[int],
    segment: Path,
    position: int,
) -> list[LogBatch]:
    """The batches :func:`build_group` built, written back to back into ``segment`` from byte
    ``position``, as a read of them returns them."""
    found = []
    for spec, (base, data), stamp in zip(batches, built, stamps, strict=True):
        values = tuple(spec.values)
        found.append(
            LogBatch(base, base + len(values) - 1, spec.epoch, stamp, values, segment, position)
        )
        position += len(data)
    return found
