"""The string pool's path for a few strings (``aclog/image/acl_pool_few.py``) against the
vectorised reference: the same history of lookups and additions gives the same codes and the
same pool with the fast path as without it, whichever path added the strings a lookup finds,
also when every string shares its hash with many others."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any
from unittest.mock import patch

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image.acl_pool import StringPool
from aclog.image.acl_pool_few import FEW, string_hash
from aclog.image.acl_string_hashes import string_hashes

_TEXT = st.one_of(
    st.sampled_from(["", "a", "a\x00", "é", "日本", "\ud800", "a" * 300, "User:alice", "*"]),
    st.text(max_size=40),
)
_STEP = st.tuples(st.lists(_TEXT, max_size=2 * FEW), st.booleans())


def _history(steps: list[tuple[list[str], bool]], few: int, weak: bool) -> tuple[Any, list[str]]:
    """Each step's answer (``codes`` when it adds, else ``known_codes``) and the pool's strings,
    with at most ``few`` strings taking the fast path; ``weak``: every hash is one bit."""
    with ExitStack() as stack:
        stack.enter_context(patch("aclog.image.acl_pool.FEW", few))
        if weak:
            one = np.uint64(1)
            stack.enter_context(
                patch("aclog.image.acl_pool.string_hashes", lambda a: string_hashes(a) & one)
            )
            stack.enter_context(
                patch("aclog.image.acl_pool.string_hash", lambda t: string_hash(t) & 1)
            )
        pool = StringPool()
        answers = [
            (pool.codes(texts) if adds else pool.known_codes(texts)).tolist()
            for texts, adds in steps
        ]
        answers.append(pool.code_of("never added \x01"))
        return answers, pool.strings


@settings(max_examples=300, deadline=None)
@given(st.lists(_STEP, max_size=10), st.booleans())
def test_a_few_strings_get_the_codes_the_reference_gives(steps: list[Any], weak: bool) -> None:
    assert _history(steps, FEW, weak) == _history(steps, 0, weak)
    texts = [text for step, _ in steps for text in step if "\ud800" not in text]
    if texts:  # the one hash both paths share (also over Arrow's own string arrays)
        assert list(map(string_hash, texts)) == string_hashes(pa.array(texts)).tolist()
