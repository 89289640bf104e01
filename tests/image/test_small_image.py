"""A small image: held in a mapping while it has fewer than ``TABLE_MIN`` ACLs (its replay
loads no numpy), a table's from the delta that makes it larger, and pinned to a mapping at any
size once a writer asks for one (``in_a_mapping``)."""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image import AclsImage
from aclog.image.acls_image import TABLE_MIN
from tests.image.test_acls_image import acl, remove, replay_all


def test_a_small_image_holds_a_mapping_until_a_delta_makes_it_large() -> None:
    few = replay_all(AclsImage.SMALL, [acl(n) for n in range(10)])
    assert few.small and few.table is None
    many = replay_all(few, [acl(n) for n in range(10, TABLE_MIN)], first_offset=10)
    assert many.table is not None and not many.small
    assert many == replay_all(AclsImage.EMPTY, [acl(n) for n in range(TABLE_MIN)])
    assert list(many.acls) == [uuid.UUID(int=n) for n in range(TABLE_MIN)]  # commit order kept
    # replay onto it now goes onto the table, as onto any table-backed image
    assert replay_all(many, [remove(3)], first_offset=TABLE_MIN).table is not None


def test_a_writer_pins_a_small_image_to_a_mapping() -> None:
    pinned = replay_all(AclsImage.SMALL, [acl(1)]).in_a_mapping()
    assert not pinned.small and pinned.table is None
    grown = replay_all(pinned, [acl(n) for n in range(2, TABLE_MIN + 2)], first_offset=1)
    assert grown.table is None and not grown.small  # a writer's commits stay dict operations


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 40)), max_size=60))
def test_a_small_image_replays_as_the_empty_one(steps: list[tuple[bool, int]]) -> None:
    """Any valid run of additions and removals gives the same image from ``SMALL`` and from
    ``EMPTY`` (a mapping and a table, each batch of five applied as one delta)."""
    held: set[int] = set()
    records = []
    for adding, n in steps:
        if adding and n not in held:
            held.add(n)
            records.append(acl(n))
        elif not adding and n in held:
            held.discard(n)
            records.append(remove(n))
    small, table = AclsImage.SMALL, AclsImage.EMPTY
    for start in range(0, len(records), 5):
        small = replay_all(small, records[start : start + 5], start)
        table = replay_all(table, records[start : start + 5], start)
    assert small == table and list(small.acls) == list(table.acls)
