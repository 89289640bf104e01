"""A table's rows searched for a few ids or bindings (``aclog/image/acl_segment_few.py``)
against the vectorised reference: over a table of several segments, some rows removed, any
few ids and bindings (stored, removed, never stored) are located as the reference locates
them, and the table's lookups answer the same."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image.acl_column_rows import of_records, words_of
from aclog.image.acl_segment_few import FEW
from aclog.image.acl_table import AclTable
from tests.acl_factory import acl_record

_ACLS = [acl_record(n + 1, f"topic-{n % 9}", f"User:u{n // 9}", op=2 + n % 3) for n in range(60)]
"""ACLs of distinct ids and bindings, several on each name and principal."""


def _table(batches: list[list[int]], removed: set[int]) -> AclTable:
    """The table of ``_ACLS`` added a batch at a time (one segment each, some merged), then
    ``removed`` removed."""
    table = AclTable.build([])
    for batch in batches:
        assert table is not None
        table = table.applied(of_records([_ACLS[n] for n in batch]), words_of([]))
    assert table is not None
    gone = table.applied(of_records([]), words_of([_ACLS[n].id for n in sorted(removed)]))
    assert gone is not None
    return gone


def _answers(batches: list[list[int]], removed: set[int], acls: list[Any], few: int) -> Any:
    """The table built with at most ``few`` queries searched for in Python (its applies
    search too), and every answer its rows give about ``acls``' ids and bindings."""
    with patch("aclog.image.acl_segment.FEW", few):
        table = _table(batches, removed)
        ids = words_of([a.id for a in acls])
        located = table._rows.located(ids, binding=False)  # what the reads wrap
        reads = (
            table.ids_of_keys([a.key for a in acls]),
            table.get_many([a.id for a in acls]),
            table.contains_words(ids).tolist(),
        )
    plain = [(at, asked.tolist(), rows.tolist()) for at, asked, rows in located]
    return table.records(), table.segments, plain, reads


_INDEX = st.integers(0, len(_ACLS) - 1)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(_INDEX, min_size=1, max_size=12, unique=True), min_size=1, max_size=6),
    st.sets(_INDEX),
    st.lists(_INDEX, min_size=1, max_size=FEW - 1),
    st.booleans(),
)
def test_a_few_ids_and_bindings_are_located_as_the_reference_locates_them(
    batches: list[list[int]], removed: set[int], asked: list[int], foreign: bool
) -> None:
    seen: set[int] = set()
    fresh = []  # each ACL added once
    for batch in batches:
        fresh.append([n for n in batch if n not in seen])
        seen.update(batch)
    batches = [batch for batch in fresh if batch]
    acls = [_ACLS[n] for n in asked]
    if foreign:  # an id and a binding no row holds, beside the others
        acls.append(acl_record(10_000, "topic-1", "User:nobody", op=2))
    ours = _answers(batches, removed & seen, acls, FEW)
    assert ours == _answers(batches, removed & seen, acls, 0)
