"""MetadataImage / MetadataDelta: dispatch, provenance, snapshots, determinism, every split."""

from __future__ import annotations

import dataclasses
import uuid

import pytest

from aclog.image import (
    AclsImage,
    MetadataDelta,
    MetadataImage,
    MetadataProvenance,
    ReplayError,
    ScramImage,
    apply_records,
)
from aclog.records.enums import (
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.records.types import (
    AccessControlEntryRecord,
    LeaderChangeRecord,
    NoOpRecord,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    RequestContextRecord,
    UserScramCredentialRecord,
)

SHA256 = ScramMechanism.SCRAM_SHA_256


def acl(n: int) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        uuid.UUID(int=n),
        ResourceType.GROUP,
        f"g{n}",
        PatternType.GLOB,
        "User:svc-*",
        "10.1.?.*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def context(n: int) -> RequestContextRecord:
    return RequestContextRecord("User:admin", "127.0.0.1", f"client-{n}", 1_700_000_000_000 + n)


def upsert(name: str) -> UserScramCredentialRecord:
    return UserScramCredentialRecord(name, SHA256, b"s", b"k", b"v", 4096)


HISTORY = [
    LeaderChangeRecord(1, 1),
    context(1),
    acl(1),
    acl(2),
    context(2),
    upsert("alice"),
    NoOpRecord(),
    context(3),
    RemoveAccessControlEntryRecord(uuid.UUID(int=1)),
    upsert("bob"),
    context(4),
    RemoveUserScramCredentialRecord("alice", SHA256),
    acl(3),
    LeaderChangeRecord(2, 2),
    NoOpRecord(),
]


def replay_all(image: MetadataImage, records, first_offset: int = 0) -> MetadataImage:
    delta = MetadataDelta(image)
    for offset, record in enumerate(records, start=first_offset):
        delta.replay(record, offset)
    last = first_offset + len(records) - 1
    return delta.apply(MetadataProvenance(last, 1, 1000 + last))


def test_empty_image() -> None:
    assert MetadataImage.EMPTY.provenance == MetadataProvenance.EMPTY
    assert MetadataProvenance(-1, -1, -1) == MetadataProvenance.EMPTY
    assert MetadataImage.EMPTY.acls is AclsImage.EMPTY
    assert MetadataImage.EMPTY.scram is ScramImage.EMPTY
    assert MetadataImage.EMPTY.is_empty
    assert MetadataImage.EMPTY.to_dict() == {
        "provenance": {"last_offset": -1, "epoch": -1, "timestamp_ms": -1},
        "acls": [],
        "users": [],
    }


def test_records_route_to_their_domain() -> None:
    image = replay_all(MetadataImage.EMPTY, HISTORY)
    assert list(image.acls.acls) == [uuid.UUID(int=2), uuid.UUID(int=3)]
    assert list(image.scram.users) == ["bob"]
    assert image.provenance == MetadataProvenance(len(HISTORY) - 1, 1, 1000 + len(HISTORY) - 1)
    assert not image.is_empty


@pytest.mark.parametrize("record", [NoOpRecord(), LeaderChangeRecord(3, 7), context(9)])
def test_records_without_state_change_nothing(record) -> None:
    base = replay_all(MetadataImage.EMPTY, [acl(1), upsert("alice")])
    delta = MetadataDelta(base)
    delta.replay(record, 10)
    assert delta.acls_delta is None and delta.scram_delta is None
    image = delta.apply(MetadataProvenance(10, 3, 5))
    assert image.acls is base.acls and image.scram is base.scram
    assert image == dataclasses.replace(base, provenance=MetadataProvenance(10, 3, 5))


def test_latest_request_context_is_visible_during_replay() -> None:
    delta = MetadataDelta(MetadataImage.EMPTY)
    assert delta.request_context is None
    delta.replay(context(1), 0)
    delta.replay(acl(1), 1)
    assert delta.request_context == context(1)
    delta.replay(context(2), 2)
    assert delta.request_context == context(2)


def test_unknown_record_class_raises_with_offset() -> None:
    @dataclasses.dataclass(frozen=True)
    class Strange:
        value: int

    with pytest.raises(ReplayError, match="offset 12: unknown metadata record type Strange"):
        MetadataDelta(MetadataImage.EMPTY).replay(Strange(1), 12)  # type: ignore[arg-type]


def test_strict_errors_propagate_with_offset() -> None:
    delta = MetadataDelta(MetadataImage.EMPTY)
    with pytest.raises(ReplayError, match="offset 4"):
        delta.replay(RemoveAccessControlEntryRecord(uuid.UUID(int=1)), 4)
    with pytest.raises(ReplayError, match="offset 5"):
        delta.replay(RemoveUserScramCredentialRecord("x", SHA256), 5)


def test_deltas_expose_ordered_changes() -> None:
    delta = MetadataDelta(MetadataImage.EMPTY)
    for offset, record in enumerate(HISTORY):
        delta.replay(record, offset)
    assert delta.acls_delta is not None and delta.scram_delta is not None
    assert list(delta.acls_delta.changes) == [uuid.UUID(int=2), uuid.UUID(int=3)]
    assert list(delta.scram_delta.changes) == [("bob", SHA256)]


def test_snapshot_load_on_top_of_an_image_restates_it() -> None:
    current = replay_all(MetadataImage.EMPTY, HISTORY)
    older = replay_all(MetadataImage.EMPTY, HISTORY[:6])
    snapshot_records = [*current.acls, upsert("bob")]
    delta = MetadataDelta(older, snapshot=True)
    for offset, record in enumerate(snapshot_records):
        delta.replay(record, offset)
    delta.finish_snapshot()
    assert delta.apply(current.provenance) == current


def test_finish_snapshot_of_empty_snapshot_clears_everything() -> None:
    current = replay_all(MetadataImage.EMPTY, HISTORY)
    delta = MetadataDelta(current)
    delta.finish_snapshot()
    assert delta.apply(MetadataProvenance(99, 2, 3)) == MetadataImage(MetadataProvenance(99, 2, 3))


def test_apply_records_helper() -> None:
    image = apply_records(MetadataImage.EMPTY, HISTORY[:4], 0)
    assert image.provenance == MetadataProvenance(3, -1, -1)
    image = apply_records(image, HISTORY[4:], 4, MetadataProvenance(14, 2, 77))
    expected = replay_all(MetadataImage.EMPTY, HISTORY)
    assert image == dataclasses.replace(expected, provenance=MetadataProvenance(14, 2, 77))
    assert apply_records(image, [], 15) == image


def test_replay_reads_no_clock_and_no_randomness(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("replay must be deterministic")

    import os
    import random
    import time

    for module, name in [
        (time, "time"),
        (time, "time_ns"),
        (time, "monotonic"),
        (uuid, "uuid4"),
        (os, "urandom"),
        (random, "random"),
    ]:
        monkeypatch.setattr(module, name, forbidden)
    first = replay_all(MetadataImage.EMPTY, HISTORY)
    second = replay_all(MetadataImage.EMPTY, HISTORY)
    assert first == second
    assert first.to_dict() == second.to_dict()


@pytest.mark.parametrize("first", range(1, len(HISTORY) + 1))
@pytest.mark.parametrize("later", range(1, len(HISTORY) + 1))
def test_every_batch_split_gives_the_same_image(first: int, later: int) -> None:
    expected = replay_all(MetadataImage.EMPTY, HISTORY)
    image, offset, size = MetadataImage.EMPTY, 0, first
    while offset < len(HISTORY):
        image = replay_all(image, HISTORY[offset : offset + size], offset)
        offset, size = offset + size, later
    assert image == expected
    assert image.to_dict() == expected.to_dict()
