"""The bulk load (an empty index loading a whole ACL set, each map filled at once) against the
incremental path (the same ACLs added to a non-empty index, slot by slot), and a load from a
metadata image (the writer's view of the ids: the image plus the changes since) against a
load from a list."""

from __future__ import annotations

import uuid
from collections.abc import ItemsView, Iterator, ValuesView

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.authorizer import AclFilter, Authorizer, Decision, UnknownAclError
from aclog.authorizer.invariants import check_index
from aclog.image import AclsImage
from aclog.image.layered import LayeredMap
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord
from tests.authorizer.strategies import (
    ACL_HOSTS,
    ACL_PRINCIPALS,
    SUPER,
    aimed_requests,
    filters,
    glob_patterns,
    make_acl,
    names,
    operations,
)

PROPERTY = settings(max_examples=200, deadline=None)
KINDS = (PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB)
RESOURCE_TYPES = tuple(t for t in ResourceType if t not in (ResourceType.ANY, ResourceType.UNKNOWN))
PERMISSIONS = (AclPermissionType.ALLOW, AclPermissionType.DENY) * 3 + (
    AclPermissionType.UNKNOWN,
    AclPermissionType.ANY,
)


@st.composite
def loads(draw: st.DrawFn) -> list[AccessControlEntryRecord]:
    """ACL sets of every resource type and pattern type, ``*`` names, many ACLs on one pattern
    (some past the size that keeps groups), one principal twice on a pattern, permissions that
    add no bit; distinct ids."""
    fields = []
    for _ in range(draw(st.integers(0, 40))):
        kind = draw(st.sampled_from(KINDS))
        resource_type = draw(st.sampled_from(RESOURCE_TYPES))
        if kind == PatternType.GLOB and resource_type == ResourceType.CLUSTER:
            kind = PatternType.LITERAL
        name = draw(glob_patterns if kind == PatternType.GLOB else names)
        copies = draw(st.sampled_from((1, 1, 1, 2, 20)))  # 20: past grouped.SMALL
        for _ in range(copies):
            fields.append(
                (
                    resource_type,
                    name,
                    kind,
                    draw(st.sampled_from(ACL_PRINCIPALS)),
                    draw(st.sampled_from(ACL_HOSTS)),
                    draw(operations),
                    draw(st.sampled_from(PERMISSIONS)),
                )
            )
    return [AccessControlEntryRecord(uuid.UUID(int=i + 1), *f) for i, f in enumerate(fields)]


def loaded(acls: list[AccessControlEntryRecord]) -> Authorizer:
    authorizer = Authorizer(super_users={SUPER})
    authorizer.load(acls)
    return authorizer


def added_one_by_one(acls: list[AccessControlEntryRecord]) -> Authorizer:
    """The same ACLs through the incremental path: only the first goes into an empty index."""
    authorizer = loaded(acls[:1])
    for acl in acls[1:]:
        authorizer.add(acl)
    return authorizer


@PROPERTY
@given(loads(), st.data())
def test_a_bulk_load_answers_as_the_acls_added_one_by_one(acls, data) -> None:
    bulk, incremental = loaded(acls), added_one_by_one(acls)
    check_index(bulk.index)
    assert len(bulk) == len(incremental) == len(acls)
    assert bulk.index.listing() == incremental.index.listing()
    for request in data.draw(st.lists(aimed_requests(acls), max_size=12)):
        assert bulk.explain(*request) == incremental.explain(*request), request
        assert bulk.authorize(*request) == incremental.authorize(*request), request
        principal, host, operation, resource_type, name = request
        assert bulk.authorized_operations(
            principal, host, resource_type, name
        ) == incremental.authorized_operations(principal, host, resource_type, name)
        if operation != AclOperation.ANY:
            by_type = bulk.authorize_by_resource_type(principal, host, operation, resource_type)
            assert by_type == incremental.authorize_by_resource_type(
                principal, host, operation, resource_type
            )
    for acl_filter in data.draw(st.lists(filters, max_size=5)):
        assert bulk.acls(acl_filter) == incremental.acls(acl_filter), acl_filter


@PROPERTY
@given(loads(), st.data())
def test_a_load_from_an_image_equals_a_load_from_its_list(acls, data) -> None:
    image = AclsImage({acl.id: acl for acl in acls})
    from_image, from_list = Authorizer(super_users={SUPER}), loaded(acls)
    from_image.load(image)
    assert from_image.index.listing() == from_list.index.listing()
    if acls:  # the writer's view holds the same ids: the same batches pass and fail
        gone = data.draw(st.sampled_from(acls))
        for authorizer in (from_image, from_list):
            authorizer.remove(gone.id)
            with pytest.raises(UnknownAclError):
                authorizer.remove(gone.id)
            authorizer.add(gone)
            with pytest.raises(ValueError, match="already stored"):
                authorizer.add(gone)
        assert from_image.index.listing() == from_list.index.listing()


def test_changing_an_authorizer_loaded_from_an_image_leaves_the_image_alone() -> None:
    kept, gone = make_acl("orders"), make_acl("payments", PatternType.PREFIXED)
    image = AclsImage({kept.id: kept, gone.id: gone})
    authorizer = Authorizer()
    authorizer.load(image)
    authorizer.remove(gone.id)
    authorizer.add(make_acl("audit"))
    assert list(image) == [kept, gone]  # a load reads the image, never writes it
    assert len(authorizer) == 2


class CountedWalks(LayeredMap[uuid.UUID, AccessControlEntryRecord]):
    """An image's real mapping of ACLs by id that counts the walks over it (keys, items or
    values): the writer's view of the ids is made by one such walk."""

    __slots__ = ("walks",)

    def __init__(self, acls: list[AccessControlEntryRecord]) -> None:
        super().__init__({acl.id: acl for acl in acls})
        self.walks = 0

    def __iter__(self) -> Iterator[uuid.UUID]:
        self.walks += 1
        return super().__iter__()

    def items(self) -> ItemsView[uuid.UUID, AccessControlEntryRecord]:
        self.walks += 1
        return super().items()

    def values(self) -> ValuesView[AccessControlEntryRecord]:
        self.walks += 1
        return super().values()


def test_a_load_from_an_image_keeps_the_image_as_the_view_of_the_ids_until_changes_outgrow_it() -> (
    None
):
    acls = [make_acl("orders"), make_acl("payments", PatternType.PREFIXED), make_acl("audit")]
    stored = CountedWalks(acls)
    authorizer = Authorizer()
    authorizer.load(AclsImage(stored))
    assert authorizer.is_ready
    request = ("User:alice", "10.0.0.1", AclOperation.READ, ResourceType.TOPIC, "orders")
    assert authorizer.authorize(*request) == Decision.ALLOWED
    assert len(authorizer.acls(AclFilter())) == 3
    assert stored.walks == 1  # the index read the records; nothing made the view of the ids
    authorizer.remove(acls[0].id)
    authorizer.add(acls[0])
    assert stored.walks == 1  # the first changes looked their own ids up, no more
    # Ids 0, 1 and 2 gone, 0 and 2 added: five changes over a base of three, made whole once.
    authorizer.apply_changes({acls[1].id: None, acls[2].id: acls[2]})
    assert stored.walks == 2
    with pytest.raises(UnknownAclError):
        authorizer.remove(acls[1].id)
    authorizer.add(acls[1])
    assert stored.walks == 2  # and only once
    assert sorted(acl.resource_name for acl in authorizer.index) == ["audit", "orders", "payments"]


def test_a_list_that_repeats_an_id_is_still_refused_whole() -> None:
    first = make_acl("orders")
    again = make_acl("payments", acl_id=first.id)
    authorizer = loaded([make_acl("audit")])
    with pytest.raises(ValueError, match="appears twice"):
        authorizer.load([first, again])
    assert [acl.resource_name for acl in authorizer.index.listing()] == ["audit"]
