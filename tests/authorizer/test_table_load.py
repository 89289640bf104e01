"""The index built from an ACL table (:func:`index_from_table`, numpy grouping) against the
reference bulk load (``AclIndex.build`` of the same records): the same ACLs, the same rules per
pattern, the same iteration order, the same decisions, the same errors."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aclog.authorizer.decide as core
from aclog.acl.matchers import canonical_host
from aclog.authorizer import Authorizer
from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.invariants import check_index
from aclog.authorizer.table_load import index_from_table
from aclog.image import AclsImage
from aclog.image.acl_column_rows import of_records, words_of_id_bytes
from aclog.image.acl_table import AclTable
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

PROPERTY = settings(max_examples=150, deadline=None)
KINDS = (PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB)
PERMISSIONS = (AclPermissionType.ALLOW, AclPermissionType.DENY) * 3 + (
    AclPermissionType.UNKNOWN,
    AclPermissionType.ANY,
)
ALLOW = AclPermissionType.ALLOW
OPERATIONS = operations | st.sampled_from((AclOperation.UNKNOWN, AclOperation.ANY))
BAD_GLOBS = ("", "a\\", "\\", "*" * 1001)
"""GLOB patterns the index refuses (no controller commits one; a damaged log might hold one)."""
UNSTORED = (PatternType.UNKNOWN, PatternType.ANY, PatternType.MATCH)


@st.composite
def acl_sets(draw: st.DrawFn) -> list[AccessControlEntryRecord]:
    """ACL sets of every resource type and stored pattern type, ``*`` names, wildcard and glob
    principals and hosts, many ACLs on one pattern, unknown codes, distinct bindings and ids;
    one set in five also holds ACLs the index refuses (an invalid GLOB, a pattern type that
    is not stored)."""
    fields: dict[tuple[Any, ...], None] = {}
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(st.sampled_from(KINDS))
        resource_type = draw(st.sampled_from(tuple(ResourceType)))
        name = draw(glob_patterns if kind == PatternType.GLOB else names)
        for _ in range(draw(st.sampled_from((1, 1, 1, 2, 20)))):  # 20: past grouped.SMALL
            principal = draw(st.sampled_from(ACL_PRINCIPALS))
            host, operation = draw(st.sampled_from(ACL_HOSTS)), draw(OPERATIONS)
            binding = (resource_type, name, kind, principal, host, operation)
            fields[(*binding, draw(st.sampled_from(PERMISSIONS)))] = None
    rows = list(fields)
    if draw(st.integers(0, 4)) == 0:
        for _ in range(draw(st.integers(1, 2))):
            bad = draw(st.sampled_from(BAD_GLOBS))
            glob = bad or draw(st.booleans())
            kind = PatternType.GLOB if glob else draw(st.sampled_from(UNSTORED))
            row = (ResourceType.TOPIC, bad, kind, "User:x", "*", AclOperation.READ, ALLOW)
            rows.insert(draw(st.integers(0, len(rows))), row)
    rows = list(dict.fromkeys(rows))
    ids = draw(st.permutations(range(1, len(rows) + 1)))  # ids not in image order
    return [AccessControlEntryRecord(uuid.UUID(int=i), *f) for i, f in zip(ids, rows, strict=True)]


def built(build: Any, acls: Any) -> AclIndex | str:
    """The index ``build`` makes of ``acls``, or its ``ValueError``'s message."""
    try:
        return build(acls)  # type: ignore[no-any-return]
    except ValueError as error:
        return f"ValueError: {error}"


def table_of(acls: list[AccessControlEntryRecord]) -> AclTable:
    table = AclTable.from_records(acls)
    assert table is not None
    return table


def assert_same_index(index: AclIndex, reference: AclIndex, acls: list[Any], data: Any) -> None:
    """``index`` holds what ``reference`` holds, filed the same way, and answers the same."""
    check_index(index)
    assert len(index) == len(reference) == len(acls)
    assert index.listing() == reference.listing()
    assert list(index) == list(reference)  # the same maps, filled in the same order
    assert list(index.by_type) == list(reference.by_type)
    for resource_type, names_index in reference.by_type.items():
        mine = index.by_type[resource_type]
        theirs = [(kind, rules.acls) for kind, rules in names_index.containers()]
        assert [(kind, rules.acls) for kind, rules in mine.containers()] == theirs
    for request in data.draw(st.lists(aimed_requests(acls), max_size=12)):
        principal, host, operation, resource_type, name = request
        asked = (principal, canonical_host(host))
        where = (resource_type, name)
        both = (index, reference)
        assert len({core.request_bits(i, *asked, *where) for i in both}) == 1, request
        if operation != AclOperation.ANY:
            decided = [core.decide(i, *asked, operation, *where) for i in both]
            assert decided[0] == decided[1], request
            matched = [core.matching(i, *asked, operation, *where) for i in both]
            assert matched[0] == matched[1], request
        assert core.operations(index, *asked, *where) == core.operations(reference, *asked, *where)
    for acl_filter in data.draw(st.lists(filters, max_size=5)):
        assert sorted(index.select(acl_filter), key=str) == sorted(
            reference.select(acl_filter), key=str
        )


@PROPERTY
@given(acl_sets(), st.data())
def test_an_index_from_a_table_equals_the_reference_bulk_load(acls, data) -> None:
    mine = built(index_from_table, table_of(acls))
    reference = built(AclIndex.build, acls)
    if isinstance(reference, str):
        assert mine == reference  # the same error, naming the same ACL
    else:
        assert isinstance(mine, AclIndex), mine
        assert_same_index(mine, reference, acls, data)


@PROPERTY
@given(acl_sets(), st.data())
def test_an_index_from_a_changed_table_equals_the_reference_of_its_records(acls, data) -> None:
    """A table after a batch: several segments, removed rows masked out, strings coded by
    the pool the batch extended."""
    split = data.draw(st.integers(0, len(acls)))
    base, added = acls[:split], acls[split:]
    gone = data.draw(st.lists(st.sampled_from(base), unique=True)) if base else []
    removed = words_of_id_bytes(b"".join(acl.id.bytes for acl in gone))
    table = table_of(base).applied(of_records(added), removed)
    assert table is not None
    kept = [acl for acl in base if acl not in gone] + added
    assert table.records() == kept
    mine, reference = built(index_from_table, table), built(AclIndex.build, kept)
    if isinstance(reference, str):
        assert mine == reference
    else:
        assert isinstance(mine, AclIndex), mine
        assert_same_index(mine, reference, kept, data)


def test_codes_without_a_member_group_as_their_records_do() -> None:
    """Two resource types the enum lacks are both UNKNOWN in every record the table gives:
    one pattern, not two (grouping by the raw codes would lose one of them)."""
    first = make_acl("orders", resource_type=77, principal="User:a")  # type: ignore[arg-type]
    second = make_acl("orders", resource_type=78, principal="User:b")  # type: ignore[arg-type]
    table = table_of([first, second])
    index = index_from_table(table)
    assert len(index) == 2
    assert index.listing() == AclIndex.build(table.records()).listing()
    rules = index.by_type[ResourceType.UNKNOWN].exact(PatternType.LITERAL, "orders")
    assert rules is not None and [acl.principal for acl in rules.acls] == ["User:a", "User:b"]


def test_an_empty_table_gives_an_empty_index() -> None:
    index = index_from_table(table_of([]))
    assert len(index) == 0 and index.listing() == [] and not index.by_type


def test_an_invalid_glob_is_the_references_error() -> None:
    acls = [make_acl("orders"), make_acl("a\\", PatternType.GLOB)]
    with pytest.raises(ValueError) as mine:
        index_from_table(table_of(acls))
    with pytest.raises(ValueError) as reference:
        AclIndex.build(acls)
    assert str(mine.value) == str(reference.value)


def loaded_or_error(acls: Any) -> Authorizer | str:
    """An authorizer that loaded ``acls``, or its load's ``ValueError`` message (then the
    authorizer is checked to be unchanged: not ready, empty)."""
    authorizer = Authorizer(super_users={SUPER})
    try:
        authorizer.load(acls)
    except ValueError as error:
        assert not authorizer.is_ready and len(authorizer) == 0
        return f"ValueError: {error}"
    return authorizer


@PROPERTY
@given(acl_sets(), st.data())
def test_an_authorizer_loaded_from_a_table_image_answers_as_one_loaded_from_records(
    acls, data
) -> None:
    """``Authorizer.load`` of a table-backed image groups the index from the table's columns;
    every query answers as after a load of the records, and a changed table (several
    segments, masked rows) too; an ACL the index refuses is the same ``ValueError``."""
    split = data.draw(st.integers(0, len(acls)))
    gone = data.draw(st.lists(st.sampled_from(acls[:split]), unique=True)) if split else []
    table = table_of(acls[:split]).applied(
        of_records(acls[split:]), words_of_id_bytes(b"".join(acl.id.bytes for acl in gone))
    )
    assert table is not None
    kept = table.records()
    mine, reference = loaded_or_error(AclsImage.of_table(table)), loaded_or_error(kept)
    if isinstance(reference, str):
        assert mine == reference  # the same error, naming the same ACL
        return
    assert isinstance(mine, Authorizer), mine
    check_index(mine.index)
    assert mine.index.listing() == reference.index.listing()
    for request in data.draw(st.lists(aimed_requests(kept), max_size=12)):
        principal, host, operation, resource_type, name = request
        if operation != AclOperation.ANY and resource_type != ResourceType.ANY:
            assert mine.explain(*request) == reference.explain(*request), request
            assert mine.authorize(*request) == reference.authorize(*request), request
        if resource_type not in (ResourceType.ANY, ResourceType.UNKNOWN):
            ops = (principal, host, resource_type, name)
            assert mine.authorized_operations(*ops) == reference.authorized_operations(*ops)
    for acl_filter in data.draw(st.lists(filters, max_size=5)):
        assert mine.acls(acl_filter) == reference.acls(acl_filter), acl_filter


def test_a_table_image_with_an_invalid_glob_is_refused_as_its_records_are() -> None:
    acls = [make_acl("orders"), make_acl("a\\", PatternType.GLOB)]
    mine = loaded_or_error(AclsImage.of_table(table_of(acls)))
    assert isinstance(mine, str) and mine == loaded_or_error(acls)
    assert "a\\" in mine
