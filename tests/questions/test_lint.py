"""ACL hygiene findings: one test per kind, a clean set without findings, and the property that
an ACL reported redundant or never deciding can go without changing any decision."""

from __future__ import annotations

import functools
import random
import time
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings

from aclog.authorizer import pattern_applies
from aclog.questions import lint as lint_module
from aclog.questions.coverage import entry_covers, host_span, principal_span
from aclog.questions.findings import Finding, LintReport, Severity
from aclog.questions.lint import lint_acls
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from tests.authorizer.reference import ReferenceAuthorizer, host_matches, principal_matches
from tests.authorizer.strategies import make_acl, scenarios

O = AclOperation  # noqa: E741
DENY = AclPermissionType.DENY
PREFIXED, GLOB = PatternType.PREFIXED, PatternType.GLOB
CLUSTER, GROUP = ResourceType.CLUSTER, ResourceType.GROUP


def _kinds(findings: list[Finding]) -> list[tuple[str, Severity, str]]:
    return [(f.kind, f.severity, f.acls[0].resource_name) for f in findings]


def test_a_clean_set_has_no_findings() -> None:
    acls = [
        make_acl("orders", principal="User:alice", operation=O.READ),
        make_acl("orders", principal="User:bob", operation=O.WRITE),
        make_acl("orders", principal="User:bob", operation=O.DESCRIBE_CONFIGS),
        make_acl("billing", resource_type=ResourceType.GROUP, principal="User:alice"),
        make_acl("pay.", PREFIXED, "User:ledger", "10.0.0.1", O.ALTER_CONFIGS),
        make_acl(
            "kafka-cluster",
            resource_type=CLUSTER,
            principal="User:bob",
            host="10.0.0.2",
            operation=O.IDEMPOTENT_WRITE,
        ),
    ]
    assert lint_acls(acls) == []
    assert LintReport.of([], len(acls), 0).to_dict()["counts"] == {
        "info": 0,
        "warning": 0,
        "error": 0,
    }


def test_redundant_acls_under_a_broader_pattern_all_or_an_implying_operation() -> None:
    broad = make_acl("orders.", PREFIXED, "User:alice")
    acls = [
        broad,
        make_acl("orders.eu", principal="User:alice"),  # under the prefix
        make_acl("orders.???", GLOB, "User:alice"),  # a GLOB under it too
        make_acl("pay", principal="User:alice", operation=O.ALL),
        make_acl("pay", principal="User:alice", operation=O.WRITE),  # ALL covers it
        make_acl("pay", principal="User:alice", operation=O.DESCRIBE),  # WRITE implies it
        make_acl("orders.x", principal="User:alice", host="10.0.0.1"),  # another host: kept
        make_acl("orders.y", principal="User:bob"),  # another principal: kept
        make_acl("orders.z", principal="User:*"),  # the wildcard is not the same principal
    ]
    found = [f for f in lint_acls(acls) if f.kind == "redundant_acl"]
    assert sorted((f.acls[0].resource_name, f.acls[0].operation.name) for f in found) == [
        ("orders.???", "READ"),
        ("orders.eu", "READ"),
        ("pay", "DESCRIBE"),
        ("pay", "WRITE"),
    ]
    assert all(f.severity == Severity.INFO for f in found)
    eu = next(f for f in found if f.acls[0].resource_name == "orders.eu")
    assert eu.acls[1] == broad and "redundant" in eu.message


def test_of_two_equivalent_acls_only_one_is_redundant() -> None:
    acls = [
        make_acl("*", principal="User:alice", permission=DENY),
        make_acl("*", GLOB, principal="User:alice", permission=DENY),
    ]
    found = [f for f in lint_acls(acls) if f.kind == "redundant_acl"]
    assert len(found) == 1


def test_allows_that_never_decide() -> None:
    overridden = make_acl("orders", principal="User:alice", operation=O.READ)
    half = make_acl("pay", principal="User:alice", operation=O.READ)  # DESCRIBE survives
    both = make_acl("ledger", principal="User:alice", operation=O.READ)
    acls = [
        overridden,
        make_acl("ord", PREFIXED, "User:*", operation=O.ALL, permission=DENY),
        half,
        make_acl("pay", principal="User:alice", operation=O.READ, permission=DENY),
        both,
        make_acl("led*", GLOB, "User:alice", operation=O.READ, permission=DENY),
        make_acl("ledger", principal="User:alice", operation=O.DESCRIBE, permission=DENY),
        make_acl("part", principal="User:alice", host="10.0.0.1", permission=DENY),
        make_acl("part", principal="User:alice"),  # denied from one host only: decides
    ]
    found = [f for f in lint_acls(acls) if f.kind == "allow_never_decides"]
    assert [f.acls[0] for f in found] == [overridden, both]
    assert [len(f.acls) for f in found] == [2, 3]
    assert all(f.severity == Severity.WARNING for f in found)


def test_risky_grants() -> None:
    acls = [
        make_acl("orders", principal="User:*", operation=O.READ),
        make_acl("orders", principal="User:*", host="10.0.0.1", operation=O.DELETE),
        make_acl("*", principal="User:alice", host="10.0.0.1", operation=O.READ),
        make_acl(
            "kafka-cluster",
            resource_type=CLUSTER,
            principal="User:ops",
            operation=O.ALL,
            host="10.0.0.1",
        ),
        make_acl("t", principal="User:ops", host="10.0.0.1", operation=O.ALL),
        make_acl(
            "kafka-cluster",
            resource_type=CLUSTER,
            principal="User:ops",
            operation=O.IDEMPOTENT_WRITE,
        ),
        make_acl("g", principal="User:*", operation=O.ALL, permission=DENY, resource_type=GROUP),
    ]
    found = {
        (f.kind, f.severity, f.acls[0].principal, f.acls[0].operation) for f in lint_acls(acls)
    }
    W, E, I = Severity.WARNING, Severity.ERROR, Severity.INFO  # noqa: E741
    assert found == {
        ("any_principal", W, "User:*", O.READ),
        ("any_principal", E, "User:*", O.DELETE),
        ("wildcard_resource", W, "User:alice", O.READ),
        ("all_operations", E, "User:ops", O.ALL),  # on the cluster
        ("all_operations", W, "User:ops", O.ALL),  # on a topic
        ("any_host_sensitive", I, "User:ops", O.IDEMPOTENT_WRITE),
    }


def test_report_orders_by_severity_and_filters() -> None:
    acls = [
        make_acl("t", principal="User:*", operation=O.DELETE, host="10.0.0.1"),
        make_acl("u", principal="User:*", operation=O.READ),
    ]
    report = LintReport.of(lint_acls(acls), len(acls), 0)
    assert [f.severity for f in report.findings] == [Severity.ERROR, Severity.WARNING]
    assert len(report.at_least(Severity.ERROR)) == 1 and len(report.at_least(Severity.INFO)) == 2
    assert report.to_dict()["findings"][0]["acls"][0]["operation"] == "DELETE"
    assert Severity.parse(" Warning ") is Severity.WARNING


@settings(max_examples=200, deadline=None)
@given(scenarios(max_requests=20))
def test_what_lint_calls_removable_changes_no_decision(scenario) -> None:
    acls, asked = scenario
    removable = {
        f.acls[0].id for f in lint_acls(acls) if f.kind in ("redundant_acl", "allow_never_decides")
    }
    before, after = ReferenceAuthorizer(), ReferenceAuthorizer()
    before.load(acls)
    after.load([a for a in acls if a.id not in removable])
    for request in asked:
        assert before.authorize(*request) == after.authorize(*request), request


@settings(max_examples=300, deadline=None)
@given(scenarios(max_requests=20))
def test_entry_coverage_is_sound(scenario) -> None:
    """When one ACL covers another, every request the inner applies to, the outer applies to."""
    acls, asked = scenario
    pairs = [(o, i) for o in acls for i in acls if o is not i and entry_covers(o, i)]
    for principal, host, _, resource_type, name in asked:
        for outer, inner in pairs:
            if _applies(inner, principal, host, resource_type, name):
                assert _applies(outer, principal, host, resource_type, name), (outer, inner)


def _applies(acl, principal: str, host: str, resource_type, name: str) -> bool:
    return (
        acl.resource_type == resource_type
        and pattern_applies(acl.pattern_type, acl.resource_name, name)
        and principal_matches(acl, principal)
        and host_matches(acl, host)
    )


def _group_key(acl: AccessControlEntryRecord) -> tuple[object, ...]:
    return (acl.resource_type, acl.permission_type, principal_span(acl), host_span(acl))


def _naive_lint(acls: list[AccessControlEntryRecord]) -> list[Finding]:
    """Lint by the definitions, every ACL against every other: what the indexed lint must equal."""
    from aclog.acl import kafka_order
    from aclog.questions.coverage import resource_span, span_covers
    from aclog.questions.lint import _decided
    from aclog.questions.pattern_text import short_acl

    ordered = kafka_order(list(acls))
    found = []
    for position, acl in enumerate(ordered):
        mine, span = _decided(acl), resource_span(acl)
        for index, other in enumerate(ordered):
            same = _group_key(other) == _group_key(acl)
            if index == position or not mine or not same or not mine <= _decided(other):
                continue
            if not span_covers(resource_span(other), span):
                continue
            if (
                mine == _decided(other)
                and span_covers(span, resource_span(other))
                and index > position
            ):
                continue
            verb = "allows" if acl.permission_type == AclPermissionType.ALLOW else "denies"
            text = f"{short_acl(acl)}: redundant, {short_acl(other)} already {verb} it"
            found.append(Finding("redundant_acl", Severity.INFO, text, (acl, other)))
            break
    for acl in ordered:
        if acl.permission_type != AclPermissionType.ALLOW or not _decided(acl):
            continue
        used = [
            d
            for d in ordered
            if d.permission_type == DENY and entry_covers(d, acl) and _decided(d) & _decided(acl)
        ]
        if used and _decided(acl) <= frozenset().union(*(_decided(d) for d in used)):
            by = " and ".join(short_acl(d) for d in used)
            text = f"{short_acl(acl)}: never decides, {by} denies every request it matches"
            found.append(Finding("allow_never_decides", Severity.WARNING, text, (acl, *used)))
    return found


@settings(max_examples=300, deadline=None)
@given(scenarios(max_requests=1))
def test_the_indexed_lint_finds_what_comparing_every_pair_finds(
    scenario: tuple[list[AccessControlEntryRecord], list[tuple[object, ...]]],
) -> None:
    acls, _ = scenario
    kinds = ("redundant_acl", "allow_never_decides")
    assert [f for f in lint_acls(acls) if f.kind in kinds] == _naive_lint(acls)


def _counted(
    real: Callable[..., object], compared: Counter[str], name: str, *args: object
) -> object:
    compared[name] += 1
    return real(*args)


def test_lint_of_a_large_inventory_takes_seconds_not_hours(monkeypatch: pytest.MonkeyPatch) -> None:
    """20k ACLs of 300 principals, one in twenty a DENY: comparing every ALLOW with every DENY
    of the type took about a minute here (and hours at 200k); the index compares an ACL only
    with those that could cover it."""
    rng = random.Random(5)
    acls = [
        make_acl(
            f"t{rng.randrange(1000):04d}.orders-{i % 97}",
            rng.choice([PatternType.LITERAL, PREFIXED]),
            f"User:svc-{rng.randrange(300)}",
            operation=rng.choice([O.READ, O.WRITE, O.DESCRIBE]),
            permission=DENY if rng.random() < 0.05 else AclPermissionType.ALLOW,
        )
        for i in range(20_000)
    ]
    never = make_acl("t0001.x", principal="User:svc-1", operation=O.DESCRIBE)
    acls += [never, make_acl("t0001.", PREFIXED, "User:svc-1", operation=O.ALL, permission=DENY)]
    compared = Counter[str]()
    for name in ("entry_covers", "span_covers"):
        real = getattr(lint_module, name)
        counted = functools.partial(_counted, real, compared, name)
        monkeypatch.setattr(lint_module, name, counted)
    start = time.perf_counter()
    findings = lint_acls(acls)
    assert time.perf_counter() - start < 15
    # every ALLOW against every DENY was 19M comparisons, every pair of a principal's ACLs 1.3M
    assert 0 < compared["entry_covers"] < 200_000 and 0 < compared["span_covers"] < 200_000, (
        compared
    )
    assert any(f.kind == "redundant_acl" for f in findings)
    assert [f.acls[0] for f in findings if f.kind == "allow_never_decides"] == [never]
