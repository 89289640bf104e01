"""Seeded stress of replay onto a table (``aclog.image.acl_table_replay``) against the reference,
one-by-one ``AclsDelta`` replay over the same ACLs held in a dict.

Random streams of batches (fresh additions and removals, as a controller writes them, mixed with
repeated ids, stored ids added again, repeated bindings, removals of unknown ids, remove-then-add
and add-then-remove of one binding, re-added ids, request contexts) go through
``MetadataDelta.replay_records`` (a batch handed over from memory), through
``MetadataDelta.replay`` record by record, and decoded from their bytes a type at a time
(``MetadataDelta.replay_decoded``: a segment's batch, its ACLs taken from the columns), over
bases of every size, with snapshots restated in between, in batches on either side of
``BULK_MIN``. A third of the streams churn (more removals than additions, a small ``FLOOR``), so
that their tables' string pools are compacted several times (``aclog.image.acl_table_compact``);
the test asserts that they were. Each gives the reference's error (message and offset) or none;
at the end of each delta each gives the reference's image (same ACLs in the same order) and,
read after apply as publishers read it, the same ordered changes; ``replay_batches`` (the
broker's entry point) gives the same image; every stored binding finds its id.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from itertools import count, repeat

import pytest

from aclog.image import (
    MetadataDelta,
    MetadataImage,
    MetadataProvenance,
    ReplayError,
    acl_table_compact,
    image_records,
)
from aclog.image.acls import AclsDelta
from aclog.image.acls_image import AclsImage
from aclog.image.metadata_batches import BULK_MIN
from aclog.records import encode
from aclog.records.small_batch import decode_batch_records
from aclog.records.types import (
    AccessControlEntryRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RequestContextRecord,
)
from aclog.replay import CommittedBatch, replay_batches
from tests.acl_factory import acl_record

SIZES = [1, 3, BULK_MIN - 1, BULK_MIN, BULK_MIN + 1, 12, 40, 120]
"""Batch sizes: either side of the small-batch route's boundary, and a few larger."""


@dataclass
class _Stream:
    """Makes batches that mostly apply, with every kind of conflict mixed in."""

    rng: random.Random
    add_rate: float = 0.7  # below about 0.5 the ACLs churn: the pool fills with dead strings
    live: dict[uuid.UUID, str] = field(default_factory=dict)  # id -> binding name
    gone: list[uuid.UUID] = field(default_factory=list)  # ids once live, removed since
    recent: list[uuid.UUID] = field(default_factory=list)  # those removed in this delta
    serial: int = 1
    base_serial: int = 1  # the ids up to this one were stored when the delta began

    def fresh(self) -> AccessControlEntryRecord:
        self.serial += 1
        return acl_record(self.serial, f"n{self.serial}")

    def batch(self, size: int) -> list[Record]:
        """``size`` records; in about a third of the batches, one or two of them are edge
        cases (two can hide each other from a check that only counts)."""
        rng, out = self.rng, []
        edges = rng.choice([1, 1, 2]) if rng.random() < 0.35 else 0
        edge_at = set(rng.sample(range(size), min(edges, size)))
        for at in range(size):
            roll = rng.random()
            if at in edge_at and self.live:
                record: Record = self.edge(out)
            elif roll < self.add_rate or not self.live:
                record = self.fresh()
            else:
                record = RemoveAccessControlEntryRecord(self.live_id())
            self.follow(record)
            out.append(record)
        if out and rng.random() < 0.3:
            out.insert(0, RequestContextRecord("User:admin", "10.0.0.1", "cli", 1))
        return out

    def live_id(self) -> uuid.UUID:
        """A live id, mostly one of the delta's base (a batch removing those can go in one go)."""
        stored = [acl_id for acl_id in self.live if acl_id.int <= self.base_serial]
        return self.rng.choice(stored if stored and self.rng.random() < 0.8 else list(self.live))

    def edge(self, so_far: list[Record]) -> Record:
        rng = self.rng
        some_id = rng.choice(list(self.live))
        kind = rng.choice([0, 1, 2, 3, 4, 5, 5, 5, 6, 7, 8])
        if kind == 8:  # a stored id again, under a new binding, beside a removal of an id
            # never stored (the hits of the batch's ids then number its removals)
            so_far.append(RemoveAccessControlEntryRecord(uuid.UUID(int=10**9 + rng.randrange(5))))
            return acl_record(some_id.int, f"taken{rng.randrange(10**6)}")
        if kind == 0:  # the same id twice
            return self.fresh() if not so_far else so_far[-1]
        if kind == 7:  # a binding of this batch again, under a new id
            self.serial += 1
            named = [r for r in so_far if isinstance(r, AccessControlEntryRecord)]
            return acl_record(self.serial, rng.choice(named).resource_name if named else "n1")
        if kind == 1:  # a live binding under a new id
            self.serial += 1
            return acl_record(self.serial, self.live[some_id])
        if kind == 2:  # a removal of an id never stored
            return RemoveAccessControlEntryRecord(uuid.UUID(int=10**9 + rng.randrange(5)))
        if kind == 3:  # remove, then add the binding again under a new id (valid)
            self.serial += 1
            so_far.append(RemoveAccessControlEntryRecord(some_id))
            self.follow(so_far[-1])
            return acl_record(self.serial, self.live.get(some_id, f"n{some_id.int}"))
        if kind == 4:  # add, then remove in one batch (valid)
            record = self.fresh()
            so_far.append(record)
            self.follow(record)
            return RemoveAccessControlEntryRecord(record.id)
        if kind == 5 and self.gone:  # an id removed earlier (mostly in this delta), again
            gone = rng.choice(self.recent if self.recent and rng.random() < 0.8 else self.gone)
            return acl_record(gone.int, f"again{rng.randrange(10**6)}")
        return RemoveAccessControlEntryRecord(some_id)  # maybe removed twice

    def follow(self, record: Record) -> None:
        if isinstance(record, AccessControlEntryRecord):
            self.live[record.id] = record.resource_name
        elif isinstance(record, RemoveAccessControlEntryRecord) and record.id in self.live:
            del self.live[record.id]
            self.gone.append(record.id)
            self.recent.append(record.id)

    def resync(self, image: MetadataImage) -> None:
        self.live = {acl.id: acl.resource_name for acl in image.acls}
        self.recent = []
        self.base_serial = self.serial


def _outcome(delta: MetadataDelta, batch: list[Record], offset: int, bulk: bool) -> str | None:
    try:
        if bulk:
            delta.replay_records(batch, offset)
        else:
            for at, record in enumerate(batch, start=offset):
                delta.replay(record, at)
    except ReplayError as error:
        return f"{error} @ {error.offset}"
    return None


def _kinds_outcome(delta: MetadataDelta, values: list[bytes], offset: int) -> str | None:
    """The batch's values decoded a type at a time (as a segment's batch is read)."""
    try:
        delta.replay_decoded(decode_batch_records(values, offset), offset)
    except ReplayError as error:
        return f"{error} @ {error.offset}"
    return None


def _reference_outcome(
    delta: AclsDelta, batch: list[Record], offset: int, step: int = 1
) -> str | None:
    try:
        for at, record in zip(count(offset) if step else repeat(offset), batch, strict=False):
            if isinstance(record, (AccessControlEntryRecord, RemoveAccessControlEntryRecord)):
                delta.replay(record, at)
    except ReplayError as error:
        return f"{error} @ {error.offset}"
    return None


def _held_in_a_dict(image: MetadataImage) -> AclsImage:
    """The ACLs of ``image`` in a dict-backed image: the reference's base."""
    return AclsImage({acl.id: acl for acl in image.acls})


def _expected(base: AclsImage, delta: AclsDelta) -> list[tuple[uuid.UUID, Record]]:
    """``base`` with the delta's changes applied, the slow and obvious way."""
    acls: dict[uuid.UUID, Record] = dict(base.acls.items())
    for acl_id, change in delta.changes.items():
        acls.pop(acl_id, None)
        if change is not None:
            acls[acl_id] = change
    return list(acls.items())


def _same(image: MetadataImage, expected: list[tuple[uuid.UUID, Record]]) -> None:
    table = image.acls.table
    assert table is not None or not expected  # replay makes table-backed images
    assert list(image.acls.acls.items()) == expected
    if table is not None:  # every binding finds its id, in one vectorised lookup
        keys = [acl.key for _, acl in expected]  # type: ignore[attr-defined]
        assert table.ids_of_keys(keys) == [acl_id for acl_id, _ in expected]
    for acl_id, acl in expected[:: max(1, len(expected) // 3)]:  # and one at a time
        assert image.acls.id_of_key(acl.key) == acl_id  # type: ignore[attr-defined]


def _restate(image: MetadataImage, rng: random.Random, offset: int) -> MetadataImage:
    """A snapshot of ``image`` (sometimes with an ACL stated twice) restated in one go and
    by the reference."""
    records = list(image_records(image))
    acls = [r for r in records if isinstance(r, AccessControlEntryRecord)]
    if acls and rng.random() < 0.2:
        records.append(rng.choice(acls))
    bulk = MetadataDelta(MetadataImage.EMPTY, snapshot=True)
    reference = AclsDelta(AclsImage({}), snapshot=True)
    errors = []
    try:
        bulk.replay_restated(records, offset)
        errors.append(None)
    except ReplayError as error:
        errors.append(f"{error} @ {error.offset}")
    errors.append(_reference_outcome(reference, records, offset, step=0))
    assert errors[0] == errors[1]
    if errors[0] is not None:
        return image
    restated = bulk.apply(MetadataProvenance(offset, 1, 1))
    reference.finish_snapshot()
    _same(restated, _expected(AclsImage({}), reference))
    return restated


@pytest.mark.parametrize("seed", range(18))
def test_replay_onto_a_table_replays_as_one_by_one(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    churn = seed % 3 == 2  # removals outpace additions; the pool is compacted now and then
    if churn:  # as it is at FLOOR's size, in a few hundred ACLs instead of many thousands
        monkeypatch.setattr(acl_table_compact, "FLOOR", 16)
    stream = _Stream(rng, add_rate=0.45 if churn else 0.7)
    compactions = 0
    image = MetadataImage.EMPTY
    base = [stream.fresh() for _ in range(rng.choice([0, 10, 40] if churn else [0, 10, 150, 600]))]
    if base:
        image = replay_batches(image, [CommittedBatch(0, 1, 1, tuple(base))]).image
    stream.resync(image)
    offset = len(base)
    for _ in range(8):  # deltas, each over several batches, a snapshot now and then
        if rng.random() < 0.25:
            image = _restate(image, rng, offset - 1)
        start = image
        bulk, single, columns = (MetadataDelta(image) for _ in range(3))
        held = _held_in_a_dict(image)
        reference = AclsDelta(held)
        committed: list[CommittedBatch] = []
        for _ in range(rng.randrange(1, 12)):
            batch = stream.batch(rng.choice(SIZES))
            error = _reference_outcome(reference, batch, offset)
            assert _outcome(bulk, batch, offset, bulk=True) == error
            assert _outcome(single, batch, offset, bulk=False) == error
            values = [encode(record) for record in batch]
            assert _kinds_outcome(columns, values, offset) == error
            committed.append(CommittedBatch(offset, 1, 1, tuple(batch)))
            offset += len(batch)
            if error is not None:
                break
        provenance = MetadataProvenance(offset - 1, 1, 1)
        expected = _expected(held, reference)
        images = [delta.apply(provenance) for delta in (bulk, single, columns)]
        for made in images:
            _same(made, expected)
        compactions += sum(_compacted(start, made) for made in images)
        for delta in (bulk, single, columns):  # read after apply, as publishers do
            acls_delta = delta.acls_delta
            assert acls_delta is not None
            assert list(acls_delta.changes.items()) == list(reference.changes.items())
        if error is None:
            image = replay_batches(start, committed).image
            _same(image, expected)
            compactions += _compacted(start, image)
        else:
            image = images[0]
        stream.resync(image)
    assert compactions or not churn  # the churning streams did cross the compaction threshold


def _compacted(before: MetadataImage, after: MetadataImage) -> bool:
    """Whether ``after``'s table holds its strings in a smaller pool than ``before``'s."""
    old, new = before.acls.table, after.acls.table
    return old is not None and new is not None and len(new.pool) < len(old.pool)
