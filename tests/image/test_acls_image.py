"""AclsImage / AclsDelta: strict replay, commit order, snapshots, and every batch split."""

from __future__ import annotations

import contextlib
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image import AclsDelta, AclsImage, ReplayError
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import (
    AccessControlEntryRecord,
    AclBinding,
    RemoveAccessControlEntryRecord,
    kafka_uuid_text,
)


def acl(n: int, name: str = "foo", permission: AclPermissionType = AclPermissionType.ALLOW):
    return AccessControlEntryRecord(
        uuid.UUID(int=n),
        ResourceType.TOPIC,
        name,
        PatternType.LITERAL,
        f"User:u{n}",
        "*",
        AclOperation.READ,
        permission,
    )


def remove(n: int) -> RemoveAccessControlEntryRecord:
    return RemoveAccessControlEntryRecord(uuid.UUID(int=n))


def replay_all(image: AclsImage, records, first_offset: int = 0) -> AclsImage:
    delta = AclsDelta(image)
    for offset, record in enumerate(records, start=first_offset):
        delta.replay(record, offset)
    return delta.apply()


def test_empty_image() -> None:
    assert AclsImage.EMPTY.acls == {}
    assert len(AclsImage.EMPTY) == 0
    assert AclsImage() == AclsImage.EMPTY
    assert AclsImage.EMPTY.to_dict() == []


def test_add_then_remove_in_later_batches() -> None:
    image = replay_all(AclsImage.EMPTY, [acl(1), acl(2)])
    assert list(image.acls) == [uuid.UUID(int=1), uuid.UUID(int=2)]
    assert image.acls[uuid.UUID(int=1)] == acl(1)
    image = replay_all(image, [remove(1), acl(3)], first_offset=2)
    assert list(image.acls) == [uuid.UUID(int=2), uuid.UUID(int=3)]
    assert image == AclsImage({uuid.UUID(int=2): acl(2), uuid.UUID(int=3): acl(3)})


def test_image_is_read_only_and_copies_its_input() -> None:
    source = {uuid.UUID(int=1): acl(1)}
    image = AclsImage(source)
    source[uuid.UUID(int=2)] = acl(2)
    assert len(image) == 1
    with pytest.raises(TypeError):
        image.acls[uuid.UUID(int=3)] = acl(3)  # type: ignore[index]


def test_id_of_finds_identical_binding_only() -> None:
    image = replay_all(AclsImage.EMPTY, [acl(1), acl(2)])
    assert image.id_of(acl(2).binding) == uuid.UUID(int=2)
    other_host = AclBinding(
        ResourceType.TOPIC,
        "foo",
        PatternType.LITERAL,
        "User:u2",
        "10.0.0.1",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )
    assert image.id_of(other_host) is None


def test_remove_unknown_id_names_offset_and_id() -> None:
    delta = AclsDelta(AclsImage.EMPTY)
    with pytest.raises(ReplayError) as caught:
        delta.replay(remove(7), 42)
    assert "offset 42" in str(caught.value)
    assert kafka_uuid_text(uuid.UUID(int=7)) in str(caught.value)
    assert caught.value.offset == 42


def test_remove_twice_in_one_delta_raises() -> None:
    image = replay_all(AclsImage.EMPTY, [acl(1)])
    delta = AclsDelta(image)
    delta.replay(remove(1), 5)
    with pytest.raises(ReplayError, match="offset 6"):
        delta.replay(remove(1), 6)


def test_add_existing_id_raises() -> None:
    image = replay_all(AclsImage.EMPTY, [acl(1)])
    with pytest.raises(ReplayError, match=r"offset 3.*already exists"):
        AclsDelta(image).replay(acl(1), 3)
    delta = AclsDelta(AclsImage.EMPTY)
    delta.replay(acl(1), 0)
    with pytest.raises(ReplayError, match="offset 1"):
        delta.replay(acl(1), 1)


def test_add_identical_acl_under_another_id_raises() -> None:
    image = replay_all(AclsImage.EMPTY, [acl(1)])
    copy = acl(1).binding.with_id(uuid.UUID(int=9))
    with pytest.raises(ReplayError, match="duplicates"):
        AclsDelta(image).replay(copy, 1)
    delta = AclsDelta(AclsImage.EMPTY)
    delta.replay(acl(1), 0)
    with pytest.raises(ReplayError, match="duplicates"):
        delta.replay(copy, 1)


def test_identical_acl_may_return_after_its_removal() -> None:
    image = replay_all(AclsImage.EMPTY, [acl(1)])
    copy = acl(1).binding.with_id(uuid.UUID(int=9))
    image = replay_all(image, [remove(1), copy])
    assert list(image.acls.values()) == [copy]
    delta = AclsDelta(AclsImage.EMPTY)
    delta.replay(acl(1), 0)
    delta.replay(remove(1), 1)
    delta.replay(copy, 2)
    assert list(delta.apply().acls.values()) == [copy]


def test_add_then_remove_in_one_delta_cancels() -> None:
    image = replay_all(AclsImage.EMPTY, [acl(1)])
    delta = AclsDelta(image)
    delta.replay(acl(2), 1)
    delta.replay(remove(2), 2)
    assert dict(delta.changes) == {}
    assert delta.apply() is image


def test_changes_keep_commit_order() -> None:
    deny = acl(1, permission=AclPermissionType.DENY)
    image = replay_all(AclsImage.EMPTY, [acl(5)])
    delta = AclsDelta(image)
    for offset, record in enumerate([deny, acl(2), remove(5), acl(3)]):
        delta.replay(record, offset)
    assert list(delta.changes.items()) == [
        (uuid.UUID(int=1), deny),
        (uuid.UUID(int=2), acl(2)),
        (uuid.UUID(int=5), None),
        (uuid.UUID(int=3), acl(3)),
    ]
    with pytest.raises(TypeError):
        delta.changes[uuid.UUID(int=8)] = None  # type: ignore[index]


def test_finish_snapshot_removes_everything_not_restated() -> None:
    image = replay_all(AclsImage.EMPTY, [acl(1), acl(2)])
    delta = AclsDelta(image, snapshot=True)
    delta.replay(acl(2), 0)
    delta.replay(acl(3), 1)
    delta.finish_snapshot()
    assert delta.changes[uuid.UUID(int=1)] is None
    assert delta.apply() == AclsImage({uuid.UUID(int=2): acl(2), uuid.UUID(int=3): acl(3)})


def test_snapshot_delta_applies_finish_snapshot_itself() -> None:
    image = replay_all(AclsImage.EMPTY, [acl(1), acl(2)])
    delta = AclsDelta(image, snapshot=True)
    delta.replay(acl(2), 0)
    assert delta.apply() == AclsImage({uuid.UUID(int=2): acl(2)})


def test_snapshot_still_rejects_an_id_stated_twice() -> None:
    delta = AclsDelta(replay_all(AclsImage.EMPTY, [acl(1)]), snapshot=True)
    delta.replay(acl(1), 0)
    with pytest.raises(ReplayError, match="offset 1"):
        delta.replay(acl(1), 1)


def test_finish_snapshot_on_plain_delta_clears_base() -> None:
    image = replay_all(AclsImage.EMPTY, [acl(1), acl(2)])
    delta = AclsDelta(image)
    delta.finish_snapshot()
    assert delta.apply() == AclsImage.EMPTY


def test_to_dict_shape() -> None:
    image = replay_all(AclsImage.EMPTY, [acl(1)])
    assert image.to_dict() == [
        {
            "id": kafka_uuid_text(uuid.UUID(int=1)),
            "resource_type": "TOPIC",
            "resource_name": "foo",
            "pattern_type": "LITERAL",
            "principal": "User:u1",
            "host": "*",
            "operation": "READ",
            "permission_type": "ALLOW",
        }
    ]


HISTORY = [acl(1), acl(2), remove(1), acl(3), acl(4, "bar"), remove(3), acl(5), remove(2)]


@pytest.mark.parametrize("first", range(1, len(HISTORY) + 1))
@pytest.mark.parametrize("later", range(1, len(HISTORY) + 1))
def test_every_batch_split_gives_the_same_image(first: int, later: int) -> None:
    expected = replay_all(AclsImage.EMPTY, HISTORY)
    image, offset = AclsImage.EMPTY, 0
    sizes = [first] + [later] * len(HISTORY)
    for size in sizes:
        if offset >= len(HISTORY):
            break
        image = replay_all(image, HISTORY[offset : offset + size], offset)
        offset += size
    assert image == expected
    assert list(image.acls) == list(expected.acls)
    assert list(image.acls) == [uuid.UUID(int=4), uuid.UUID(int=5)]


def _binding_acl(acl_id: int, key: int) -> AccessControlEntryRecord:
    """ACL ``acl_id`` whose binding is one of a few (``key``), so bindings come back."""
    return AccessControlEntryRecord(
        uuid.UUID(int=acl_id),
        ResourceType.TOPIC,
        f"t{key}",
        PatternType.LITERAL,
        "User:x",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


_steps = st.lists(
    st.tuples(
        st.booleans(),  # a snapshot restating the image, or log records
        st.booleans(),  # build the base image's binding index first
        st.lists(st.tuples(st.booleans(), st.integers(1, 12), st.integers(0, 3)), max_size=12),
    ),
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(_steps)
def test_the_carried_binding_index_equals_a_rebuilt_one(steps) -> None:
    """However an image was reached (batches, snapshots, ids and bindings coming back), the
    index a delta hands on equals the one built from the image's ACLs."""
    image = AclsImage.EMPTY
    for snapshot, build_index, ops in steps:
        if build_index:
            assert image.bindings is not None  # built now, over a mapping or a table
        delta = AclsDelta(image, snapshot=snapshot)
        for offset, (add, acl_id, key) in enumerate(ops):
            record = _binding_acl(acl_id, key) if add else remove(acl_id)
            with contextlib.suppress(ReplayError):
                delta.replay(record, offset)
        image = delta.apply()
        carried = image.built_bindings()
        expected = {acl.key: acl_id for acl_id, acl in image.acls.items()}
        assert carried is None or dict(carried) == expected
        assert {k: image.id_of_key(k) for k in expected} == expected


def test_a_commit_shares_the_stored_acls_with_the_image_before_it() -> None:
    # A commit must cost about its own changes, not a copy of every ACL (O(ACLs) per commit
    # took 60 ms at a million ACLs): the next image shares the previous one's stored ACLs.
    # The next image's table shares the previous one's rows: only the removal's mask and the
    # addition's run are new.
    image = replay_all(AclsImage.EMPTY, [acl(n, name=f"t{n}") for n in range(1000)])
    assert image.id_of(acl(5, name="t5").binding) == uuid.UUID(int=5)
    after = replay_all(image, [acl(2000, name="new"), remove(7)], first_offset=1000)
    assert image.table is not None and after.table is not None
    assert after.table._rows.segments[0] is image.table._rows.segments[0]
    assert len(after) == 1000 and uuid.UUID(int=7) not in after.acls
    assert after.id_of(acl(2000, name="new").binding) == uuid.UUID(int=2000)
    assert after.id_of(acl(7, name="t7").binding) is None
    assert len(image) == 1000 and image.acls[uuid.UUID(int=7)] == acl(7, name="t7")
