"""authorize_by_resource_type: Kafka's steps for LITERAL/PREFIXED sets (spec §8), and the GLOB
extension, which only answers ALLOWED with a name that authorize allows."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.authorizer import Authorizer, AuthorizerNotReadyError, Decision
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from tests.authorizer.reference import (
    ReferenceAuthorizer,
    host_matches,
    principal_matches,
)
from tests.authorizer.strategies import (
    REQUEST_HOSTS,
    REQUEST_PRINCIPALS,
    SUPER,
    acl_sets,
    aimed_requests,
    make_acl,
    operations,
    types,
)

O = AclOperation  # noqa: E741
LITERAL, PREFIXED, GLOB = PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB
ALLOWED, DENIED = Decision.ALLOWED, Decision.DENIED
DENY = AclPermissionType.DENY
TOPIC = ResourceType.TOPIC
ALICE = "User:alice"
HOST = "10.0.0.1"
PROPERTY = settings(max_examples=250, deadline=None)


def by_type(acls, operation=O.WRITE, allow_everyone=False, principal=ALICE) -> Decision:
    authorizer = Authorizer({SUPER}, allow_everyone)
    authorizer.load(acls)
    decision = authorizer.authorize_by_resource_type(principal, HOST, operation, TOPIC)
    name = authorizer.allowed_name(principal, HOST, operation, TOPIC)
    assert (decision == ALLOWED) == (name is not None)
    if name is not None:
        assert authorizer.authorize(principal, HOST, operation, TOPIC, name) == ALLOWED
    return decision


def deny(name, kind=LITERAL, operation=O.WRITE):
    return make_acl(name, kind, principal="User:*", operation=operation, permission=DENY)


@pytest.mark.parametrize(
    ("acls", "expected"),
    [
        ([], DENIED),
        ([make_acl("foo", operation=O.WRITE)], ALLOWED),
        ([make_acl("foo", operation=O.ALL)], ALLOWED),
        ([make_acl("foo", operation=O.WRITE), deny("foo")], DENIED),
        ([make_acl("foo", operation=O.WRITE), deny("fo", PREFIXED)], DENIED),
        ([make_acl("foo", operation=O.WRITE), deny("foo", PREFIXED)], DENIED),
        ([make_acl("foo", PREFIXED, operation=O.WRITE), deny("foo")], ALLOWED),
        ([make_acl("foo", PREFIXED, operation=O.WRITE), deny("fo", PREFIXED)], DENIED),
        ([make_acl("f", PREFIXED, operation=O.WRITE), deny("fo", PREFIXED)], ALLOWED),
        ([make_acl("*", operation=O.WRITE), deny("foo", PREFIXED)], ALLOWED),
        ([make_acl("foo", operation=O.WRITE), deny("*")], DENIED),
        ([make_acl("foo", operation=O.WRITE), deny("*", operation=O.ALL)], DENIED),
        ([make_acl("foo", operation=O.WRITE), deny("foo", operation=O.READ)], ALLOWED),
        ([make_acl("foo", operation=O.READ)], DENIED),  # no implication, READ is not WRITE
        ([make_acl("foo", operation=O.WRITE, principal="User:bob")], DENIED),
        ([make_acl("foo", operation=O.WRITE, host="10.9.9.9")], DENIED),
    ],
)
def test_kafka_steps_for_literal_and_prefixed(acls, expected) -> None:
    assert by_type(acls) == expected
    reference = ReferenceAuthorizer({SUPER})
    reference.load(acls)
    assert reference.kafka_authorize_by_resource_type(ALICE, HOST, O.WRITE, TOPIC) == expected


def test_hardcode_brings_in_the_default_super_users_and_implication() -> None:
    assert by_type([], allow_everyone=True) == ALLOWED
    assert by_type([deny("hard", PREFIXED)], allow_everyone=True) == DENIED  # Kafka's answer
    assert by_type([], principal=SUPER) == ALLOWED
    assert by_type([make_acl("*", operation=O.READ)], O.DESCRIBE) == ALLOWED
    assert by_type([make_acl("foo", operation=O.READ)], O.DESCRIBE) == DENIED


@pytest.mark.parametrize(
    ("acls", "expected"),
    [
        ([make_acl("??-accounts-*", GLOB, operation=O.WRITE)], ALLOWED),
        ([make_acl("*", GLOB, operation=O.WRITE)], ALLOWED),
        ([make_acl("a*", GLOB, operation=O.WRITE), deny("a*", GLOB)], DENIED),
        ([make_acl("a?", GLOB, operation=O.WRITE), deny("a", PREFIXED)], DENIED),
        ([make_acl("a*", GLOB, operation=O.WRITE), deny("**", GLOB)], DENIED),
        ([make_acl("a*", GLOB, operation=O.WRITE), deny("a"), deny("a?*", GLOB)], DENIED),
        ([make_acl("a*", GLOB, operation=O.WRITE), deny("a"), deny("a?", GLOB)], ALLOWED),
        ([make_acl("ab", operation=O.WRITE), deny("a?", GLOB)], DENIED),
        ([make_acl("a", PREFIXED, operation=O.WRITE), deny("a?", GLOB)], ALLOWED),
        ([make_acl("a", PREFIXED, operation=O.WRITE), deny("a", GLOB), deny("a?*", GLOB)], DENIED),
        ([make_acl("*", operation=O.WRITE), deny("?*", GLOB)], ALLOWED),  # the empty name
        ([make_acl("x\\*", GLOB, operation=O.WRITE), deny("x*")], DENIED),
    ],
)
def test_glob_extension(acls, expected) -> None:
    assert by_type(acls) == expected


def test_arguments_and_the_ready_gate() -> None:
    authorizer = Authorizer({SUPER})
    assert authorizer.authorize_by_resource_type(SUPER, HOST, O.WRITE, TOPIC) == ALLOWED
    with pytest.raises(AuthorizerNotReadyError):
        authorizer.authorize_by_resource_type(ALICE, HOST, O.WRITE, TOPIC)
    authorizer.complete_initial_load()
    for operation, resource_type in [
        (O.ANY, TOPIC),
        (O.UNKNOWN, TOPIC),
        (O.WRITE, ResourceType.ANY),
        (O.WRITE, ResourceType.UNKNOWN),
    ]:
        with pytest.raises(ValueError, match="known resource type and operation"):
            authorizer.authorize_by_resource_type(ALICE, HOST, operation, resource_type)


# Mostly without the super user and the default, which would answer at "hardcode" already.
by_type_requests = st.tuples(
    st.sampled_from([p for p in REQUEST_PRINCIPALS if p != SUPER] * 5 + [SUPER]),
    st.sampled_from(REQUEST_HOSTS),
    operations,
    types,
)
allow_everyone = st.sampled_from((False, False, False, True))


@st.composite
def by_type_scenarios(draw: st.DrawFn, glob: bool) -> tuple[list, list[tuple]]:
    """An ACL set and by-type requests, half of them aimed at one of its ACLs."""
    acls = draw(acl_sets(glob=glob))
    aimed = st.lists(aimed_requests(acls).map(lambda r: r[:4]), max_size=4)
    asked = draw(st.lists(by_type_requests, min_size=1, max_size=4)) + draw(aimed)
    return acls, asked


@PROPERTY
@given(by_type_scenarios(glob=False), allow_everyone)
def test_literal_and_prefixed_sets_answer_exactly_as_kafka(scenario, allow_everyone) -> None:
    acls, asked = scenario
    trie = Authorizer({SUPER}, allow_everyone)
    trie.load(acls)
    reference = ReferenceAuthorizer({SUPER}, allow_everyone)
    reference.load(acls)
    for request in asked:
        want = reference.kafka_authorize_by_resource_type(*request)
        assert trie.authorize_by_resource_type(*request) == want, request


@PROPERTY
@given(by_type_scenarios(glob=True), allow_everyone)
def test_allowed_always_comes_with_a_name_that_is_allowed(scenario, allow_everyone) -> None:
    acls, asked = scenario
    trie = Authorizer({SUPER}, allow_everyone)
    trie.load(acls)
    reference = ReferenceAuthorizer({SUPER}, allow_everyone)
    reference.load(acls)
    for principal, host, operation, resource_type in asked:
        name = trie.allowed_name(principal, host, operation, resource_type)
        decision = trie.authorize_by_resource_type(principal, host, operation, resource_type)
        assert (decision == ALLOWED) == (name is not None)
        if name is not None:
            assert reference.authorize(principal, host, operation, resource_type, name) == ALLOWED
        kept = [
            a
            for a in acls
            if a.resource_type == resource_type
            and principal_matches(a, principal)
            and host_matches(a, host)
            and a.operation in (operation, O.ALL)
        ]
        if any(a.permission_type == AclPermissionType.ALLOW for a in kept) and all(
            a.permission_type == AclPermissionType.ALLOW for a in kept
        ):
            assert decision == ALLOWED  # an ALLOW that no DENY opposes is always found
