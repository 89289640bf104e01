"""Finding a KRaft batch's records (aclog/kraft/record_positions.py): the one-pass chain by
claimed offset deltas is the chain pointer doubling follows whenever it answers, on batches as
Kafka writes them and on damaged ones."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.kraft import record_positions
from aclog.kraft.writer import data_batch
from aclog.log.batch import HEADER_SIZE, record_values

# Values of any bytes, zeros and high bytes likely (fake record starts), some long (two-byte
# length varints).
values = st.lists(
    st.binary(max_size=8)
    | st.lists(st.sampled_from([0, 1, 2, 0x80, 0xFF]), max_size=9).map(bytes)
    | st.binary(min_size=60, max_size=200),
    min_size=1,
    max_size=40,
)


def _chains(data: bytes, count: int) -> tuple[Any, Any]:
    buffer = np.frombuffer(data + b"\x00", dtype=np.uint8)
    candidates = record_positions._candidates(buffer, len(data))
    if not len(candidates) or candidates[0] != HEADER_SIZE:
        return None, None
    raw, size = record_positions.varint(buffer, candidates, 2)
    after = candidates + np.maximum(size, 0) + record_positions.zigzag(raw)
    args = (candidates, size, after)
    claimed = record_positions._claimed_chain(buffer, len(data), count, *args)
    followed = record_positions._followed_chain(count, *args[:2], after, len(data))
    return claimed, followed


@settings(max_examples=300, deadline=None)
@given(values, st.data())
def test_the_claimed_chain_is_the_followed_one(
    batch_values: list[bytes], data: st.DataObject
) -> None:
    batch = bytearray(data_batch(batch_values, 0, 1, 0))
    if data.draw(st.booleans()):
        batch[data.draw(st.integers(HEADER_SIZE, len(batch) - 1))] = data.draw(st.integers(0, 255))
    count = data.draw(st.sampled_from([len(batch_values), len(batch_values) + 1, 1]))
    claimed, followed = _chains(bytes(batch), count)
    if claimed is not None:
        assert followed is not None and claimed.tolist() == followed.tolist()
    undamaged = bytes(batch) == data_batch(batch_values, 0, 1, 0)
    if undamaged and count == len(batch_values) and len(batch_values) < 64:
        assert followed is not None  # Kafka's own records are always found
        starts = record_positions.record_starts(
            np.frombuffer(bytes(batch) + b"\x00", dtype=np.uint8), len(batch), count
        )
        assert starts is not None and len(starts) == count
        assert record_values(bytes(batch)) == batch_values
