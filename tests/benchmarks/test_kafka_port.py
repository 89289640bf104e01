"""The Kafka-algorithm port (``benchmarks/kafka_port.py``) against the naive reference, and a
smoke run of the authorizer benchmark suites.

The reference implements aclog's semantics, which fix Kafka's wildcard quirk (spec §14 quirk 1:
a LITERAL ``*`` ACL does not apply to a name that starts with ``*`` and is longer than one
character). The port keeps the quirk, so the property test *models* it: for such names the
expected answer is the reference's answer over the ACL set without its LITERAL ``*`` ACLs.

Names use the alphabet ``*+ab``: every character sorts at or above ``*``. A name starting with a
character below ``*`` can make Kafka's second scan pass throw or never end (see
:class:`benchmarks.kafka_port.KafkaScanError`); that case has its own test.
"""

from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aclog.authorizer import Decision
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord
from benchmarks.kafka_port import KafkaPortAuthorizer, KafkaScanError, matches_up_to, section_key
from tests.authorizer.reference import ReferenceAuthorizer

O = AclOperation  # noqa: E741
TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP
LITERAL, PREFIXED = PatternType.LITERAL, PatternType.PREFIXED
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY

ALPHABET = "*+ab"
names = st.text(alphabet=ALPHABET, max_size=4)
OPERATIONS = (O.READ, O.WRITE, O.DESCRIBE, O.ALL, O.DESCRIBE_CONFIGS, O.ALTER_CONFIGS, O.CREATE)
ACL_PRINCIPALS = ("User:alice", "User:bob", "User:*", "Group:alice")
REQUEST_PRINCIPALS = ("User:alice", "User:bob", "Group:alice", "User:carol", "User:admin")
HOSTS = ("*", "*", "10.0.0.1", "10.0.0.2")


@st.composite
def acl_sets(draw: st.DrawFn) -> list[AccessControlEntryRecord]:
    fields = draw(
        st.lists(
            st.tuples(
                st.sampled_from((TOPIC, TOPIC, GROUP)),
                names | st.just("*"),
                st.sampled_from((LITERAL, PREFIXED)),
                st.sampled_from(ACL_PRINCIPALS),
                st.sampled_from(HOSTS),
                st.sampled_from(OPERATIONS),
                st.sampled_from((ALLOW, DENY)),
            ),
            max_size=30,
            unique=True,  # Kafka stores no two identical ACLs
        )
    )
    return [AccessControlEntryRecord(uuid.UUID(int=i + 1), *f) for i, f in enumerate(fields)]


requests = st.tuples(
    st.sampled_from(REQUEST_PRINCIPALS),
    st.sampled_from(("10.0.0.1", "10.0.0.2")),
    st.sampled_from(OPERATIONS),
    st.sampled_from((TOPIC, GROUP)),
    names,
)


def expected(
    acls: list[AccessControlEntryRecord], allow_everyone: bool, request: tuple
) -> Decision:
    """The reference's answer, with Kafka's wildcard quirk modelled."""
    name = request[4]
    if name.startswith("*") and len(name) > 1:
        acls = [a for a in acls if not (a.pattern_type == LITERAL and a.resource_name == "*")]
    reference = ReferenceAuthorizer(("User:admin",), allow_everyone)
    reference.load(acls)
    return reference.authorize(*request)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    acls=acl_sets(),
    asked=st.lists(requests, min_size=1, max_size=12),
    allow_everyone=st.booleans(),
)
def test_port_agrees_with_the_reference(acls, asked, allow_everyone) -> None:
    port = KafkaPortAuthorizer(("User:admin",), allow_everyone)
    port.load(acls)
    for request in asked:
        assert port.authorize(*request) == expected(acls, allow_everyone, request), request
    # Incremental adds build the same structure as the bulk load.
    grown = KafkaPortAuthorizer(("User:admin",), allow_everyone)
    grown.complete_initial_load()
    for acl in acls:
        grown.add(acl)
    for acl in acls[::2]:
        grown.remove(acl.id)
    kept = acls[1::2]
    for request in asked:
        assert grown.authorize(*request) == expected(kept, allow_everyone, request), request


@settings(max_examples=100, deadline=None)
@given(acls=acl_sets(), request=requests)
def test_port_by_resource_type_agrees_with_kafkas_default(acls, request) -> None:
    principal, host, operation, resource_type, _ = request
    port = KafkaPortAuthorizer(("User:admin",))
    port.load(acls)
    reference = ReferenceAuthorizer(("User:admin",))
    reference.load(acls)
    want = reference.kafka_authorize_by_resource_type(principal, host, operation, resource_type)
    assert port.authorize_by_resource_type(principal, host, operation, resource_type) == want


def test_listing_follows_kafkas_sort_order() -> None:
    names_in = ["a", "ab", "b", "*", "", "abc"]
    acls = [
        AccessControlEntryRecord(uuid.UUID(int=i + 1), TOPIC, n, kind, "User:x", "*", O.READ, ALLOW)
        for i, (n, kind) in enumerate((n, k) for n in names_in for k in (LITERAL, PREFIXED))
    ]
    port = KafkaPortAuthorizer()
    port.load(acls)
    listed = [(a.resource_name, a.pattern_type) for a in port.acls()]
    # Names descending (a longer name before its prefix), then LITERAL before PREFIXED.
    want = [(n, k) for n in ["b", "abc", "ab", "a", "*", ""] for k in (LITERAL, PREFIXED)]
    assert listed == want
    assert section_key(TOPIC, "ab", LITERAL) < section_key(TOPIC, "a", LITERAL)
    assert matches_up_to("foo-95", "foo-9") == 5
    assert matches_up_to("foo-95", "foo-8") == 4


def test_identical_acls_and_unknown_ids_are_rejected() -> None:
    acl = AccessControlEntryRecord(
        uuid.UUID(int=1), TOPIC, "t", LITERAL, "User:x", "*", O.READ, ALLOW
    )
    twin = AccessControlEntryRecord(
        uuid.UUID(int=2), TOPIC, "t", LITERAL, "User:x", "*", O.READ, ALLOW
    )
    port = KafkaPortAuthorizer()
    with pytest.raises(ValueError, match="identical"):
        port.load([acl, twin])
    port.load([acl])
    with pytest.raises(ValueError, match="identical"):
        port.add(twin)
    with pytest.raises(KeyError):
        port.remove(uuid.UUID(int=3))


def test_kafka_test_authorizer_query_examines_what_the_spec_predicts() -> None:
    from benchmarks.workloads import kafka_workload

    work = kafka_workload(resources=1000, deny_percentage=0.0)
    port = KafkaPortAuthorizer()
    port.load(work.acls)
    assert port.authorize(*work.test_authorizer) == Decision.DENIED
    # benchmarks.md §1.1: about 2·A + H + 2·(R/10) ACLs (+ the A skipped on LITERAL "...-9").
    assert port.examined == work.predicted_examined


def test_second_pass_below_the_wildcard_is_reported_not_looped() -> None:
    """Read from StandardAuthorizerData.checkSection: pass 2 cuts the exemplar "*" at the common
    prefix of the requested name and an ACL name that sorts below "*"."""
    acl = AccessControlEntryRecord(
        uuid.UUID(int=1), GROUP, "!ab", PREFIXED, "User:x", "*", O.READ, ALLOW
    )
    port = KafkaPortAuthorizer()
    port.load([acl])
    with pytest.raises(KafkaScanError, match="loop forever"):
        port.authorize("User:x", "10.0.0.1", O.READ, GROUP, "!b")
    with pytest.raises(KafkaScanError, match="substring"):
        port.authorize("User:x", "10.0.0.1", O.READ, GROUP, "!ac")
    assert port.authorize("User:x", "10.0.0.1", O.READ, GROUP, "!abc") == Decision.ALLOWED


def test_quick_suites_run_and_report_no_mismatch() -> None:
    from benchmarks.__main__ import main

    assert main(["--tiny", "--only", "authorizer", "--only", "glob", "--only", "mutation"]) == 0


def test_a_mismatch_makes_the_run_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import __main__ as entry
    from benchmarks.report import Report, Row

    def disagreeing(report: Report, quick: bool) -> None:
        report.add(Row("authz", "a vs b", "w", 1, "mismatches", 1, "answers"))

    monkeypatch.setitem(entry.SUITES, "disagreeing", disagreeing)
    assert entry.main(["--tiny", "--only", "disagreeing"]) == 1
