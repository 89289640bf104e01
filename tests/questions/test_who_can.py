"""``who_can``: every principal allowed an operation on a resource, by host, with the deciding
ACL, and the principals a DENY takes out; checked against the naive reference authorizer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.authorizer import Authorizer, Decision
from aclog.questions.who_can import WhoCan, who_can
from aclog.records import AclOperation, AclPermissionType, PatternType, ResourceType
from tests.authorizer.reference import ReferenceAuthorizer
from tests.authorizer.strategies import (
    REQUEST_HOSTS,
    SUPER,
    acl_sets,
    make_acl,
    operations,
    request_names,
    types,
)
from tests.questions.answers import decision_of, expected, hosts_to_check, pick

READ, WRITE, ALL = AclOperation.READ, AclOperation.WRITE, AclOperation.ALL
TOPIC = ResourceType.TOPIC
DENY = AclPermissionType.DENY
NOBODY = "User:nobody-named"


def _authorizer(acls, allow_everyone: bool = False) -> Authorizer:
    authorizer = Authorizer({SUPER}, allow_everyone)
    authorizer.load(acls)
    return authorizer


def _rows(result: WhoCan, principal: str) -> list:
    """The answers for ``principal``: its own rows when listed, else "any principal"'s."""
    rows = result.allowed + result.denied
    mine = [r.answer for r in rows if r.principal == principal and r.kind != "any"]
    return mine or [r.answer for r in rows if r.kind == "any"]


def _table(result: WhoCan) -> set[tuple[str, str, str]]:
    return {(r.principal, r.host, r.answer.decision.value) for r in result.allowed + result.denied}


def test_any_principal_with_denied_exceptions_and_host_conditions() -> None:
    grant = make_acl("ord", PatternType.PREFIXED, "User:*")
    bob = make_acl("orders", principal="User:bob", permission=DENY)
    carol = make_acl("orders", principal="User:carol", host="10.0.0.5", permission=DENY)
    dave = make_acl("orders", principal="User:dave", host="10.0.0.1", operation=WRITE)
    result = who_can(_authorizer([grant, bob, carol, dave]), READ, TOPIC, "orders")
    assert _table(result) == {
        (SUPER, "*", "ALLOWED"),
        ("User:*", "*", "ALLOWED"),
        ("User:bob", "*", "DENIED"),
        ("User:carol", "10.0.0.5", "DENIED"),
        ("User:carol", "*", "ALLOWED"),  # from any other host
    }
    assert result.any_principal_allowed
    anyone = next(r for r in result.allowed if r.kind == "any")
    assert anyone.answer.deciding_acl == grant
    assert result.to_dict()["allowed"][1] == {
        "principal": "User:*",
        "principal_kind": "any",
        **anyone.answer.to_dict(),
    }


def test_host_restricted_grant_is_reported_with_its_host() -> None:
    acls = [make_acl("pay", principal="User:alice", host="10.0.0.1", operation=WRITE)]
    result = who_can(_authorizer(acls), WRITE, TOPIC, "pay")
    assert _table(result) == {(SUPER, "*", "ALLOWED"), ("User:alice", "10.0.0.1", "ALLOWED")}
    from_elsewhere = who_can(_authorizer(acls), WRITE, TOPIC, "pay", host="10.0.0.2")
    assert _table(from_elsewhere) == {(SUPER, "10.0.0.2", "ALLOWED")}


def test_implied_operations_and_glob_principals() -> None:
    acls = [
        make_acl("pay", principal="User:alice", operation=WRITE),
        make_acl("p*", PatternType.GLOB, principal="User:svc-*", operation=READ),
    ]
    result = who_can(_authorizer(acls), AclOperation.DESCRIBE, TOPIC, "pay")
    assert _table(result) == {
        (SUPER, "*", "ALLOWED"),
        ("User:alice", "*", "ALLOWED"),
        ("User:svc-*", "*", "ALLOWED"),
    }
    assert {r.kind for r in result.allowed} == {"super_user", "principal", "glob"}


def test_default_allows_everyone_only_without_any_acl() -> None:
    empty = who_can(_authorizer([], allow_everyone=True), READ, TOPIC, "t")
    assert _table(empty) == {(SUPER, "*", "ALLOWED"), ("User:*", "*", "ALLOWED")}
    assert "allow.everyone.if.no.acl.found=true" in empty.allowed[1].answer.explanation.reason
    other = [make_acl("t", principal="User:alice", operation=WRITE)]
    assert _table(who_can(_authorizer(other, True), READ, TOPIC, "t")) == {(SUPER, "*", "ALLOWED")}


@settings(max_examples=200, deadline=None)
@given(
    acl_sets(),
    request_names,
    operations,
    types,
    st.booleans(),
    st.none() | st.sampled_from(REQUEST_HOSTS),
)
def test_who_can_agrees_with_the_reference(acls, name, op, rt, allow_everyone, asked) -> None:
    """Every named principal (and one no ACL names), from every named host and another one:
    who-can's row says ALLOWED exactly when the reference allows, with the same deciding
    ACL; a principal it does not list answers as "any principal" does."""
    reference = ReferenceAuthorizer({SUPER}, allow_everyone)
    reference.load(acls)
    result = who_can(_authorizer(acls, allow_everyone), op, rt, name, asked)
    on_resource = reference.on_resource(rt, name)
    principals = {a.principal for a in on_resource} - {"User:*"} | {NOBODY, SUPER}
    for principal in sorted(principals):
        rows = _rows(result, principal)
        for host in hosts_to_check(on_resource, asked):
            want = expected(reference.explain(principal, host, op, rt, name))
            assert decision_of(pick(rows, host)) == want, (principal, host)


def test_allowed_rows_are_allowed_by_explain() -> None:
    acls = [
        make_acl("a", PatternType.PREFIXED, "User:*", "10.0.0.1", ALL),
        make_acl("ab", principal="User:bob", permission=DENY, operation=READ),
    ]
    authorizer = _authorizer(acls)
    result = who_can(authorizer, READ, TOPIC, "ab")
    for row in result.allowed:
        principal = "User:x" if row.kind == "any" else row.principal
        host = "10.0.0.9" if row.host == "*" else row.host
        assert authorizer.authorize(principal, host, READ, TOPIC, "ab") == Decision.ALLOWED


def test_a_principal_literally_named_user_star_is_not_any_principal() -> None:
    escaped = make_acl("t", PatternType.GLOB, principal="User:\\*")
    result = who_can(_authorizer([escaped]), READ, TOPIC, "t")
    assert _table(result) == {(SUPER, "*", "ALLOWED"), ("User:*", "*", "ALLOWED")}
    (row,) = [r for r in result.allowed if r.principal == "User:*"]
    assert row.kind == "principal"  # the caller literally named User:*, not any principal
    assert not result.any_principal_allowed
