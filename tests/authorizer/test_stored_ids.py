"""The writer's view of the stored ids over an image (:class:`StoredIds`: the image as a base
and the changes since as an overlay) against the dict view a load from records builds: the
same batches pass and fail with the same errors, nothing changes on an error, and the same
ids are stored after every batch, over a table-backed image and a dict-backed one, before and
after the overlay outgrows its base."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.authorizer import Authorizer, UnknownAclError
from aclog.authorizer.stored_ids import StoredIds, by_id_of
from aclog.image import AclsImage
from aclog.image.acl_table import AclTable
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord
from tests.authorizer.strategies import make_acl

PROPERTY = settings(max_examples=150, deadline=None)
IDS = 12
"""Ids are drawn from 1..IDS, so batches often name stored, removed and re-added ids."""


def acl(number: int, name: str) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        uuid.UUID(int=number),
        ResourceType.TOPIC,
        name,
        PatternType.LITERAL,
        "User:alice",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


ids = st.integers(1, IDS)
records = st.builds(acl, ids, st.sampled_from(("a", "b", "c")))
batches = st.tuples(
    st.lists(records, max_size=4), st.lists(ids.map(lambda i: uuid.UUID(int=i)), max_size=4)
)
changes = st.dictionaries(
    ids.map(lambda i: uuid.UUID(int=i)), st.none() | st.sampled_from("ab"), max_size=4
)


def views(base: list[AccessControlEntryRecord]) -> dict[str, StoredIds]:
    """The reference (a dict built from the records) and the two image-based views."""
    table = AclTable.from_records(base)
    assert table is not None
    return {
        "dict": StoredIds(by_id_of(base)),
        "table image": StoredIds(AclsImage.of_table(table)),
        "dict image": StoredIds(AclsImage({a.id: a for a in base})),
    }


def outcome(stored: StoredIds, adds: list[Any], removes: list[uuid.UUID]) -> Any:
    """What a batch does to ``stored``: the removed records, or the error's type and text
    (and then ``stored`` must be unchanged, which the caller's next comparison checks)."""
    try:
        removed = stored.checked(adds, removes)
    except (ValueError, UnknownAclError) as error:
        return type(error).__name__, str(error)
    stored.record(adds, removed)
    return removed


def everything(stored: StoredIds) -> dict[int, AccessControlEntryRecord]:
    return stored.found([uuid.UUID(int=i) for i in range(1, IDS + 1)])


@st.composite
def bases(draw: st.DrawFn) -> list[AccessControlEntryRecord]:
    """Distinct ids and distinct bindings (a table refuses a binding stated twice)."""
    numbers = draw(st.lists(ids, unique=True, max_size=IDS))
    return [acl(n, f"base{n}") for n in numbers]


@PROPERTY
@given(bases(), st.lists(batches | changes, max_size=25))
def test_a_view_over_an_image_passes_and_fails_the_batches_the_dict_view_does(base, steps) -> None:
    """Every step is a batch (adds, removes) or an image delta's changes (id -> record or
    removal); 25 steps over at most 12 ACLs push the overlay past its base often."""
    stored = views(base)
    for step in steps:
        if isinstance(step, dict):
            delta = {i: None if name is None else acl(i.int, name) for i, name in step.items()}
            made = {label: view.batch(delta) for label, view in stored.items()}
            assert len({repr(batch) for batch in made.values()}) == 1, made
            adds, removes = made["dict"]
        else:
            adds, removes = step
        results = {
            label: outcome(view, list(adds), list(removes)) for label, view in stored.items()
        }
        assert len({repr(result) for result in results.values()}) == 1, results
        held = {label: everything(view) for label, view in stored.items()}
        assert held["table image"] == held["dict"] == held["dict image"]


def test_the_first_change_after_a_load_from_a_table_builds_no_record_but_its_own(
    monkeypatch,
) -> None:
    """The writer's view of the ids is the table plus an overlay: neither the load nor the
    first changes make every record (only the batch's own); when the overlay outgrows the
    base, the view is made whole once."""
    base = [acl(n, f"t{n}") for n in range(1, 9)]
    table = AclTable.from_records(base)
    assert table is not None
    walks = []
    real = AclTable.records
    monkeypatch.setattr(AclTable, "records", lambda self: walks.append(1) or real(self))
    authorizer = Authorizer()
    authorizer.load(AclsImage.of_table(table))
    authorizer.remove(base[0].id)
    authorizer.apply_changes({base[1].id: acl(2, "z"), uuid.UUID(int=50): acl(50, "y")})
    with pytest.raises(UnknownAclError):
        authorizer.remove(base[0].id)
    with pytest.raises(ValueError, match="already stored"):
        authorizer.add(base[2])
    assert walks == []  # only the batches' ids were looked up
    # The overlay: ids 1 and 2 gone, 2 and 50 added; 5 more: 9 entries > the base's 8 ACLs.
    for n in range(60, 65):
        authorizer.add(acl(n, "x"))
    assert walks == [1]  # made whole once
    authorizer.remove(uuid.UUID(int=60))
    assert walks == [1]
    names = sorted(a.resource_name for a in authorizer.index)
    assert names == sorted([*(f"t{n}" for n in range(3, 9)), "z", "y", *"xxxx"])


def test_an_authorizer_loaded_from_a_table_image_changes_as_one_loaded_from_records() -> None:
    base = [make_acl(name) for name in ("orders", "payments", "audit")]
    table = AclTable.from_records(base)
    assert table is not None
    mine, reference = Authorizer(), Authorizer()
    mine.load(AclsImage.of_table(table))
    reference.load(base)
    for authorizer in (mine, reference):
        authorizer.apply_changes({base[0].id: None, base[1].id: make_acl("p2", acl_id=base[1].id)})
        with pytest.raises(UnknownAclError, match="no stored ACL has it"):
            authorizer.remove(base[0].id)
    assert mine.index.listing() == reference.index.listing()
    assert [a.resource_name for a in table.records()] == ["orders", "payments", "audit"]
