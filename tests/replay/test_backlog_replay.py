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
    RemoveUserScramCredentialRecord,
    RequestContextRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
    encode,
)
from aclog.records.column_records import decode_batch_records
from aclog.records.types import Record
from aclog.replay.batches import CommittedBatch, replay_batches
from aclog.replay.stream import DecodedBatch
from tests.acl_factory import acl_record

CONTEXT = RequestContextRecord("User:admin", "10.0.0.1", "cli", 1000, "CreateAcls")
NAMES = ["t0", "t1", "t2", *(f"n{i}" for i in range(1, 12))]
STORED = tuple(acl_record(100 + i, NAMES[i]) for i in range(3))
"""ACLs of the table-backed base: the stream removes them, re-adds their bindings and ids."""

_ops = st.lists(
    st.tuples(st.sampled_from(["add", "add", "remove", "scram", "unscram"]), st.integers(0, 99)),
    min_size=1,
    max_size=40,
)
"""What to do, and a number that picks what to do it to (and, now and then, does it wrong)."""


class _Stream:
    """Turns ops into records a controller might write, with an error now and then: an id or
    a binding stated twice, a removal of an unknown or removed ACL, an unknown user's."""

    def __init__(self, stored: bool) -> None:
        self.live = [(acl.id, acl.resource_name) for acl in STORED] if stored else []
        self.gone: list[tuple[uuid.UUID, str]] = []
        self.users: list[str] = []
        self.fresh = 0

    def record(self, kind: str, n: int) -> Record:
        if kind == "add":
            return self._add(n)
        if kind == "remove" and self.live and n >= 2:
            acl_id, name = self.live.pop(n % len(self.live))
            self.gone.append((acl_id, name))
            return RemoveAccessControlEntryRecord(acl_id)
        if kind == "remove":  # an unknown id, or one removed already
            return RemoveAccessControlEntryRecord(self.gone[0][0] if n and self.gone else _id(999))
        if kind == "scram" or not self.users:
            self.users.append(f"u{n % 3}")
            return UserScramCredentialRecord(
                f"u{n % 3}", ScramMechanism.SCRAM_SHA_256, b"s" * 8, b"k" * 32, b"v" * 32, 4096
            )
        user = self.users.pop(n % len(self.users)) if n else "nobody"
        return RemoveUserScramCredentialRecord(user, ScramMechanism.SCRAM_SHA_256)

    def _add(self, n: int) -> Record:
        self.fresh += 1
        acl_id, name = _id(self.fresh), f"n{self.fresh}"
        if n < 2 and self.live:  # a stored id, or a stored binding, stated again
            twin_id, twin_name = self.live[0]
            acl_id, name = (twin_id, name) if n == 0 else (acl_id, twin_name)
        elif n < 30 and self.gone:  # a removed ACL's binding added again
            name = self.gone[n % len(self.gone)][1]
        self.live.append((acl_id, name))
        return acl_record(acl_id, name, "User:bob" if n % 2 else "User:x")


def _id(n: int) -> uuid.UUID:
    return uuid.UUID(int=n)


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
    ops=_ops,
    sizes=st.lists(st.integers(1, 4), min_size=1, max_size=5),
    base=st.sampled_from(["empty", "table", "mapping"]),
)
def test_small_batches_replay_as_the_same_records_in_bulk(
    ops: list[tuple[str, int]], sizes: list[int], base: str
) -> None:
    image = _bases()[base]
    first = image.provenance.last_offset + 1
    stream = _Stream(stored=base != "empty")
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
