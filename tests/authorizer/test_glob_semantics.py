"""GLOB ACLs (KIP-1042, DESIGN.md §3): names, principals, hosts, specificity, pathological
patterns; on both the trie authorizer and the naive reference where it applies."""

from __future__ import annotations

import time
from unittest import mock

import pytest

from aclog.authorizer import Authorizer, Decision, Glob, compile_glob, skipped_characters
from aclog.authorizer.invariants import check_index
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from tests.authorizer.strategies import make_acl

O = AclOperation  # noqa: E741
GLOB = PatternType.GLOB
ALLOWED, DENIED = Decision.ALLOWED, Decision.DENIED
DENY = AclPermissionType.DENY
TOPIC = ResourceType.TOPIC
ALICE = "User:alice"
HOST = "10.0.0.1"

KIP_TOPICS = (
    "us-accounts-payable",
    "us-accounts-receivable",
    "uk-accounts-payable",
    "uk-accounts-receivable",
    "eu-accounts-payable",
    "eu-accounts-receivable",
)


def ask(authorizer, name, operation=O.WRITE, principal=ALICE, host=HOST):
    return authorizer.authorize(principal, host, operation, TOPIC, name)


def test_kip_1042_example_one_glob_covers_six_topics(make) -> None:
    authorizer = make([make_acl("??-accounts-*", GLOB, operation=O.WRITE)])
    for topic in KIP_TOPICS:
        assert ask(authorizer, topic) == ALLOWED, topic
        assert ask(authorizer, topic, O.DESCRIBE) == ALLOWED, topic
    for topic in ("usa-accounts-x", "us-account-x", "us-accounts", "u-accounts-x"):
        assert ask(authorizer, topic) == DENIED, topic


def test_glob_operators_escape_and_case(make) -> None:
    authorizer = make(
        [
            make_acl("a\\*b", GLOB),
            make_acl("*.dlq", GLOB),
            make_acl("t?.audit.??", GLOB),
        ]
    )
    assert ask(authorizer, "a*b", O.READ) == ALLOWED
    assert ask(authorizer, "axb", O.READ) == DENIED
    assert ask(authorizer, "orders.dlq", O.READ) == ALLOWED
    assert ask(authorizer, ".dlq", O.READ) == ALLOWED
    assert ask(authorizer, "orders.DLQ", O.READ) == DENIED
    assert ask(authorizer, "t1.audit.xy", O.READ) == ALLOWED
    assert ask(authorizer, "t1.audit.xyz", O.READ) == DENIED


def test_glob_principals_match_the_whole_type_and_name(make) -> None:
    authorizer = make(
        [
            make_acl("svc-*", GLOB, principal="User:svc-*"),
            make_acl("any-*", GLOB, principal="User:*"),
            make_acl("lit", GLOB, principal="User:\\*"),
        ]
    )
    assert ask(authorizer, "svc-1", O.READ, "User:svc-payments") == ALLOWED
    assert ask(authorizer, "svc-1", O.READ, "Group:svc-payments") == DENIED
    assert ask(authorizer, "svc-1", O.READ, "User:svc") == DENIED
    # "User:*" keeps Kafka's meaning in a GLOB ACL: every principal of any type.
    assert ask(authorizer, "any-1", O.READ, "Group:devs") == ALLOWED
    # An escaped star is the principal literally named "*", not the wildcard.
    assert ask(authorizer, "lit", O.READ, "User:*") == ALLOWED
    assert ask(authorizer, "lit", O.READ, ALICE) == DENIED


def test_glob_hosts_match_the_canonical_address(make) -> None:
    authorizer = make(
        [
            make_acl("v4", GLOB, host="10.0.0.*"),
            make_acl("v6", GLOB, host="fe80::*"),
            make_acl("exact", GLOB, host="0:0:0:0:0:0:0:1"),
            make_acl("literal", PatternType.LITERAL, host="10.0.0.*"),
        ]
    )
    assert ask(authorizer, "v4", O.READ, host="10.0.0.7") == ALLOWED
    assert ask(authorizer, "v4", O.READ, host="10.0.1.7") == DENIED
    assert ask(authorizer, "v6", O.READ, host="FE80:0:0:0:0:0:0:1") == ALLOWED
    assert ask(authorizer, "exact", O.READ, host="::1") == ALLOWED
    assert ask(authorizer, "literal", O.READ, host="10.0.0.7") == DENIED


def test_a_glob_deny_beats_a_literal_allow(make) -> None:
    authorizer = make(
        [
            make_acl("us-accounts-payable", operation=O.WRITE),
            make_acl("*-payable", GLOB, principal="User:*", operation=O.WRITE, permission=DENY),
        ]
    )
    assert ask(authorizer, "us-accounts-payable") == DENIED
    assert ask(authorizer, "us-accounts-receivable") == DENIED  # an ACL exists: no default


def test_explain_orders_by_fewest_skipped_characters(make) -> None:
    name = "us-accounts-payable"
    acls = [
        make_acl("*", operation=O.WRITE),
        make_acl("us-", PatternType.PREFIXED, operation=O.WRITE),
        make_acl("??-accounts-*", GLOB, operation=O.WRITE),
        make_acl("us-accounts-p*", GLOB, operation=O.WRITE),
        make_acl(name, operation=O.WRITE),
    ]
    explanation = make(acls).explain(ALICE, HOST, O.WRITE, TOPIC, name)
    assert explanation.decision == ALLOWED
    assert explanation.deciding_acl == acls[4]
    assert explanation.matching_acls == [acls[4], acls[3], acls[2], acls[1], acls[0]]
    assert [skipped_characters(a, name) for a in explanation.matching_acls] == [0, 6, 9, 16, 19]


def test_explain_picks_the_most_specific_deny(make) -> None:
    name = "eu-accounts-payable"
    acls = [
        make_acl(name, operation=O.WRITE),
        make_acl("*", principal="User:*", operation=O.WRITE, permission=DENY),
        make_acl("eu-*", GLOB, principal="User:*", operation=O.ALL, permission=DENY),
    ]
    explanation = make(acls).explain(ALICE, HOST, O.WRITE, TOPIC, name)
    assert explanation.decision == DENIED
    assert explanation.deciding_acl == acls[2]


def test_authorized_operations_with_globs(make) -> None:
    authorizer = make(
        [
            make_acl("??-accounts-*", GLOB, operation=O.WRITE),
            make_acl("*-payable", GLOB, operation=O.ALTER_CONFIGS),
            make_acl("*", principal="User:*", operation=O.DESCRIBE_CONFIGS, permission=DENY),
        ]
    )
    ops = authorizer.authorized_operations(ALICE, HOST, TOPIC, "us-accounts-payable")
    assert ops == {O.WRITE, O.DESCRIBE, O.ALTER_CONFIGS}


def test_pathological_glob_on_long_names_is_fast() -> None:
    authorizer = Authorizer()
    authorizer.load(
        [
            make_acl("*a*a*a*b", GLOB),
            make_acl("*a*a*a*a*a*a*a*a*a*c", GLOB, permission=DENY),
        ]
    )
    near_misses = ["a" * 10_000, "a" * 9_999 + "c", "ab" * 5_000 + "x"]
    started = time.perf_counter()
    for _ in range(20):
        for name in near_misses:
            assert ask(authorizer, name, O.READ) == DENIED
        assert ask(authorizer, "a" * 10_000 + "b", O.READ) == ALLOWED
    # Backtracking would take astronomically long; linear-ish matching takes milliseconds.
    assert time.perf_counter() - started < 20


@pytest.mark.parametrize("pattern", ["", "a\\"])
def test_an_invalid_glob_pattern_cannot_be_loaded(pattern) -> None:
    authorizer = Authorizer()
    with pytest.raises(ValueError, match="GLOB pattern"):
        authorizer.load([make_acl(pattern, GLOB)])
    assert not authorizer.is_ready


@pytest.mark.parametrize(
    ("pattern", "prefix", "suffix", "required"),
    [
        ("*.dlq", "", ".dlq", ".dlq"),
        ("t0001.*.dlq", "t0001.", ".dlq", ".dlq"),
        ("t*.audit.??", "t", "", ".audit."),
        ("*a?bc", "", "bc", "bc"),
        ("*\\*x", "", "*x", "*x"),
        ("a\\?b", "a?b", "a?b", "a?b"),
        ("*a*", "", "", "a"),
        ("?*", "", "", ""),
    ],
)
def test_a_glob_knows_its_literal_prefix_suffix_and_required_text(
    pattern, prefix, suffix, required
) -> None:
    glob = compile_glob(pattern)
    assert (glob.literal_prefix, glob.literal_suffix, glob.required) == (prefix, suffix, required)


def test_leading_wildcard_globs_are_filed_by_suffix_and_only_candidates_are_tested() -> None:
    suffixed = [make_acl(f"*.c{i}.dlq", GLOB) for i in range(300)]
    others = [make_acl("*a*", GLOB), make_acl("?*", GLOB, permission=DENY, principal="User:x")]
    authorizer = Authorizer()
    authorizer.load([*suffixed, *others, make_acl("orders.", PatternType.PREFIXED)])
    check_index(authorizer.index)
    names = authorizer.index.names(TOPIC)
    assert names.suffixes.lengths == (len(".c0.dlq"), len(".c10.dlq"), len(".c100.dlq"))
    assert [g.pattern for g, _ in names.rest] == ["*a*", "?*"]
    tested: list[str] = []
    original = Glob.matches

    def counting(glob: Glob, name: str) -> bool:
        tested.append(glob.pattern)
        return original(glob, name)

    with mock.patch.object(Glob, "matches", counting):
        assert ask(authorizer, "orders.c7.dlq", O.READ) == ALLOWED
        # Only the GLOB filed under a suffix of the name, and the two without prefix or suffix.
        assert "*.c7.dlq" in tested and set(tested) <= {"*.c7.dlq", "*a*", "?*"}
        tested.clear()
        assert ask(authorizer, "orders.c7.dlqx", O.READ) == ALLOWED  # by the PREFIXED ACL
        assert set(tested) <= {"*a*", "?*"}
    assert ask(authorizer, "x.c7.dlq", O.READ) == ALLOWED
    assert ask(authorizer, "x.c7.dlq", O.READ, principal="User:x") == DENIED
    assert ask(authorizer, "c7.dlq", O.READ) == DENIED  # "*.c7.dlq" needs the dot; "?*" is DENY
    authorizer.remove(suffixed[7].id)
    check_index(authorizer.index)
    assert ask(authorizer, "xyz.c7.dlq", O.READ) == DENIED
    explanation = authorizer.explain(ALICE, HOST, O.READ, TOPIC, "ba.c8.dlq")
    assert explanation.matching_acls == [suffixed[8], others[0]]
