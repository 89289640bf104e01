"""Kafka's decision rules (reference/kafka-acl-spec.md §6, §7, §9) and aclog's deliberate fixes
(DESIGN.md §3), on both the trie authorizer and the naive reference."""

from __future__ import annotations

import pytest

from aclog.authorizer import (
    Authorizer,
    AuthorizerNotReadyError,
    Decision,
    operations_bitfield,
    operations_from_bitfield,
    parse_allow_everyone,
    parse_super_users,
)
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from tests.authorizer.strategies import make_acl

O = AclOperation  # noqa: E741
ALLOWED, DENIED = Decision.ALLOWED, Decision.DENIED
DENY = AclPermissionType.DENY
TOPIC = ResourceType.TOPIC
ALICE = "User:alice"
HOST = "10.0.0.1"


def ask(authorizer, operation=O.READ, name="foo", principal=ALICE, host=HOST, rtype=TOPIC):
    return authorizer.authorize(principal, host, operation, rtype, name)


@pytest.mark.parametrize(
    ("granted", "requested", "expected"),
    [
        (O.READ, O.DESCRIBE, ALLOWED),
        (O.WRITE, O.DESCRIBE, ALLOWED),
        (O.DELETE, O.DESCRIBE, ALLOWED),
        (O.ALTER, O.DESCRIBE, ALLOWED),
        (O.ALTER_CONFIGS, O.DESCRIBE_CONFIGS, ALLOWED),
        (O.DESCRIBE, O.READ, DENIED),
        (O.CREATE, O.DESCRIBE, DENIED),
        (O.ALTER, O.DESCRIBE_CONFIGS, DENIED),
        (O.ALTER_CONFIGS, O.DESCRIBE, DENIED),
        (O.READ, O.ALL, DENIED),
        (O.ALL, O.ALL, ALLOWED),
        (O.ALL, O.IDEMPOTENT_WRITE, ALLOWED),
    ],
)
def test_allow_implication(make, granted, requested, expected) -> None:
    authorizer = make([make_acl("foo", operation=granted)])
    assert ask(authorizer, requested) == expected


def test_deny_never_implies_but_deny_all_denies_everything(make) -> None:
    acls = [
        make_acl("foo", operation=O.DESCRIBE),
        make_acl("foo", operation=O.DESCRIBE_CONFIGS),
        make_acl("foo", operation=O.READ, permission=DENY),
        make_acl("foo", operation=O.ALTER_CONFIGS, permission=DENY),
    ]
    authorizer = make(acls)
    assert ask(authorizer, O.DESCRIBE) == ALLOWED
    assert ask(authorizer, O.DESCRIBE_CONFIGS) == ALLOWED
    assert ask(authorizer, O.READ) == DENIED
    deny_all = make([*acls, make_acl("foo", operation=O.ALL, permission=DENY)])
    assert ask(deny_all, O.DESCRIBE) == DENIED
    assert ask(deny_all, O.ALL) == DENIED
    # A DENY READ does not deny a request for ALL; only an ALL ACL grants it, though.
    assert ask(make([make_acl("foo", operation=O.ALL), acls[2]]), O.ALL) == ALLOWED


def test_wildcard_literal_and_prefixed_star(make) -> None:
    authorizer = make([make_acl("*"), make_acl("*", PatternType.PREFIXED, operation=O.WRITE)])
    for name in ("foo", "", "*", "bar-1"):
        assert ask(authorizer, O.READ, name) == ALLOWED
    assert ask(authorizer, O.WRITE, "foo") == DENIED
    assert ask(authorizer, O.WRITE, "*foo") == ALLOWED
    assert ask(authorizer, O.WRITE, "*") == ALLOWED


def test_prefixed_applies_to_its_prefix_and_longer_names_only(make) -> None:
    authorizer = make([make_acl("foo", PatternType.PREFIXED), make_acl("bar", operation=O.WRITE)])
    assert ask(authorizer, O.READ, "foo") == ALLOWED
    assert ask(authorizer, O.READ, "foobar") == ALLOWED
    assert ask(authorizer, O.READ, "fo") == DENIED
    assert ask(authorizer, O.WRITE, "bar") == ALLOWED
    assert ask(authorizer, O.WRITE, "barn") == DENIED


def test_default_applies_only_when_no_acl_is_on_the_resource(make) -> None:
    other = [
        make_acl("foo", principal="User:bob"),
        make_acl("bar", host="10.9.9.9"),
        make_acl("baz", operation=O.WRITE),
    ]
    open_ = make(other, allow_everyone=True)
    closed = make(other, allow_everyone=False)
    assert ask(open_, O.READ, "unknown") == ALLOWED
    assert ask(closed, O.READ, "unknown") == DENIED
    for name in ("foo", "bar", "baz"):
        assert ask(open_, O.READ, name) == DENIED  # an ACL for someone else is enough
    assert ask(open_, O.READ, "other", rtype=ResourceType.GROUP) == ALLOWED


def test_deny_wins_over_a_more_specific_allow(make) -> None:
    authorizer = make(
        [
            make_acl("foo"),
            make_acl("*", principal="User:*", permission=DENY),
        ]
    )
    assert ask(authorizer) == DENIED
    explanation = authorizer.explain(ALICE, HOST, O.READ, TOPIC, "foo")
    assert explanation.deciding_acl.resource_name == "*"
    assert [a.resource_name for a in explanation.matching_acls] == ["foo", "*"]


def test_super_user_beats_deny_and_the_ready_gate(make) -> None:
    deny = make_acl("foo", principal="User:*", operation=O.ALL, permission=DENY)
    authorizer = make([deny])
    assert ask(authorizer, principal="User:admin") == ALLOWED
    assert ask(authorizer) == DENIED
    loading = make(ready=False)
    assert ask(loading, principal="User:admin") == ALLOWED
    with pytest.raises(AuthorizerNotReadyError):
        ask(loading)
    with pytest.raises(AuthorizerNotReadyError):
        loading.explain(ALICE, HOST, O.READ, TOPIC, "foo")
    with pytest.raises(AuthorizerNotReadyError):
        loading.authorized_operations(ALICE, HOST, TOPIC, "foo")
    loading.complete_initial_load()
    assert ask(loading) == DENIED


def test_wildcard_principal_matches_every_type_but_group_star_is_not_a_wildcard(make) -> None:
    authorizer = make([make_acl("foo", principal="User:*"), make_acl("bar", principal="Group:*")])
    assert ask(authorizer, principal="Group:devs") == ALLOWED
    assert ask(authorizer, name="bar", principal="Group:devs") == DENIED
    assert ask(authorizer, name="bar", principal="Group:*") == ALLOWED


def test_hosts_compare_exactly_except_for_ip_parsing(make) -> None:
    authorizer = make(
        [
            make_acl("v6", host="::1"),
            make_acl("v6long", host="0:0:0:0:0:0:0:1"),
            make_acl("pattern", host="10.0.0.*"),
            make_acl("name", host="localhost"),
        ]
    )
    for name in ("v6", "v6long"):
        assert ask(authorizer, name=name, host="0:0:0:0:0:0:0:1") == ALLOWED
        assert ask(authorizer, name=name, host="::1") == ALLOWED
        assert ask(authorizer, name=name, host="::2") == DENIED
    assert ask(authorizer, name="pattern", host="10.0.0.7") == DENIED
    assert ask(authorizer, name="name", host="localhost") == ALLOWED
    assert ask(authorizer, name="name", host="127.0.0.1") == DENIED


def test_literal_wildcard_applies_to_names_starting_with_a_star(make) -> None:
    authorizer = make([make_acl("*")])
    for name in ("*abc", "**", "*"):
        assert ask(authorizer, name=name) == ALLOWED


def test_a_session_principal_named_user_star_is_handled_normally(make) -> None:
    authorizer = make([make_acl("foo", principal="User:*"), make_acl("bar")])
    assert ask(authorizer, principal="User:*") == ALLOWED
    assert ask(authorizer, name="bar", principal="User:*") == DENIED


def test_kip_430_read_reports_read_and_describe(make) -> None:
    authorizer = make([make_acl("foo")])
    operations = authorizer.authorized_operations(ALICE, HOST, TOPIC, "foo")
    assert operations == {O.READ, O.DESCRIBE}
    assert operations_bitfield(operations) == 264
    assert operations_from_bitfield(264) == operations
    assert authorizer.authorized_operations(ALICE, HOST, TOPIC, "bar") == frozenset()


def test_kip_430_super_users_and_default_get_every_supported_operation(make) -> None:
    authorizer = make([], allow_everyone=True)
    group = {O.READ, O.DESCRIBE, O.DELETE, O.DESCRIBE_CONFIGS, O.ALTER_CONFIGS}
    assert authorizer.authorized_operations(ALICE, HOST, ResourceType.GROUP, "g") == group
    assert authorizer.authorized_operations("User:admin", HOST, ResourceType.USER, "u") == {
        O.CREATE_TOKENS,
        O.DESCRIBE_TOKENS,
    }


def test_super_users_parse_like_kafka() -> None:
    assert parse_super_users(" User:a ;User:b;; ") == {"User:a", "User:b"}
    assert parse_super_users("") == frozenset()
    assert parse_super_users(None) == frozenset()
    with pytest.raises(ValueError, match="'alice' is not a principal"):
        parse_super_users("User:a;alice")


def test_user_star_as_super_user_only_covers_the_principal_literally_named_star(make) -> None:
    authorizer = make([], super_users=parse_super_users("User:*"))
    assert ask(authorizer, principal="User:*") == ALLOWED
    assert ask(authorizer, principal=ALICE) == DENIED


def test_allow_everyone_parses_like_java_parse_boolean() -> None:
    assert parse_allow_everyone(" TRUE ")
    assert not parse_allow_everyone("yes")
    assert not parse_allow_everyone(None)


def test_explain_reasons() -> None:
    authorizer = Authorizer({"User:admin"}, allow_everyone_if_no_acl_found=True)
    authorizer.load([make_acl("foo", principal="User:bob")])
    super_user = authorizer.explain("User:admin", HOST, O.READ, TOPIC, "foo")
    assert (super_user.decision, super_user.reason) == (ALLOWED, "User:admin is a super user")
    nobody = authorizer.explain(ALICE, HOST, O.READ, TOPIC, "bar")
    assert nobody.decision == ALLOWED
    assert nobody.reason == "no ACL on the resource; allow.everyone.if.no.acl.found=true"
    other = authorizer.explain(ALICE, HOST, O.READ, TOPIC, "foo")
    assert other.decision == DENIED
    assert (
        other.reason == "ACLs exist on the resource but none allows this principal/host/operation"
    )
    allowed = authorizer.explain("User:bob", HOST, O.DESCRIBE, TOPIC, "foo")
    assert allowed.reason.startswith(
        "allowed by ALLOW rule READ on TOPIC LITERAL 'foo' for User:bob"
    )
    closed = Authorizer()
    closed.load([])
    assert closed.explain(ALICE, HOST, O.READ, TOPIC, "x").reason == (
        "no ACL on the resource; allow.everyone.if.no.acl.found=false"
    )
    deny = make_acl("f", PatternType.PREFIXED, principal="User:*", permission=DENY)
    closed.add(deny)
    denied = closed.explain(ALICE, HOST, O.READ, TOPIC, "foo")
    assert denied.deciding_acl == deny
    assert denied.reason.startswith("denied by DENY rule READ on TOPIC PREFIXED 'f' for User:*")


@pytest.mark.parametrize(
    ("operation", "resource_type"),
    [(O.ANY, TOPIC), (O.READ, ResourceType.ANY)],
)
def test_requests_for_any_are_rejected(operation, resource_type) -> None:
    authorizer = Authorizer()
    authorizer.load([])
    with pytest.raises(ValueError, match="ANY is only for filters"):
        authorizer.authorize(ALICE, HOST, operation, resource_type, "foo")


@pytest.mark.parametrize("permission", [AclPermissionType.ANY, AclPermissionType.UNKNOWN])
def test_an_acl_that_neither_allows_nor_denies_is_on_the_resource_but_never_matches(
    make, permission
) -> None:
    """Such records cannot be created (the controller rejects them); if one is ever loaded it
    keeps the default away but grants nothing, as the spec's two checks (DENY, ALLOW) imply."""
    odd = make_acl("foo", principal="User:*", operation=O.ALL, permission=permission)
    authorizer = make([odd], allow_everyone=True)
    assert ask(authorizer) == DENIED
    assert authorizer.explain(ALICE, HOST, O.READ, TOPIC, "foo").matching_acls == []
    assert authorizer.authorized_operations(ALICE, HOST, TOPIC, "foo") == frozenset()
    assert ask(authorizer, name="bar") == ALLOWED
