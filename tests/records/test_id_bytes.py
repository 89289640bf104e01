"""Ids cut from packed bytes (:func:`split_ids`) and from (hi, lo) words (:func:`id_bytes`):
every id comes back whole, trailing zero bytes included (numpy's ``S16`` would strip them,
``V16`` keeps them), and the two routes agree with ``UUID.bytes``."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aclog.image.acl_column_rows import id_bytes, words_of_id_bytes
from aclog.records.id_bytes import split_ids

IDS = st.lists(
    st.one_of(st.integers(0, 300), st.integers(0, (1 << 128) - 1), st.just(1 << 120)),
    max_size=40,
)


@given(IDS)
def test_split_ids_gives_each_uuids_bytes(values: list[int]) -> None:
    raws = [uuid.UUID(int=value).bytes for value in values]
    packed = b"".join(raws)
    assert split_ids(packed) == raws
    assert split_ids(memoryview(packed)) == raws
    assert id_bytes(words_of_id_bytes(packed)) == raws


def test_ids_ending_in_zero_bytes_keep_them() -> None:
    raw = uuid.UUID(int=1 << 120).bytes  # one non-zero byte, then fifteen zeros
    assert split_ids(raw * 3) == [raw] * 3
    assert id_bytes((np.array([1 << 56], dtype=np.uint64), np.array([0], dtype=np.uint64))) == [raw]


def test_a_run_that_is_not_whole_ids_is_refused() -> None:
    with pytest.raises(ValueError, match="multiple"):
        split_ids(b"\x01" * 17)
