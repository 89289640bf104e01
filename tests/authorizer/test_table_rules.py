"""The contract of the rules built from table columns (:mod:`aclog.authorizer.table_rules`)
against the reference (``build_rules`` of each pattern's records, ``AclIndex.build``): equal
rules per pattern, equal decisions, listings and explanations, also after changes; no record
made by a load; rows that no later table moves."""

from __future__ import annotations

import dataclasses
import gc
import random
import tracemalloc
import uuid
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.acl.filters import AclFilter
from aclog.authorizer import Authorizer
from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.invariants import check_index
from aclog.authorizer.rules import Rules
from aclog.authorizer.table_load import index_from_table
from aclog.authorizer.table_rules import TableRules
from aclog.image import AclsImage
from aclog.image.acl_column_rows import of_records, words_of_id_bytes
from aclog.image.acl_table import AclTable
from aclog.image.acl_table_columns import TableColumns
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord
from tests.authorizer import strategies
from tests.authorizer.strategies import SUPER, aimed_requests, filters
from tests.authorizer.test_table_load import acl_sets, loaded_or_error, table_of

PROPERTY = settings(max_examples=150, deadline=None)


def changed_table(acls: list[AccessControlEntryRecord], data: Any) -> AclTable:
    """A table of ``acls`` as built, or after a batch (several segments, masked rows)."""
    split = data.draw(st.integers(0, len(acls)))
    gone = data.draw(st.lists(st.sampled_from(acls[:split]), unique=True)) if split else []
    table = table_of(acls[:split]).applied(
        of_records(acls[split:]), words_of_id_bytes(b"".join(acl.id.bytes for acl in gone))
    )
    assert table is not None
    return table


def parts(rules: Rules) -> tuple[Any, ...]:
    """Everything a pattern's rules hold, comparable."""
    extra = None if rules.extra is None else (rules.extra.hosted, set(rules.extra.globby))
    return dict(rules), rules.wild, extra, rules.acls, rules.groups


def assert_same_rules(index: AclIndex, reference: AclIndex) -> int:
    """Every pattern's rules in ``index`` equal the reference's, filed in the same order; the
    number of patterns built from columns."""
    from_columns = 0
    assert list(index.by_type) == list(reference.by_type)
    for resource_type, theirs in reference.by_type.items():
        mine = list(index.by_type[resource_type].containers())
        assert [kind for kind, _ in mine] == [kind for kind, _ in theirs.containers()]
        for (_, rules), (_, expected) in zip(mine, theirs.containers(), strict=True):
            from_columns += type(rules) is TableRules
            assert parts(rules) == parts(expected)
    return from_columns


def assert_same_answers(
    mine: Authorizer, reference: Authorizer, acls: list[Any], data: Any
) -> None:
    check_index(mine.index)
    assert mine.index.listing() == reference.index.listing()
    for request in data.draw(st.lists(aimed_requests(acls), max_size=10)):
        principal, host, operation, resource_type, name = request
        if operation != AclOperation.ANY and resource_type != ResourceType.ANY:
            assert mine.explain(*request) == reference.explain(*request), request
            assert mine.authorize(*request) == reference.authorize(*request), request
        if resource_type not in (ResourceType.ANY, ResourceType.UNKNOWN):
            asked = (principal, host, resource_type, name)
            assert mine.authorized_operations(*asked) == reference.authorized_operations(*asked)
    for acl_filter in data.draw(st.lists(filters, max_size=4)):
        assert mine.acls(acl_filter) == reference.acls(acl_filter), acl_filter


@PROPERTY
@given(acl_sets(), st.data())
def test_rules_from_columns_equal_the_reference_and_answer_alike_after_changes(acls, data) -> None:
    """Random tables (LITERAL, PREFIXED and GLOB patterns, ALLOW, DENY and other permissions,
    ``User:*`` and glob principals, ``*``, IP and glob hosts, unknown codes, patterns past
    ``grouped.SMALL``): each pattern's rules equal the reference's (host-``*`` LITERAL and
    PREFIXED patterns built from columns), an authorizer loaded from the table answers as one
    loaded from the records (decisions, explanations, listings, filters), and still does
    after the same random batch of removals and additions is applied to both."""
    table = changed_table(acls, data)
    kept = table.records()
    mine, reference = loaded_or_error(AclsImage.of_table(table)), loaded_or_error(kept)
    if isinstance(reference, str):
        assert mine == reference  # the reference's own error
        return
    assert isinstance(mine, Authorizer), mine
    from_columns = assert_same_rules(mine.index, reference.index)
    assert from_columns == len(plain_patterns(kept))  # every plain pattern skipped records
    assert_same_answers(mine, reference, kept, data)
    gone = data.draw(st.lists(st.sampled_from(kept), unique=True, max_size=4)) if kept else []
    stored = {acl.id for acl in kept}
    added = [a for a in data.draw(strategies.acl_sets(max_size=4)) if a.id not in stored]
    for authorizer in (mine, reference):
        authorizer.apply(adds=added, removes=[acl.id for acl in gone])
    now = [acl for acl in kept if acl not in gone] + added
    assert_same_rules(mine.index, reference.index)
    assert_same_answers(mine, reference, now, data)


def plain_patterns(acls: list[AccessControlEntryRecord]) -> dict[tuple[Any, ...], list[Any]]:
    """The ACLs of each pattern that is not GLOB and has no host-specific ACL, by pattern."""
    patterns: dict[tuple[Any, ...], list[Any]] = {}
    for acl in acls:
        patterns.setdefault((acl.resource_type, acl.pattern_type, acl.resource_name), []).append(
            acl
        )
    return {
        key: group
        for key, group in patterns.items()
        if key[1] != PatternType.GLOB and all(acl.host == "*" for acl in group)
    }


def many_acls(count: int, seed: int) -> list[AccessControlEntryRecord]:
    """``count`` ACLs on a few hundred patterns, a few host-specific and GLOB."""
    rng = random.Random(seed)
    fields = {
        (
            rng.choice((ResourceType.TOPIC, ResourceType.GROUP)),
            f"t{rng.randrange(150)}",
            rng.choice((PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB))
            if rng.random() < 0.05
            else rng.choice((PatternType.LITERAL, PatternType.PREFIXED)),
            rng.choice(("User:*", *(f"User:u{i}" for i in range(40)))),
            "10.0.0.1" if rng.random() < 0.01 else "*",
            rng.choice((AclOperation.READ, AclOperation.WRITE, AclOperation.ALL)),
            AclPermissionType.DENY if rng.random() < 0.1 else AclPermissionType.ALLOW,
        ): None
        for _ in range(count)
    }
    return [AccessControlEntryRecord(uuid.UUID(int=rng.getrandbits(128)), *f) for f in fields]


def records_alive() -> int:
    gc.collect()
    return sum(type(o) is AccessControlEntryRecord for o in gc.get_objects())


def test_a_load_makes_no_record_and_a_listing_makes_them_all_at_once() -> None:
    """Loading a table builds no record; reading a few patterns makes theirs one by one; a
    listing (past the patience of the one-by-one path) makes every record at once, equal to
    the reference's."""
    acls = many_acls(6000, seed=3)
    table = table_of(acls)
    slow = len(acls) - sum(map(len, plain_patterns(acls).values()))
    assert 0 < slow < len(acls) // 4
    del acls
    before = records_alive()
    index = index_from_table(table)
    assert records_alive() == before + slow  # only the GLOB and host-specific patterns'
    lazy: list[Any] = [r for names in index.by_type.values() for _, r in names.containers()]
    assert sum(type(r) is TableRules for r in lazy) > 100  # enough to pass the patience
    first = next(r for r in lazy if type(r) is TableRules).acls
    assert records_alive() == before + slow + len(first)
    reference = AclIndex.build(table.records())
    assert index.listing() == reference.listing()
    some = next(r for r in lazy if type(r) is TableRules)
    assert some._source._all is not None  # the listing made them all at once
    assert_same_rules(index, reference)


def test_rules_keep_their_rows_when_a_later_table_removes_and_adds() -> None:
    """An index built from a table, read only after a newer table removed rows before its
    patterns' rows and added others, still holds exactly the older table's ACLs; its columns
    are read-only."""
    acls = many_acls(3000, seed=5)
    old = table_of(acls)
    index = index_from_table(old)
    gone = acls[: len(acls) // 2]
    fresh = [
        dataclasses.replace(acl, id=uuid.UUID(int=i + 1), principal=f"{acl.principal}-new")
        for i, acl in enumerate(gone)
    ]
    newer = old.applied(
        of_records(fresh[::-1]), words_of_id_bytes(b"".join(a.id.bytes for a in gone))
    )
    assert newer is not None and newer.records() != acls
    newer_index = index_from_table(newer)
    assert index.listing() == AclIndex.build(acls).listing()
    assert newer_index.listing() == AclIndex.build(newer.records()).listing()
    columns = TableColumns.of(newer)
    with pytest.raises(ValueError, match="read-only"):
        columns.names[1][0] = 0
    assert isinstance(columns.codes[0], np.ndarray)


def test_an_authorizer_keeps_the_published_index_whole_across_a_change() -> None:
    """A reader holding the index published by a table load reads its ACLs after the writer
    applied a change over it: still the loaded ACLs (the rules it shares with the new index
    are the same objects, their records made from the same rows)."""
    acls = many_acls(2000, seed=7)
    authorizer = Authorizer(super_users={SUPER})
    authorizer.load(AclsImage.of_table(table_of(acls)))
    published = authorizer.index
    removed = acls[: len(acls) // 3]
    authorizer.apply(adds=(), removes=[acl.id for acl in removed])
    assert published.filtered(AclFilter()) == AclIndex.build(acls).listing()
    assert authorizer.acls(AclFilter()) == AclIndex.build(acls[len(acls) // 3 :]).listing()


def test_a_pattern_loaded_from_a_table_costs_under_340_bytes() -> None:
    """20,000 patterns of one ACL each (the shape of most of a big cluster's LITERAL topics):
    the index costs its rules (a dict and its table), its shard entry and 4 bytes of row
    order per ACL; a pattern refers to its rows by number (a slice of two ints per pattern
    took 390 bytes in all)."""
    count = 20_000
    acls = [
        AccessControlEntryRecord(
            uuid.UUID(int=i + 1), ResourceType.TOPIC, f"topic-{i}", PatternType.LITERAL,
            f"User:u{i % 50}", "*", AclOperation.READ, AclPermissionType.ALLOW,
        )
        for i in range(count)
    ]  # fmt: skip
    table = table_of(acls)
    table.pool.array()  # the pool's strings array is the table's, not the index's
    gc.collect()
    tracemalloc.start()
    try:
        index = index_from_table(table)
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(index) == count
    assert held / count < 340
