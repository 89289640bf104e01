"""Seeded stress of the batch accelerator (``aclog.image.acl_batches``) against one-by-one replay.

Random streams of batches (fresh additions and removals, as a controller writes them, mixed with
repeated ids, repeated bindings, removals of unknown ids, remove-then-add and add-then-remove of
one binding, re-added ids, request contexts) go through ``MetadataDelta.replay_records`` (the
accelerator) and through ``MetadataDelta.replay`` record by record, over bases of every size,
with snapshots restated in between. After every batch the accelerator's invariants hold
(``AclBatchReplayer.check``) and both give the same error (message and offset) or none; at the
end of each delta both give the same changes, image, order and binding index, and
``replay_batches`` (the broker's entry point) gives the same image. The same batches written
and read back through the log's decoder (``decode_records``: the columnar decoder's records,
new objects built from Arrow columns) go through the accelerator too, with the same outcome, and
so do they decoded a type at a time, as replay takes a segment's batch
(``MetadataDelta.replay_decoded``: the accelerator's ``replay_rows``).
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field

import pytest

from aclog.image import (
    MetadataDelta,
    MetadataImage,
    MetadataProvenance,
    ReplayError,
    image_records,
    layered,
)
from aclog.records import encode
from aclog.records.column_records import decode_batch_records, decode_records
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import (
    AccessControlEntryRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RequestContextRecord,
)
from aclog.replay import CommittedBatch, replay_batches

SIZES = [1, 3, 8, 9, 12, 40, 120, 300]


def _acl(n: int, name: str) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        uuid.UUID(int=n),
        ResourceType.TOPIC,
        name,
        PatternType.LITERAL,
        "User:x",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


@dataclass
class _Stream:
    """Makes batches that mostly apply, with every kind of conflict mixed in."""

    rng: random.Random
    live: dict[uuid.UUID, str] = field(default_factory=dict)  # id -> binding name
    gone: list[uuid.UUID] = field(default_factory=list)  # ids once live, removed since
    recent: list[uuid.UUID] = field(default_factory=list)  # those removed in this delta
    serial: int = 1
    base_serial: int = 1  # the ids up to this one were stored when the delta began

    def fresh(self) -> AccessControlEntryRecord:
        self.serial += 1
        return _acl(self.serial, f"n{self.serial}")

    def batch(self, size: int) -> list[Record]:
        """``size`` records; in about a third of the batches, one of them is an edge case."""
        rng, out = self.rng, []
        edge_at = rng.randrange(size) if rng.random() < 0.35 else -1
        for at in range(size):
            roll = rng.random()
            if at == edge_at and self.live:
                record: Record = self.edge(out)
            elif roll < 0.7 or not self.live:
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
        kind = rng.choice([0, 1, 2, 3, 4, 5, 5, 5, 6, 7])
        if kind == 0:  # the same id twice
            return self.fresh() if not so_far else so_far[-1]
        if kind == 7:  # a binding of this batch again, under a new id
            self.serial += 1
            named = [r for r in so_far if isinstance(r, AccessControlEntryRecord)]
            return _acl(self.serial, rng.choice(named).resource_name if named else "n1")
        if kind == 1:  # a live binding under a new id
            self.serial += 1
            return _acl(self.serial, self.live[some_id])
        if kind == 2:  # a removal of an id never stored
            return RemoveAccessControlEntryRecord(uuid.UUID(int=10**9 + rng.randrange(5)))
        if kind == 3:  # remove, then add the binding again under a new id (valid)
            self.serial += 1
            so_far.append(RemoveAccessControlEntryRecord(some_id))
            self.follow(so_far[-1])
            return _acl(self.serial, self.live.get(some_id, f"n{some_id.int}"))
        if kind == 4:  # add, then remove in one batch (valid)
            record = self.fresh()
            so_far.append(record)
            self.follow(record)
            return RemoveAccessControlEntryRecord(record.id)
        if kind == 5 and self.gone:  # an id removed earlier (mostly in this delta), again
            gone = rng.choice(self.recent if self.recent and rng.random() < 0.8 else self.gone)
            return _acl(gone.int, f"again{rng.randrange(10**6)}")
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
    """The batch's values decoded a type at a time (as a segment's batch is read) and replayed
    so, its invariants checked after."""
    try:
        delta.replay_decoded(decode_batch_records(values, offset), offset)
    except ReplayError as error:
        return f"{error} @ {error.offset}"
    finally:
        if delta.acl_batches is not None:
            delta.acl_batches.check()
    return None


def _same(bulk: MetadataImage, single: MetadataImage) -> None:
    assert list(bulk.acls.acls.items()) == list(single.acls.acls.items())
    assert dict(bulk.acls.bindings) == dict(single.acls.bindings)
    assert dict(bulk.acls.bindings) == {acl.key: acl.id for acl in bulk.acls}


def _restate(image: MetadataImage, rng: random.Random, offset: int) -> MetadataImage:
    """A snapshot of ``image`` (sometimes with an ACL stated twice) restated both ways."""
    records = list(image_records(image))
    acls = [r for r in records if isinstance(r, AccessControlEntryRecord)]
    if acls and rng.random() < 0.2:
        records.append(rng.choice(acls))
    bulk, single = (MetadataDelta(MetadataImage.EMPTY, snapshot=True) for _ in range(2))
    errors = []
    for delta, fast in ((bulk, True), (single, False)):
        try:
            if fast:
                delta.replay_restated(records, offset)
            else:
                for record in records:
                    delta.replay(record, offset)
            errors.append(None)
        except ReplayError as error:
            errors.append(f"{error} @ {error.offset}")
    assert errors[0] == errors[1]
    if errors[0] is not None:
        return image
    provenance = MetadataProvenance(offset, 1, 1)
    restated = bulk.apply(provenance)
    _same(restated, single.apply(provenance))
    return restated


@pytest.mark.parametrize("seed", range(24))
def test_the_accelerator_replays_as_one_by_one(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    if seed % 2:  # small overlays: even small bases take the working copy
        monkeypatch.setattr(layered, "MIN_OVERLAY", rng.choice([0, 4, 16]))
    stream = _Stream(rng)
    image = MetadataImage.EMPTY
    base = [stream.fresh() for _ in range(rng.choice([0, 10, 150, 600]))]
    if base:
        image = replay_batches(image, [CommittedBatch(0, 1, 1, tuple(base))]).image
    stream.resync(image)
    offset = len(base)
    for _ in range(8):  # deltas, each over several batches, a snapshot now and then
        if rng.random() < 0.25:
            image = _restate(image, rng, offset - 1)
        start, bulk, single = image, MetadataDelta(image), MetadataDelta(image)
        decoded, columns = MetadataDelta(image), MetadataDelta(image)
        committed: list[CommittedBatch] = []
        for _ in range(rng.randrange(1, 12)):
            batch = stream.batch(rng.choice(SIZES))
            error = _outcome(bulk, batch, offset, bulk=True)
            assert error == _outcome(single, batch, offset, bulk=False)
            values = [encode(record) for record in batch]
            read_back, _ = decode_records(values, offset)
            assert read_back == batch
            assert _outcome(decoded, read_back, offset, bulk=True) == error
            assert _kinds_outcome(columns, values, offset) == error
            if bulk.acl_batches is not None:
                bulk.acl_batches.check()
            committed.append(CommittedBatch(offset, 1, 1, tuple(batch)))
            offset += len(batch)
            if error is not None:
                break
        provenance = MetadataProvenance(offset - 1, 1, 1)
        bulk_image, single_image = bulk.apply(provenance), single.apply(provenance)
        _same(bulk_image, single_image)
        _same(decoded.apply(provenance), single_image)
        _same(columns.apply(provenance), single_image)
        bulk_acls, single_acls = bulk.acls_delta, single.acls_delta
        if bulk_acls is not None and single_acls is not None:  # read after apply, as publishers do
            assert list(bulk_acls.changes.items()) == list(single_acls.changes.items())
            column_acls = columns.acls_delta
            assert column_acls is not None
            assert list(column_acls.changes.items()) == list(single_acls.changes.items())
        if error is None:
            _same(replay_batches(start, committed).image, single_image)
        image = single_image
        stream.resync(image)
