"""A big delta replays batches into a working copy of the image (``aclog.image.working``) and
hands it over on apply: the result is what replaying the records one by one gives (changes,
image, order, binding index, first error and its offset), and a batch it declines leaves the
delta as it was."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings

from aclog.image import MetadataDelta, MetadataImage, MetadataProvenance, apply_records, layered
from aclog.image.errors import ReplayError
from aclog.records.types import AccessControlEntryRecord, Record, RemoveAccessControlEntryRecord
from tests.image.test_replay_batch import _acl, _base, _histories, _replay


@contextmanager
def _small_overlays() -> Iterator[None]:
    """Overlays of a few keys, so that the small images of the generated histories already
    take the working copy (the hypothesis runner forbids a function-scoped monkeypatch)."""
    saved = layered.MIN_OVERLAY
    layered.MIN_OVERLAY = 0
    try:
        yield
    finally:
        layered.MIN_OVERLAY = saved


@settings(max_examples=400, deadline=None)
@given(_histories())
def test_working_copy_replay_equals_one_by_one(
    history: tuple[list[Record], list[list[Record]]],
) -> None:
    base_records, batches = history
    with _small_overlays():
        base = _base(base_records)
        bulk, bulk_error = _replay(base, batches, one_by_one=False)
        single, single_error = _replay(base, batches, one_by_one=True)
        assert bulk_error == single_error
        bulk_acls, single_acls = bulk.acls_delta, single.acls_delta
        if bulk_acls is not None and single_acls is not None:
            assert list(bulk_acls.changes.items()) == list(single_acls.changes.items())
        provenance = MetadataProvenance(1000, 1, 1)
        bulk_image, single_image = bulk.apply(provenance), single.apply(provenance)
        assert list(bulk_image.acls.acls.items()) == list(single_image.acls.acls.items())
        assert bulk_image == single_image
        assert bulk_image.acls.bindings == single_image.acls.bindings
        for acl in bulk_image.acls:
            assert bulk_image.acls.id_of(acl.binding) == acl.id


def _stored(count: int) -> MetadataImage:
    return apply_records(MetadataImage.EMPTY, [_acl(n, f"s{n}") for n in range(1, count)], 0)


def test_a_big_batch_goes_through_the_working_copy_and_apply_hands_it_over() -> None:
    base = _stored(200)
    batch: list[Record] = [_acl(n, f"n{n}") for n in range(1000, 1300)]
    batch += [RemoveAccessControlEntryRecord(uuid.UUID(int=n)) for n in range(1, 50)]
    delta = MetadataDelta(base)
    delta.replay_records(batch, 200)
    replayer = delta.acl_batches
    assert replayer is not None
    working = replayer.working
    assert working is not None
    replayer.check()
    image = delta.apply(MetadataProvenance(600, 1, 1))
    assert image.acls.acls._base is working.acls  # type: ignore[attr-defined]
    assert [a.resource_name for a in image.acls] == [f"s{n}" for n in range(50, 200)] + [
        f"n{n}" for n in range(1000, 1300)
    ]
    assert image == apply_records(base, batch, 200, MetadataProvenance(600, 1, 1))
    assert base.acls.id_of(_acl(1, "s1").binding) == uuid.UUID(int=1)  # the base is untouched
    assert len(base.acls) == 199


@pytest.mark.parametrize(
    "bad",
    [
        AccessControlEntryRecord(uuid.UUID(int=5), *_acl(0, "x").key),  # an id stored
        AccessControlEntryRecord(uuid.UUID(int=9999), *_acl(0, "s7").key),  # a binding stored
        RemoveAccessControlEntryRecord(uuid.UUID(int=8888)),  # a removal of nothing
    ],
)
def test_a_batch_the_working_copy_declines_fails_as_one_by_one_and_keeps_the_delta(
    bad: Record,
) -> None:
    base = _stored(200)
    delta = MetadataDelta(base)
    delta.replay_records([_acl(n, f"n{n}") for n in range(1000, 1100)], 200)
    assert delta.acl_batches is not None and delta.acl_batches.working is not None
    replayer = delta.acl_batches
    changes = list(replayer.delta.changes.items())
    batch: list[Record] = [_acl(n, f"m{n}") for n in range(2000, 2100)] + [bad]
    with pytest.raises(ReplayError) as raised:
        delta.replay_records(batch, 300)
    assert raised.value.offset == 300 + len(batch) - 1
    replayer.check()
    assert list(replayer.delta.changes.items())[: len(changes)] == changes
    expected = apply_records(base, [_acl(n, f"n{n}") for n in range(1000, 1100)], 200)
    # The records before the bad one were replayed one by one, as a replay that then stops.
    image = delta.apply(MetadataProvenance(299, 1, 1))
    assert list(image.acls.acls)[: len(expected.acls)] == list(expected.acls.acls)


def test_a_binding_removed_and_added_in_one_batch_keeps_the_working_copy() -> None:
    """Remove-then-add of one binding applies and add-then-remove does not: the order decides,
    so the working copy declines such a batch before writing anything, and keeps its state."""
    base = _stored(200)
    first = [_acl(n, f"n{n}") for n in range(1000, 1100)]
    readd = AccessControlEntryRecord(uuid.UUID(int=5000), *_acl(0, "s7").key)
    valid: list[Record] = [*first, RemoveAccessControlEntryRecord(uuid.UUID(int=7)), readd]
    delta = MetadataDelta(base)
    delta.replay_records(valid, 200)
    assert delta.acl_batches is not None and delta.acl_batches.working is not None
    delta.acl_batches.check()
    image = delta.apply(MetadataProvenance(301, 1, 1))
    assert image == apply_records(base, valid, 200, MetadataProvenance(301, 1, 1))
    assert image.acls.id_of(readd.binding) == readd.id
    reversed_order: list[Record] = [*first, readd, RemoveAccessControlEntryRecord(uuid.UUID(int=7))]
    with pytest.raises(ReplayError) as raised:
        MetadataDelta(base).replay_records(reversed_order, 200)
    assert raised.value.offset == 200 + len(first)


@settings(max_examples=300, deadline=None)
@given(_histories())
def test_changes_read_after_apply_equal_one_by_one(
    history: tuple[list[Record], list[list[Record]]],
) -> None:
    """A publisher reads the changes after the delta was applied: the batches a working state
    kept pending are in them then, in commit order, as if replayed one by one."""
    base_records, batches = history
    with _small_overlays():
        base = _base(base_records)
        bulk, bulk_error = _replay(base, batches, one_by_one=False)
        single, single_error = _replay(base, batches, one_by_one=True)
        provenance = MetadataProvenance(1000, 1, 1)
        bulk_image, single_image = bulk.apply(provenance), single.apply(provenance)
    assert bulk_error == single_error
    assert list(bulk_image.acls.acls.items()) == list(single_image.acls.acls.items())
    bulk_acls, single_acls = bulk.acls_delta, single.acls_delta
    if bulk_acls is not None and single_acls is not None:
        assert list(bulk_acls.changes.items()) == list(single_acls.changes.items())
        assert bulk.acl_batches is None  # reading the changes took the delta back


def _pending_then(second: list[Record]) -> tuple[MetadataDelta, list[Record]]:
    """A delta over 199 stored ACLs holding one pending batch (100 additions and the removal
    of stored id 7), then ``second`` replayed after it; and every record replayed."""
    base = _stored(200)
    first: list[Record] = [_acl(n, f"n{n}") for n in range(1000, 1100)]
    first.append(RemoveAccessControlEntryRecord(uuid.UUID(int=7)))
    delta = MetadataDelta(base)
    delta.replay_records(first, 200)
    replayer = delta.acl_batches
    assert replayer is not None and replayer.working is not None and replayer.pending == 1
    replayer.check()
    delta.replay_records(second, 301)
    replayer.check()
    return delta, first + second


@pytest.mark.parametrize(
    "second",
    [
        # a stored id removed by the pending batch, added again (under another binding)
        [_acl(n, f"m{n}") for n in range(2000, 2020)] + [_acl(7, "again")],
        # an id the pending batch added, removed again
        [_acl(n, f"m{n}") for n in range(2000, 2020)]
        + [RemoveAccessControlEntryRecord(uuid.UUID(int=1005))],
        # a small batch, replayed one by one after the pending one
        [_acl(3000, "small"), RemoveAccessControlEntryRecord(uuid.UUID(int=1001))],
    ],
)
def test_batches_after_a_pending_one_apply_as_one_by_one(second: list[Record]) -> None:
    delta, records = _pending_then(second)
    base = delta.image
    single = MetadataDelta(base)
    for offset, record in enumerate(records, start=200):
        single.replay(record, offset)
    provenance = MetadataProvenance(400, 1, 1)
    image, expected = delta.apply(provenance), single.apply(provenance)
    assert list(image.acls.acls.items()) == list(expected.acls.acls.items())
    assert image.acls.bindings == expected.acls.bindings
    acls, single_acls = delta.acls_delta, single.acls_delta
    assert acls is not None and single_acls is not None
    assert list(acls.changes.items()) == list(single_acls.changes.items())


def test_a_pending_id_added_again_fails_with_its_offset() -> None:
    with pytest.raises(ReplayError) as raised:
        _pending_then([_acl(n, f"m{n}") for n in range(2000, 2020)] + [_acl(1003, "twice")])
    assert raised.value.offset == 301 + 20
    assert "already exists" in str(raised.value)


def test_a_delta_replayed_into_after_apply_still_sees_its_pending_batches() -> None:
    """apply() hands the working state over and leaves the pending batches for whoever reads
    the changes; a batch replayed after that must still be checked against them."""
    # big enough for a new working state: made from the image with the pending batch in it
    second: list[Record] = [_acl(n, f"m{n}") for n in range(2000, 2200)] + [_acl(7, "again")]
    delta, first_records = _pending_then([])
    single = MetadataDelta(delta.image)
    for offset, record in enumerate(first_records, start=200):
        single.replay(record, offset)
    provenance = MetadataProvenance(400, 1, 1)
    delta.apply(provenance)
    single.apply(provenance)
    delta.replay_records(second, 301)
    for offset, record in enumerate(second, start=301):
        single.replay(record, offset)
    acls, single_acls = delta.acls_delta, single.acls_delta
    assert acls is not None and single_acls is not None
    assert list(acls.changes.items()) == list(single_acls.changes.items())
    image, expected = delta.apply(provenance), single.apply(provenance)
    assert list(image.acls.acls.items()) == list(expected.acls.acls.items())
