"""Replaying a batch in one go onto the image's table (``MetadataDelta.replay_records``, or
``replay_decoded`` for a batch as the columnar decoder gives it) gives what replaying its
records one by one into the reference gives (``AclsDelta`` over the same ACLs held in a dict):
the same changes in the same order, the same next image and binding index, and the same first
error, for valid and invalid histories alike."""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image import (
    AclsImage,
    MetadataDelta,
    MetadataImage,
    MetadataProvenance,
    apply_records,
)
from aclog.image.acl_column_rows import of_records, words_of_id_bytes
from aclog.image.acl_table_replay import AclTableReplay
from aclog.image.errors import ReplayError
from aclog.records import encode
from aclog.records.enums import (
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.records.small_batch import decode_batch_records
from aclog.records.types import (
    AccessControlEntryRecord,
    LeaderChangeRecord,
    NoOpRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RequestContextRecord,
    UserScramCredentialRecord,
)
from tests.acl_factory import acl_record

# Few ids and few names, so that ids and bindings collide often: every kind of invalid batch.
_ids = st.integers(1, 24).map(lambda n: uuid.UUID(int=n))
_names = st.sampled_from([f"t{n}" for n in range(12)])
_acls = st.builds(
    lambda acl_id, name, op: AccessControlEntryRecord(
        acl_id,
        ResourceType.TOPIC,
        name,
        PatternType.LITERAL,
        "User:x",
        "*",
        op,
        AclPermissionType.ALLOW,
    ),
    _ids,
    _names,
    st.sampled_from([AclOperation.READ, AclOperation.WRITE]),
)
_others = st.sampled_from(
    [
        RequestContextRecord("User:admin", "10.0.0.1", "cli", 1),
        RequestContextRecord("User:other", "10.0.0.2", "cli", 2),
        NoOpRecord(),
        LeaderChangeRecord(1, 2),
        UserScramCredentialRecord("alice", ScramMechanism.SCRAM_SHA_256, b"s", b"k", b"v", 4096),
    ]
)


BULK_MIN = 8
"""The least batch the dict accelerator took in one go (sizes around it stay in the mix)."""


@st.composite
def _histories(draw: st.DrawFn) -> tuple[list[Record], list[list[Record]]]:
    """Stored ACLs, then batches of mostly valid records (new ids and bindings, removals of
    live ids), with edge cases mixed in: ids and bindings reused, removed twice or never
    stored, ACLs removed and re-added, records of other types."""
    serial = iter(range(1, 10_000))
    base: list[Record] = [
        acl_record(next(serial), f"b{n}") for n in range(draw(st.integers(0, 12)))
    ]
    live = [r.id for r in base if isinstance(r, AccessControlEntryRecord)]
    seen = list(live)
    batches = []
    for _ in range(draw(st.integers(0, 5))):
        size = draw(st.sampled_from([0, 1, 3, BULK_MIN, BULK_MIN + 5, 30]))
        batch: list[Record] = []
        for _ in range(size):
            kind = draw(st.sampled_from(["add"] * 6 + ["remove"] * 2 + ["edge", "other"]))
            if kind == "add" or (kind == "remove" and not live):
                n = next(serial)
                batch.append(acl_record(n, f"n{n}"))
                live.append(uuid.UUID(int=n))
            elif kind == "remove":
                acl_id = live.pop(draw(st.integers(0, len(live) - 1)))
                batch.append(RemoveAccessControlEntryRecord(acl_id))
            elif kind == "other":
                batch.append(draw(_others))
            else:
                batch.append(draw(_edge(seen or [uuid.UUID(int=1)])))
            seen += [r.id for r in batch[-1:] if hasattr(r, "id")]
        batches.append(batch)
    return base, batches


def _edge(ids: list[uuid.UUID]) -> st.SearchStrategy[Record]:
    reused = st.sampled_from(ids)
    return st.one_of(
        reused.map(RemoveAccessControlEntryRecord),
        st.builds(lambda i, name: acl_record(i.int, name), reused, _names),
        st.builds(acl_record, st.integers(20_000, 20_100), _names),
        _acls,
    )


def _base(records: list[Record]) -> MetadataImage:
    """The image of the valid prefix of ``records``, its binding index built."""
    image = MetadataImage.EMPTY
    for offset, record in enumerate(records):
        try:
            image = apply_records(image, [record], offset)
        except ReplayError:
            continue
    return image


def _held_in_a_dict(image: MetadataImage) -> MetadataImage:
    """``image`` with its ACLs in a dict: a delta over it replays one by one (the reference)."""
    acls = AclsImage({acl.id: acl for acl in image.acls})
    return MetadataImage(image.provenance, acls, image.scram)


def _batch(replay: AclTableReplay, records: list[Record]) -> bool:
    """:meth:`AclTableReplay.batch` of ACL records handed over from memory."""
    adds = [r for r in records if isinstance(r, AccessControlEntryRecord)]
    removed = b"".join(r.id.bytes for r in records if isinstance(r, RemoveAccessControlEntryRecord))
    return replay.batch(of_records(adds), words_of_id_bytes(removed), lambda: records)  # type: ignore[arg-type,return-value]


def _replay(
    base: MetadataImage, batches: list[list[Record]], *, one_by_one: bool, decoded: bool = False
) -> tuple[MetadataDelta, str | None]:
    """Replay record by record, or a batch at a time: as records, or (``decoded``) as the
    columnar decoder gives a batch read from a segment (its records a type at a time)."""
    delta = MetadataDelta(base)
    offset = 100
    try:
        for batch in batches:
            if one_by_one:
                for i, record in enumerate(batch):
                    delta.replay(record, offset + i)
            elif decoded:
                values = [encode(record) for record in batch]
                delta.replay_decoded(decode_batch_records(values, offset), offset)
            else:
                delta.replay_records(batch, offset)
            offset += len(batch)
    except ReplayError as error:
        return delta, f"{error} @ {error.offset}"
    return delta, None


@settings(max_examples=400, deadline=None)
@given(_histories(), st.booleans(), st.booleans())
def test_batch_replay_equals_one_by_one(
    history: tuple[list[Record], list[list[Record]]], decoded: bool, mapping: bool
) -> None:
    """Onto the table, or (``mapping``) onto the same ACLs held in a mapping, where a
    controller's batch is checked in one go (``AclsDelta.replay_batch``)."""
    base_records, batches = history
    base = _base(base_records)
    start = _held_in_a_dict(base) if mapping and base.acls else base
    bulk, bulk_error = _replay(start, batches, one_by_one=False, decoded=decoded)
    single, single_error = _replay(_held_in_a_dict(base), batches, one_by_one=True)
    assert bulk_error == single_error
    assert bulk.request_context == single.request_context
    bulk_acls, single_acls = bulk.acls_delta, single.acls_delta
    assert (bulk_acls is None) == (single_acls is None)
    if bulk_acls is not None and single_acls is not None:
        assert list(bulk_acls.changes.items()) == list(single_acls.changes.items())
    provenance = MetadataProvenance(1000, 1, 1)
    bulk_image, single_image = bulk.apply(provenance), single.apply(provenance)
    assert bulk_image == single_image
    if start is base:  # replay onto a table makes tables; onto a mapping, mappings
        assert bulk_image.acls.table is not None or not bulk_image.acls
    else:
        assert bulk_image.acls.table is None
    assert list(bulk_image.acls.acls.items()) == list(single_image.acls.acls.items())
    for acl in bulk_image.acls:
        assert bulk_image.acls.id_of(acl.binding) == acl.id
    assert bulk_image.acls.bindings == single_image.acls.bindings


def test_a_controller_batch_goes_in_one_go() -> None:
    """The common batch (a request context, then new ACLs and removals of stored ones) is
    taken by the batch path, not declined to the one-by-one replay."""
    stored = [acl_record(n, f"s{n}") for n in range(1, 11)]
    base = apply_records(MetadataImage.EMPTY, stored, 0)
    batch: list[Record] = [RequestContextRecord("User:admin", "10.0.0.1", "cli", 1)]
    batch += [acl_record(n, f"n{n}") for n in range(100, 110)]
    batch += [RemoveAccessControlEntryRecord(acl.id) for acl in stored[:3]]
    replay = AclTableReplay.over(base.acls)
    assert replay is not None and _batch(replay, batch[1:])
    image = replay.image()
    assert [acl.resource_name for acl in image] == [f"s{n}" for n in range(4, 11)] + [
        f"n{n}" for n in range(100, 110)
    ]


def test_a_declined_batch_leaves_the_delta_as_it_was() -> None:
    """A batch that repeats an id or a binding is declined after the batch path has begun
    to record it: the delta must be exactly as before, so the one-by-one replay names the
    repeated record, and a later valid batch still goes in one go."""
    stored = [acl_record(n, f"s{n}") for n in range(1, 11)]
    base = apply_records(MetadataImage.EMPTY, stored, 0)
    fresh = [acl_record(n, f"n{n}") for n in range(100, 110)]
    same_binding = AccessControlEntryRecord(uuid.UUID(int=200), *acl_record(0, "n105").key)
    bad_batches: list[list[Record]] = [
        [*fresh, fresh[4]],  # an id twice
        [*fresh, same_binding],  # a binding twice, under two ids
        [
            *fresh,
            AccessControlEntryRecord(uuid.UUID(int=201), *acl_record(0, "e55").key),
        ],  # added before
        [*fresh, *[RemoveAccessControlEntryRecord(stored[0].id)] * 2],  # a removal twice
    ]
    for bad in bad_batches:
        replay = AclTableReplay.over(base.acls)
        assert replay is not None and _batch(
            replay, [acl_record(n, f"e{n}") for n in range(50, 60)]
        )
        before = replay.image()
        changes = list(replay.delta().changes.items())
        assert not _batch(replay, bad)
        after = replay.image()
        assert list(after.acls.items()) == list(before.acls.items())
        assert list(replay.delta().changes.items()) == changes
        assert [after.id_of_key(a.key) for a in after] == [a.id for a in after]
        delta = MetadataDelta(base)
        delta.replay_records([acl_record(n, f"e{n}") for n in range(50, 60)], 11)
        try:
            delta.replay_records(bad, 21)
        except ReplayError as error:
            assert error.offset == 21 + len(bad) - 1
        else:
            raise AssertionError("the repeated record was accepted")
        later = AclTableReplay.over(base.acls)
        assert later is not None and _batch(later, [acl_record(n, f"e{n}") for n in range(50, 60)])
        assert _batch(later, fresh)  # type: ignore[arg-type]
