"""Where the values of an uncompressed KRaft data batch sit, found by numpy passes over its
bytes: :func:`value_positions`, the first half of the fast paths of :mod:`aclog.kraft.acl_batch`
and :mod:`aclog.kraft.acl_kinds` (the second half takes the values apart).

The offset of record ``i + 1`` follows from the length varint of record ``i``, a chain that
numpy follows by pointer doubling over the places a record can start (where attributes and
timestamp delta, two zero bytes, follow a length): about log2(records) passes. Every record is
then checked to be exactly what Kafka's raft layer writes (a minimal length, attributes 0,
timestamp delta 0, offset delta ``i``, a null key, the value, no headers, the length covering
exactly that), so the values are the ones :func:`~aclog.log.batch.record_values` cuts; anything
else gives ``None`` (the caller takes the general path, which decodes or raises).

Thread-safe (pure functions). Cost: a few dozen numpy passes per batch, no Python bytecode per
record.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclog.log.batch import HEADER_SIZE

MAX_RECORDS = 1 << 20
"""Larger batches (offset deltas of four varint bytes) take the general path."""


def varint(buffer: Any, at: Any, max_bytes: int) -> tuple[Any, Any]:
    """The unsigned varints at ``at`` (``int64``) and their sizes in bytes; the size is
    negative for one that is longer than ``max_bytes`` or not minimal (a last byte of 0 after
    the first), which Kafka never writes."""
    value = np.zeros(len(at), dtype=np.int64)
    size = np.zeros(len(at), dtype=np.int64)
    more = np.ones(len(at), dtype=bool)
    for i in range(max_bytes):
        byte = buffer[at + i].astype(np.int64)
        value |= np.where(more, (byte & 0x7F) << (7 * i), 0)
        size += more
        minimal = (byte != 0) | (i == 0)
        size[more & ~minimal] = -MAX_RECORDS  # a non-minimal varint never checks out
        more &= (byte & 0x80) != 0
    size[more] = -MAX_RECORDS  # longer than allowed
    return value, size


def zigzag(value: Any) -> Any:
    return (value >> 1) ^ -(value & 1)


def value_positions(buffer: Any, end: int, count: int) -> tuple[Any, Any] | None:
    """Where each record's value starts and ends, when the records are exactly Kafka's."""
    starts = record_starts(buffer, end, count)
    if starts is None:
        return None
    raw_length, length_size = varint(buffer, starts, 2)
    record_end = starts + length_size + zigzag(raw_length)
    delta_at = starts + length_size + 2  # after attributes and timestamp delta (checked 0, 0)
    delta, delta_size = varint(buffer, delta_at, 3)
    key_at = delta_at + delta_size
    value_length, value_length_size = varint(buffer, key_at + 1, 2)
    value_start = key_at + 1 + value_length_size
    value_end = value_start + zigzag(value_length)
    exact = (
        (length_size > 0)
        & (delta_size > 0)
        & (value_length_size > 0)
        & (delta == 2 * np.arange(count, dtype=np.int64))  # zigzag of offset delta i
        & (buffer[key_at] == 1)  # a null key: zigzag -1
        & (value_end >= value_start)
        & (value_end + 1 == record_end)
        & (buffer[np.minimum(value_end, end)] == 0)  # no headers
    )
    return (value_start, value_end) if bool(exact.all()) else None


def record_starts(buffer: Any, end: int, count: int) -> Any | None:
    """Where each of the ``count`` records starts, following the length varints from the
    first record to the batch's end; ``None`` unless the chain ends exactly there."""
    candidates = _candidates(buffer, end)
    if not len(candidates) or candidates[0] != HEADER_SIZE:
        return None
    raw, size = varint(buffer, candidates, 2)
    after = candidates + np.maximum(size, 0) + zigzag(raw)
    claimed = _claimed_chain(buffer, end, count, candidates, size, after)
    return claimed if claimed is not None else _followed_chain(count, candidates, size, after, end)


def _candidates(buffer: Any, end: int) -> Any:
    """The places a record can start: a length varint of one or two bytes, then two zero
    bytes (attributes and timestamp delta)."""
    zeros = buffer[HEADER_SIZE : end + 1] == 0
    pair = np.zeros(len(zeros) + 2, dtype=bool)
    pair[: len(zeros) - 1] = zeros[:-1] & zeros[1:]  # pair[p]: bytes p and p + 1 are 0
    high = buffer[HEADER_SIZE : end + 1] >= 0x80
    one = ~high & pair[1 : len(zeros) + 1]
    two = high & ~np.append(high[1:], False) & pair[2 : len(zeros) + 2]
    return np.flatnonzero(one | two) + HEADER_SIZE


def _claimed_chain(
    buffer: Any, end: int, count: int, candidates: Any, size: Any, after: Any
) -> Any | None:
    """The chain in one go, when it is plain: each candidate claims a record index (its
    offset delta); keeping those whose successor is the end (the last index) or a candidate
    claiming the next index leaves, in a batch as Kafka writes it, exactly one candidate per
    index. Then checking that the first is the batch's first byte and that each one's
    successor is the next proves them the chain :func:`_followed_chain` would follow; else
    ``None`` (that one decides)."""
    delta_at = np.minimum(candidates + np.maximum(size, 0) + 2, len(buffer) - 3)
    delta, delta_size = varint(buffer, delta_at, 3)
    claim = np.where((size > 0) & (delta_size > 0), zigzag(delta), -1)
    found = np.minimum(np.searchsorted(candidates, after), len(candidates) - 1)
    linked = (candidates[found] == after) & (claim[found] == claim + 1)
    kept = np.flatnonzero((claim >= 0) & np.where(after == end, claim == count - 1, linked))
    if len(kept) != count or candidates[kept[0]] != HEADER_SIZE:
        return None
    starts = candidates[kept]
    if not bool((after[kept[:-1]] == starts[1:]).all()) or after[kept[-1]] != end:
        return None
    return starts


def _followed_chain(count: int, candidates: Any, size: Any, after: Any, end: int) -> Any | None:
    """The chain followed from the first candidate by pointer doubling: about log2(count)
    passes."""
    # Each candidate's successor by index: the end of the batch, or nowhere (a broken chain).
    done, broken = len(candidates), len(candidates) + 1
    found = np.minimum(np.searchsorted(candidates, after), done - 1)
    jump = np.where(candidates[found] == after, found, broken)
    jump = np.append(np.where(after == end, done, jump), [broken, broken])
    jump[(size <= 0).nonzero()[0]] = broken
    # Record m is jump applied m times to record 0: by the bits of m, doubling the jump.
    steps = np.arange(count + 1)
    at = np.zeros(count + 1, dtype=np.int64)
    bit = 0
    while (1 << bit) <= count:
        taken = ((steps >> bit) & 1).astype(bool)
        at[taken] = jump[at[taken]]
        jump = jump[jump]
        bit += 1
    if at[count] != done or bool((at[:count] >= done).any()):
        return None
    return candidates[at[:count]]
