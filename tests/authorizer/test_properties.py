"""Hypothesis properties: the trie authorizer answers exactly as the naive reference does."""

from __future__ import annotations

from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.authorizer import (
    AclFilter,
    Authorizer,
    Decision,
    grouped,
    kafka_order,
    memo,
    shards,
    skipped_characters,
)
from aclog.authorizer.invariants import check_index
from aclog.records.enums import AclPermissionType, PatternType
from tests.authorizer.reference import ReferenceAuthorizer, skipped
from tests.authorizer.strategies import (
    REQUEST_HOSTS,
    REQUEST_PRINCIPALS,
    SUPER,
    acl_sets,
    bindings,
    filters,
    make_acl,
    requests,
    scenarios,
    with_ids,
)

PROPERTY = settings(max_examples=250, deadline=None)


def pair(acls, allow_everyone: bool = False) -> tuple[Authorizer, ReferenceAuthorizer]:
    trie = Authorizer(super_users={SUPER}, allow_everyone_if_no_acl_found=allow_everyone)
    trie.load(acls)
    reference = ReferenceAuthorizer({SUPER}, allow_everyone)
    reference.load(acls)
    return trie, reference


@PROPERTY
@given(scenarios(), st.booleans())
def test_authorize_and_explain_equal_the_reference(scenario, allow_everyone) -> None:
    acls, asked = scenario
    trie, reference = pair(acls, allow_everyone)
    check_index(trie.index)
    for request in asked:
        got, want = trie.explain(*request), reference.explain(*request)
        assert trie.authorize(*request) == want.decision, request
        assert got.decision == want.decision, request
        assert got.deciding_acl == want.deciding_acl, request
        assert got.matching_acls == want.matching_acls, request
        name = request[-1]
        if got.deciding_acl is not None:
            assert skipped_characters(got.deciding_acl, name) == skipped(want.deciding_acl, name)
            ranks = [skipped_characters(a, name) for a in got.matching_acls]
            assert ranks == sorted(ranks)


@PROPERTY
@given(scenarios(max_requests=8), st.booleans())
def test_authorized_operations_equal_the_reference(scenario, allow_everyone) -> None:
    acls, asked = scenario
    trie, reference = pair(acls, allow_everyone)
    for principal, host, _, resource_type, name in asked:
        got = trie.authorized_operations(principal, host, resource_type, name)
        assert got == reference.authorized_operations(principal, host, resource_type, name)
        one_by_one = {
            op
            for op in reference.authorized_operations(principal, host, resource_type, name)
            if trie.authorize(principal, host, op, resource_type, name) == Decision.ALLOWED
        }
        assert got == one_by_one


@PROPERTY
@given(acl_sets(), st.lists(filters, min_size=1, max_size=10))
def test_acls_by_filter_equal_the_reference(acls, chosen) -> None:
    trie, reference = pair(acls)
    for acl_filter in chosen:
        got = trie.acls(acl_filter)
        want = reference.acls(acl_filter)
        assert set(got) == set(want), acl_filter
        assert len(got) == len(want)
        assert got == kafka_order(want)


@PROPERTY
@given(scenarios(max_requests=1), st.data())
def test_a_matching_deny_anywhere_beats_every_allow(scenario, data) -> None:
    acls, (request,) = scenario
    principal, _, operation, resource_type, name = request
    trie, _ = pair(acls)
    kind = data.draw(st.sampled_from((PatternType.LITERAL, PatternType.PREFIXED)))
    # A DENY that applies to the name at the lowest specificity still wins.
    pattern = "*" if kind == PatternType.LITERAL else name[:1] or name
    if not pattern:
        pattern, kind = "*", PatternType.LITERAL
    deny = make_acl(
        pattern,
        kind,
        principal="User:*",
        host="*",
        operation=operation,
        permission=AclPermissionType.DENY,
        resource_type=resource_type,
    )
    trie.add(deny)
    expected = Decision.ALLOWED if principal == SUPER else Decision.DENIED
    assert trie.authorize(*request) == expected
    if principal != SUPER:
        assert trie.explain(*request).deciding_acl is not None


@PROPERTY
@given(scenarios(), bindings())
def test_adding_an_allow_never_turns_allowed_into_denied(scenario, fields) -> None:
    acls, asked = scenario
    trie, _ = pair(acls)
    before = [trie.authorize(*request) for request in asked]
    allow = make_acl(fields[1], fields[2], *fields[3:6], AclPermissionType.ALLOW, fields[0])
    trie.add(allow)
    for request, old in zip(asked, before, strict=True):
        if old == Decision.ALLOWED:
            assert trie.authorize(*request) == Decision.ALLOWED, request


@st.composite
def histories(draw: st.DrawFn) -> list[tuple[str, object]]:
    """Random add / remove / batch steps; removals name ACLs present at that point."""
    steps: list[tuple[str, object]] = []
    present: list = []
    for fields in draw(st.lists(bindings(), min_size=1, max_size=30)):
        action = draw(st.sampled_from(("add", "add", "remove", "batch")))
        if action == "remove" and present:
            victim = present.pop(draw(st.integers(0, len(present) - 1)))
            steps.append(("remove", victim.id))
            continue
        acl = make_acl(fields[1], fields[2], *fields[3:], resource_type=fields[0])
        if action == "batch" and present:
            victim = present.pop(draw(st.integers(0, len(present) - 1)))
            steps.append(("batch", ([acl], [victim.id])))
        else:
            steps.append(("add", acl))
        present.append(acl)
    return steps


@PROPERTY
@given(histories(), st.lists(requests, min_size=1, max_size=10))
def test_add_remove_sequences_equal_a_load_of_the_final_set(steps, asked) -> None:
    _check_history(steps, asked)


@PROPERTY
@given(histories(), st.lists(requests, min_size=1, max_size=10))
def test_add_remove_sequences_on_grouped_patterns(steps, asked) -> None:
    """Every pattern of three or more ACLs grouped: changes go through the incremental path."""
    with mock.patch.object(grouped, "SMALL", 2):
        _check_history(steps, asked)


def _check_history(steps, asked) -> None:
    trie = Authorizer(super_users={SUPER})
    trie.complete_initial_load()
    final: dict = {}
    for action, payload in steps:
        if action == "add":
            trie.add(payload)
            final[payload.id] = payload
        elif action == "remove":
            trie.remove(payload)
            del final[payload]
        else:
            adds, removes = payload
            trie.apply(adds, removes)
            for acl_id in removes:
                del final[acl_id]
            final.update((a.id, a) for a in adds)
        # Asked after every step: the index remembers names, and a change must forget them.
        _, now = pair(list(final.values()))
        for request in asked:
            assert trie.authorize(*request) == now.authorize(*request), (action, request)
        check_index(trie.index)
    loaded, reference = pair(list(final.values()))
    assert len(trie) == len(loaded) == len(final)
    assert trie.acls(_everything()) == loaded.acls(_everything())
    for request in asked:
        assert trie.explain(*request) == loaded.explain(*request)
        assert trie.authorize(*request) == reference.authorize(*request)


def _everything() -> AclFilter:
    return AclFilter()


@PROPERTY
@given(st.lists(bindings(), max_size=20))
def test_load_of_the_same_set_in_any_order_lists_the_same(fields) -> None:
    acls = with_ids(fields)
    forward, backward = Authorizer(), Authorizer()
    forward.load(acls)
    backward.load(reversed(acls))
    assert forward.acls(_everything()) == backward.acls(_everything()) == kafka_order(acls)


@PROPERTY
@given(scenarios(max_requests=8), st.data())
def test_tiny_shards_and_groups_answer_like_the_reference(scenario, data) -> None:
    """With a tiny shard target every map splits into many shards and regrows as ACLs come; with
    a tiny ``SMALL`` every pattern of three or more ACLs is grouped and changed incrementally."""
    acls, asked = scenario
    with mock.patch.object(shards, "TARGET", 1), mock.patch.object(grouped, "SMALL", 2):
        trie, reference = pair(acls)
        check_index(trie.index)
        grown = Authorizer(super_users={SUPER})
        grown.complete_initial_load()
        for acl in acls:
            grown.add(acl)
            check_index(grown.index)
        for request in asked:
            got, want = trie.explain(*request), reference.explain(*request)
            assert (got.decision, got.matching_acls) == (want.decision, want.matching_acls)
            assert grown.explain(*request) == got
            principal, host, _, resource_type, name = request
            assert trie.authorized_operations(
                principal, host, resource_type, name
            ) == reference.authorized_operations(principal, host, resource_type, name)
        for acl in data.draw(st.permutations(acls)):
            trie.remove(acl.id)
            check_index(trie.index)


@PROPERTY
@given(scenarios(), st.data(), st.integers(min_value=0, max_value=3))
def test_answers_from_the_memo_equal_the_reference(scenario, data, cap) -> None:
    """A name asked again (by the same principal, or by another one from another host) is
    answered from the memo of the index, with at most ``cap`` principals remembered per name
    beyond the first: every answer still equals the reference's, and every remembered entry
    equals a fresh computation."""
    acls, asked = scenario
    others = st.tuples(
        st.sampled_from(REQUEST_PRINCIPALS), st.sampled_from(REQUEST_HOSTS), st.sampled_from(asked)
    )
    again = [
        (principal, host, *request[2:])
        for principal, host, request in data.draw(st.lists(others, max_size=30))
    ]
    with mock.patch.object(memo, "PRINCIPALS_PER_NAME", cap + 1):
        trie, reference = pair(acls)
        for request in [*asked, *again, *asked]:
            assert trie.authorize(*request) == reference.authorize(*request), request
        check_index(trie.index)
        for names in trie.index.by_type.values():
            assert all(len(seen) <= cap + 1 for seen in names.memo.values())
