"""``--producer``, ``--consumer`` and ``--idempotent`` create exactly the ACLs kafka-acls creates
(Kafka 4.0's ``AclCommand``), for every pattern type, and refuse what it refuses.

The rules, from ``AclCommand.getProducerResourceFilterToAcls`` and its consumer twin: producer
WRITE, DESCRIBE, CREATE on each topic and WRITE, DESCRIBE on each transactional id; consumer
READ, DESCRIBE on each topic and READ on each group; IDEMPOTENT_WRITE on the cluster only with
``--idempotent``, and always on the LITERAL ``kafka-cluster`` whatever the pattern type.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aclog.records import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.tools.acl_options import AclOptions, bindings_for_add
from aclog.tools.options import OptionError
from tests.tools.harness import run_main

Acl = tuple[str, str, str, str]  # resource type, name, pattern type, operation
CLUSTER_IDEMPOTENT = ("CLUSTER", "kafka-cluster", "LITERAL", "IDEMPOTENT_WRITE")


def _added(data_dir: Path, *options: str) -> set[Acl]:
    """The ACLs ``acls add --allow-principal User:p OPTIONS`` created, checked in the log."""
    result = run_main(
        "acls", "add", "--data-dir", str(data_dir), "--allow-principal", "User:p", *options,
        "--json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    rows = json.loads(result.stdout)["results"]
    assert {(r["principal"], r["host"], r["permission_type"]) for r in rows} == {
        ("User:p", "*", "ALLOW")
    }
    listed = json.loads(run_main("acls", "list", "--data-dir", str(data_dir), "--json").stdout)
    acls = {(a["resource_type"], a["resource_name"], a["pattern_type"], a["operation"])
            for a in listed["acls"]}  # fmt: skip
    assert acls == {(r["resource_type"], r["resource_name"], r["pattern_type"], r["operation"])
                    for r in rows}  # fmt: skip
    return acls


def _on(kind: str, name: str, pattern: str, *operations: str) -> set[Acl]:
    return {(kind, name, pattern, operation) for operation in operations}


PATTERNS = ["literal", "prefixed", "glob"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_producer_grants_write_describe_create_on_topics(tmp_path: Path, pattern: str) -> None:
    added = _added(tmp_path, "--producer", "--topic", "pay", "--resource-pattern-type", pattern)
    assert added == _on("TOPIC", "pay", pattern.upper(), "WRITE", "DESCRIBE", "CREATE")


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_transactional_id_adds_write_and_describe_on_it_and_nothing_on_the_cluster(
    tmp_path: Path, pattern: str
) -> None:
    added = _added(
        tmp_path, "--producer", "--topic", "pay", "--transactional-id", "tx",
        "--resource-pattern-type", pattern,
    )  # fmt: skip
    p = pattern.upper()
    assert added == _on("TOPIC", "pay", p, "WRITE", "DESCRIBE", "CREATE") | _on(
        "TRANSACTIONAL_ID", "tx", p, "WRITE", "DESCRIBE"
    )


@pytest.mark.parametrize("pattern", PATTERNS)
def test_idempotent_adds_a_literal_cluster_acl_whatever_the_pattern_type(
    tmp_path: Path, pattern: str
) -> None:
    added = _added(
        tmp_path, "--producer", "--idempotent", "--topic", "pay", "--resource-pattern-type", pattern
    )
    topic = _on("TOPIC", "pay", pattern.upper(), "WRITE", "DESCRIBE", "CREATE")
    assert added == topic | {CLUSTER_IDEMPOTENT}


@pytest.mark.parametrize("pattern", PATTERNS)
def test_consumer_grants_read_describe_on_topics_and_read_on_groups(
    tmp_path: Path, pattern: str
) -> None:
    added = _added(
        tmp_path, "--consumer", "--topic", "pay", "--group", "ledger-",
        "--resource-pattern-type", pattern,
    )  # fmt: skip
    p = pattern.upper()
    assert added == _on("TOPIC", "pay", p, "READ", "DESCRIBE") | _on("GROUP", "ledger-", p, "READ")


@pytest.mark.parametrize("pattern", PATTERNS)
def test_producer_and_consumer_together_grant_the_union(tmp_path: Path, pattern: str) -> None:
    added = _added(
        tmp_path, "--producer", "--consumer", "--idempotent", "--topic", "pay", "--group", "g",
        "--transactional-id", "tx", "--resource-pattern-type", pattern,
    )  # fmt: skip
    p = pattern.upper()
    assert added == (
        _on("TOPIC", "pay", p, "WRITE", "DESCRIBE", "CREATE", "READ")
        | _on("TRANSACTIONAL_ID", "tx", p, "WRITE", "DESCRIBE")
        | _on("GROUP", "g", p, "READ")
        | {CLUSTER_IDEMPOTENT}
    )


def test_cluster_takes_only_the_literal_pattern(tmp_path: Path) -> None:
    assert _added(tmp_path, "--cluster", "--operation", "Alter") == {
        ("CLUSTER", "kafka-cluster", "LITERAL", "ALTER")
    }


@pytest.mark.parametrize(
    ("options", "says"),
    [
        # kafka-acls: "You must provide at least one resource"
        (("--cluster", "--resource-pattern-type", "prefixed"), "--cluster cannot take"),
        # kafka-acls drops the cluster here without a word; aclog refuses instead
        (("--cluster", "--topic", "t", "--resource-pattern-type", "prefixed"), "--cluster"),
        (("--idempotent", "--topic", "t"), "--idempotent is only available with --producer"),
        (("--producer",), "--producer needs at least one --topic"),
        (("--consumer", "--topic", "t"), "--consumer needs at least one --topic and one --group"),
        (("--consumer", "--topic", "t", "--group", "g", "--transactional-id", "x"), "--consumer"),
        (("--consumer", "--topic", "t", "--group", "g", "--cluster"), "--consumer takes no"),
        (("--producer", "--topic", "t", "--operation", "Read"), "--operation cannot"),
        (("--producer", "--topic", "t", "--deny-principal", "User:x"), "--deny-principal cannot"),
        (("--producer", "--topic", "t", "--deny-host", "10.0.0.1"), "--deny-"),
        (("--producer", "--topic", "t", "--group", "g"), "--group would add no ACL"),
        (("--producer", "--topic", "t", "--cluster"), "--cluster would add no ACL"),
        (("--consumer", "--topic", "t", "--group", "g", "--user", "u"), "--user would add no"),
    ],
)
def test_combinations_kafka_acls_refuses_are_refused(
    tmp_path: Path, options: tuple[str, ...], says: str
) -> None:
    data_dir = tmp_path / "d"
    result = run_main(
        "acls", "add", "--data-dir", str(data_dir), "--allow-principal", "User:p", *options
    )
    assert result.code == 2, result.stderr
    assert says in result.stderr
    assert not data_dir.exists()


NAMES = st.lists(st.sampled_from(["a", "b", "pay"]), max_size=2, unique=True)


@given(
    producer=st.booleans(),
    consumer=st.booleans(),
    idempotent=st.booleans(),
    topics=NAMES,
    groups=NAMES,
    transactional_ids=NAMES,
    pattern=st.sampled_from(PATTERNS),
)
def test_role_acls_follow_kafka_acls_for_any_combination(
    producer: bool,
    consumer: bool,
    idempotent: bool,
    topics: list[str],
    groups: list[str],
    transactional_ids: list[str],
    pattern: str,
) -> None:
    options = AclOptions(
        allow_principals=["User:p"], topics=topics, groups=groups,
        transactional_ids=transactional_ids, pattern_type=pattern, producer=producer,
        consumer=consumer, idempotent=idempotent,
    )  # fmt: skip
    if not (producer or consumer):
        options.operations = ["Read"]
    try:
        bindings = bindings_for_add(options)
    except OptionError:
        return
    expected: set[tuple[ResourceType, str, PatternType, AclOperation]] = set()
    chosen = PatternType.parse(pattern)
    rules: list[tuple[bool, ResourceType, list[str], list[AclOperation]]] = [
        (producer, ResourceType.TOPIC, topics, [AclOperation.WRITE, AclOperation.DESCRIBE,
                                                AclOperation.CREATE]),
        (producer, ResourceType.TRANSACTIONAL_ID, transactional_ids,
         [AclOperation.WRITE, AclOperation.DESCRIBE]),
        (consumer, ResourceType.TOPIC, topics, [AclOperation.READ, AclOperation.DESCRIBE]),
        (consumer, ResourceType.GROUP, groups, [AclOperation.READ]),
    ]  # fmt: skip
    if not (producer or consumer):
        rules = [(True, t, n, [AclOperation.READ]) for t, n in
                 ((ResourceType.TOPIC, topics), (ResourceType.GROUP, groups),
                  (ResourceType.TRANSACTIONAL_ID, transactional_ids))]  # fmt: skip
    for applies, resource_type, names, operations in rules:
        if applies:
            expected |= {(resource_type, n, chosen, op) for n in names for op in operations}
    if producer and idempotent:
        expected.add((ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL,
                      AclOperation.IDEMPOTENT_WRITE))  # fmt: skip
    got = {(b.resource_type, b.resource_name, b.pattern_type, b.operation) for b in bindings}
    assert got == expected
    assert len(bindings) == len(set(bindings))
    assert {(b.principal, b.host, b.permission_type) for b in bindings} == {
        ("User:p", "*", AclPermissionType.ALLOW)
    }
