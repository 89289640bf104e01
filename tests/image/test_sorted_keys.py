"""The contract of :meth:`SortedKeys.of <aclog.image.acl_table_keys.SortedKeys.of>` (an
unstable argsort, checked for equal keys) against its reference, the stable argsort: the same
keys and the same rows, equal keys included (their rows ascending)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image.acl_table_keys import SortedKeys

# Small ranges make equal keys likely; the full range makes them rare.
_KEYS = st.one_of(
    st.lists(st.integers(0, 7), max_size=300),
    st.lists(st.integers(0, 2**64 - 1), max_size=300),
)


@settings(max_examples=300, deadline=None)
@given(_KEYS)
def test_sorted_keys_are_the_stable_sorts(values: list[int]) -> None:
    prints = np.array(values, dtype=np.uint64)
    order = np.argsort(prints, kind="stable")
    found = SortedKeys.of(prints)
    assert found.keys.tolist() == prints[order].tolist()
    assert found.rows.tolist() == order.tolist()


def test_equal_keys_among_many_keep_their_rows_ascending() -> None:
    """Past the size where numpy's unstable sort stops being an insertion sort, one pair of
    equal keys among distinct ones: its rows stay in order."""
    prints = np.random.default_rng(7).permutation(np.arange(5_000, dtype=np.uint64) * 3)
    prints[4_000] = prints[17]
    found = SortedKeys.of(prints)
    at = int(np.searchsorted(found.keys, prints[17]))
    assert found.rows[at : at + 2].tolist() == [17, 4_000]
