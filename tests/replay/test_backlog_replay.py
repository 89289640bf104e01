"""A backlog of small batches (1-4 records each, as admin clients write them) replays as the
same records in one bulk batch do, and as one-by-one replay does: the same image, ACL changes,
SCRAM users and authorizer decisions, or the same first error at the same offset. ACL records
of small batches are queued across batches and replayed in runs
(:meth:`~aclog.image.acl_table_replay.AclTableReplay.replay`), so this holds that queue to
the reference: removals of ACLs added by earlier small batches, a binding removed and added
again, ids and bindings stated twice, unknown removals and SCRAM errors among them."""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.authorizer import Authorizer
from aclog.image import MetadataDelta, MetadataImage, MetadataProvenance, ReplayError
from aclog.records import (
    AclOperation,
    RemoveAccessControlEntryRecord,
    RequestContextRecord,
    ResourceType,
    encode,
)
from aclog.records.small_batch import decode_batch_records
from aclog.records.types import Record
from aclog.replay.batches import CommittedBatch, replay_batches
from aclog.replay.stream import DecodedBatch
from tests.replay.record_stream import NAMES, STORED, RecordStream, op_lists

CONTEXT = RequestContextRecord("User:admin", "10.0.0.1", "cli", 1000, "CreateAcls")


def _bases() -> dict[str, MetadataImage]:
    table = replay_batches(MetadataImage.EMPTY, [CommittedBatch(0, 1, 1, STORED)]).image
    return {"empty": MetadataImage.EMPTY, "table": table, "mapping": table.in_a_mapping()}


def _groups(records: list[Record], sizes: list[int]) -> list[list[Record]]:
    """``records`` cut into batches of the given sizes (cycled), each led by a context."""
    groups, at = [], 0
    for size in sizes * (len(records) + 1):
        if at >= len(records):
            break
        groups.append([CONTEXT, *records[at : at + size]])
        at += size
    return groups


def _outcome(image: MetadataImage, batches: list[object]) -> object:
    try:
        replayed = replay_batches(image, batches)  # type: ignore[arg-type]
    except ReplayError as error:
        return f"{error} @ {error.offset}"
    return _state(replayed.image, replayed.delta)


def _reference(image: MetadataImage, records: list[Record], first: int) -> object:
    """One record at a time into a delta over the image held in a mapping."""
    delta = MetadataDelta(image.in_a_mapping())
    try:
        for offset, record in enumerate(records, start=first):
            delta.replay(record, offset)
    except ReplayError as error:
        return f"{error} @ {error.offset}"
    applied = delta.apply(MetadataProvenance(first + len(records) - 1, 1, 1000))
    return _state(applied, delta)


def _state(image: MetadataImage, delta: MetadataDelta | None) -> object:
    acls = None if delta is None else delta.acls_delta
    authorizer = Authorizer()
    authorizer.load(image.acls)
    decisions = [
        authorizer.authorize(principal, "10.0.0.9", AclOperation.READ, ResourceType.TOPIC, name)
        for name in NAMES
        for principal in ("User:bob", "User:x")
    ]
    return (
        list(image.acls.acls.items()),
        image.scram.to_dict(),
        None if acls is None else list(acls.changes.items()),
        decisions,
    )


def _decoded(base: int, records: list[Record]) -> DecodedBatch:
    decoded = decode_batch_records([encode(r) for r in records], base)
    return DecodedBatch(base, base + len(records) - 1, 1, 1000, CONTEXT, decoded)


@settings(max_examples=150, deadline=None)
@given(
    ops=op_lists,
    sizes=st.lists(st.integers(1, 4), min_size=1, max_size=5),
    base=st.sampled_from(["empty", "table", "mapping"]),
)
def test_small_batches_replay_as_the_same_records_in_bulk(
    ops: list[tuple[str, int]], sizes: list[int], base: str
) -> None:
    image = _bases()[base]
    first = image.provenance.last_offset + 1
    stream = RecordStream(stored=base != "empty")
    groups = _groups([stream.record(kind, n) for kind, n in ops], sizes)
    small: list[object] = []
    decoded: list[object] = []
    offset = first
    for group in groups:
        small.append(CommittedBatch(offset, 1, 1000, tuple(group)))
        decoded.append(_decoded(offset, group))
        offset += len(group)
    records = [record for group in groups for record in group]
    bulk = [CommittedBatch(first, 1, 1000, tuple(records))]
    expected = _reference(image, records, first)
    assert _outcome(image, bulk) == expected
    assert _outcome(image, small) == expected
    assert _outcome(image, decoded) == expected


def test_an_acl_error_before_a_batch_that_does_not_decode_is_the_error_raised() -> None:
    """A backlog stops at a batch that does not decode; an ACL record queued before it (at
    an earlier offset) that cannot apply is the error replay raises, as one by one."""
    image = _bases()["table"]
    first = image.provenance.last_offset + 1
    unknown = RemoveAccessControlEntryRecord(uuid.UUID(int=999))

    def batches() -> object:
        yield CommittedBatch(first, 1, 1000, (CONTEXT, unknown))
        raise ValueError("a batch that does not decode")

    try:
        replay_batches(image, batches())  # type: ignore[arg-type]
    except ReplayError as error:
        assert error.offset == first + 1
    else:  # pragma: no cover - the assertion names what went wrong
        raise AssertionError("the queued removal's error was not raised")
