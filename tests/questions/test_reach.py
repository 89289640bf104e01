"""``reach``: what a principal can reach, per pattern or per inventory name; per name it must
equal explain, per pattern it must neither miss nor invent access for LITERAL/PREFIXED sets."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.authorizer import Authorizer, Decision, pattern_applies, supported_operations
from aclog.questions.reach import reach
from aclog.questions.reachable import Reach, Reachable
from aclog.records import AclOperation, AclPermissionType, PatternType, ResourceType
from tests.authorizer.reference import ReferenceAuthorizer
from tests.authorizer.strategies import (
    REQUEST_HOSTS,
    REQUEST_PRINCIPALS,
    SUPER,
    acl_sets,
    make_acl,
    request_names,
    types,
)
from tests.questions.answers import OTHER_HOST, decision_of, expected, hosts_to_check, pick

O = AclOperation  # noqa: E741
TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP
DENY = AclPermissionType.DENY
PREFIXED, GLOB = PatternType.PREFIXED, PatternType.GLOB


def _authorizer(acls, allow_everyone: bool = False) -> Authorizer:
    authorizer = Authorizer({SUPER}, allow_everyone)
    authorizer.load(acls)
    return authorizer


def _entry(result: Reach, description: str) -> Reachable:
    (entry,) = [r for r in result.resources if r.description == description]
    return entry


def _ops(entry: Reachable) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for row in entry.operations:
        out.setdefault(row.operation.name, []).append((row.answer.host, row.answer.decision.value))
    return out


def _exclusions(entry: Reachable) -> dict[str, list[str]]:
    return {e.to_dict()["description"]: [op.name for op in e.operations] for e in entry.exclusions}


def test_a_prefixed_grant_with_narrower_and_broader_denies() -> None:
    acls = [
        make_acl("orders.", PREFIXED, "User:alice"),
        make_acl("orders.secret", principal="User:alice", permission=DENY),
        make_acl("orders.eu", PREFIXED, "User:*", operation=O.ALL, permission=DENY),
        make_acl("*.tmp", GLOB, "User:alice", permission=DENY),
        make_acl("o", PREFIXED, "User:alice", operation=O.DESCRIBE, permission=DENY),
        make_acl("orders.x", principal="User:bob", permission=DENY),  # someone else's
    ]
    result = reach(_authorizer(acls), "User:alice")
    entry = _entry(result, "every topic starting with 'orders.'")
    assert _ops(entry) == {"READ": [("*", "ALLOWED")], "DESCRIBE": [("*", "DENIED")]}
    assert _exclusions(entry) == {
        "topic 'orders.secret'": ["READ"],
        "every topic starting with 'orders.eu'": ["READ"],
        "every topic matching '*.tmp'": ["READ"],
    }
    assert entry.to_dict()["pattern_type"] == "PREFIXED"


def test_user_star_wildcard_resource_hosts_and_types() -> None:
    acls = [
        make_acl("*", principal="User:*", operation=O.DESCRIBE_CONFIGS),
        make_acl("pay", principal="User:alice", host="10.0.0.1", operation=O.WRITE),
        make_acl("g1", principal="User:alice", resource_type=GROUP),
    ]
    result = reach(_authorizer(acls), "User:alice")
    assert [r.description for r in result.resources] == ["topic 'pay'", "every topic", "group 'g1'"]
    pay = _entry(result, "topic 'pay'")
    assert _ops(pay) == {"WRITE": [("10.0.0.1", "ALLOWED")], "DESCRIBE": [("10.0.0.1", "ALLOWED")]}
    assert _ops(_entry(result, "group 'g1'")) == {
        "READ": [("*", "ALLOWED")],
        "DESCRIBE": [("*", "ALLOWED")],
    }
    only_groups = reach(_authorizer(acls), "User:alice", resource_types=[GROUP])
    assert [r.description for r in only_groups.resources] == ["group 'g1'"]
    elsewhere = reach(_authorizer(acls), "User:alice", host="10.0.0.2")
    assert [r.description for r in elsewhere.resources] == ["every topic", "group 'g1'"]


def test_super_users_and_the_default() -> None:
    result = reach(_authorizer([make_acl("t")], allow_everyone=True), SUPER)
    assert result.super_user and result.resources == []
    assert result.to_dict()["allow_everyone_if_no_acl_found"] is True
    per_name = reach(_authorizer([make_acl("t")]), SUPER, inventory=[(TOPIC, "x")])
    assert set(_ops(per_name.resources[0])) == {op.name for op in supported_operations(TOPIC)}


def test_inventory_answers_per_name() -> None:
    acls = [
        make_acl("orders.", PREFIXED, "User:alice"),
        make_acl("orders.secret", principal="User:alice", permission=DENY),
    ]
    inventory = [(TOPIC, "orders.a"), (TOPIC, "orders.secret"), (TOPIC, "other"), (GROUP, "g")]
    result = reach(_authorizer(acls), "User:alice", inventory=inventory)
    assert [r.description for r in result.resources] == [
        "topic 'orders.a'",
        "topic 'orders.secret'",
    ]
    assert _ops(result.resources[1]) == {"READ": [("*", "DENIED")], "DESCRIBE": [("*", "ALLOWED")]}
    assert result.to_dict()["per_name"] is True


inventories = st.lists(st.tuples(types, request_names), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(
    acl_sets(),
    st.sampled_from(REQUEST_PRINCIPALS),
    st.none() | st.sampled_from(REQUEST_HOSTS),
    inventories,
    st.booleans(),
)
def test_per_name_reach_equals_explain(acls, principal, asked, inventory, allow_everyone) -> None:
    """For every inventory name, supported operation and host: a listed resource's answer is
    explain's decision with explain's deciding ACL (no row: denied for want of an ALLOW); a
    resource is left out only when explain allows nothing on it."""
    reference = ReferenceAuthorizer({SUPER}, allow_everyone)
    reference.load(acls)
    result = reach(_authorizer(acls, allow_everyone), principal, asked, inventory=inventory)
    for rt, name in inventory:
        listed = [r for r in result.resources if (r.resource_type, r.resource_name) == (rt, name)]
        for op in supported_operations(rt):
            rows = [o.answer for r in listed[:1] for o in r.operations if o.operation == op]
            for host in hosts_to_check(reference.on_resource(rt, name), asked):
                want = expected(reference.explain(principal, host, op, rt, name))
                if listed:
                    assert decision_of(pick(rows, host)) == want, (rt, name, op, host)
                else:
                    assert want[0] == Decision.DENIED, (rt, name, op, host)


def _names_of(acl, draw_suffix: str) -> list[str]:
    if acl.pattern_type == PatternType.LITERAL and acl.resource_name != "*":
        return [acl.resource_name]
    stem = acl.resource_name if acl.pattern_type == PREFIXED else ""
    return [stem, stem + draw_suffix, stem + "a" + draw_suffix]


@settings(max_examples=150, deadline=None)
@given(
    acl_sets(glob=False),
    st.sampled_from(REQUEST_PRINCIPALS),
    st.none() | st.sampled_from(REQUEST_HOSTS),
    st.text(alphabet="ab*", max_size=2),
)
def test_per_pattern_reach_misses_and_invents_nothing(acls, principal, asked, suffix) -> None:
    """LITERAL and PREFIXED sets: a name a grant's pattern allows is listed under that pattern
    (complete); an operation listed ALLOWED on a pattern is allowed on each of its names that
    no exclusion names (sound)."""
    reference = ReferenceAuthorizer({SUPER})
    reference.load(acls)
    result = reach(_authorizer(acls), principal, asked)
    if principal == SUPER:
        assert result.super_user
        return
    entries = {(r.resource_type, r.pattern_type, r.resource_name): r for r in result.resources}
    for acl in acls:
        for name in _names_of(acl, suffix):
            _check_complete(reference, entries, acl, principal, asked, name)
    for entry in result.resources:
        names = _names_of(make_acl(entry.resource_name, entry.pattern_type), suffix)
        for name in names:
            _check_sound(reference, entry, principal, name)


def _check_complete(reference, entries, acl, principal, asked, name) -> None:
    rt = acl.resource_type
    for op in supported_operations(rt):
        for host in [asked] if asked else ["10.0.0.1", "::1", OTHER_HOST]:
            got = reference.explain(principal, host, op, rt, name)
            if got.decision == Decision.ALLOWED and acl in got.matching_acls:
                entry = entries[(rt, acl.pattern_type, acl.resource_name)]
                assert op in entry.allowed_operations, (acl, name, op, host)


def _check_sound(reference, entry: Reachable, principal: str, name: str) -> None:
    excluded = {
        op
        for e in entry.exclusions
        if pattern_applies(e.acl.pattern_type, e.acl.resource_name, name)
        for op in e.operations
    }
    for row in entry.operations:
        if row.answer.decision != Decision.ALLOWED or row.operation in excluded:
            continue
        at = row.answer.evaluated_at
        got = reference.explain(principal, at, row.operation, entry.resource_type, name)
        assert got.decision == Decision.ALLOWED, (entry.description, name, row.operation, at)
