"""``aclog plan`` and ``aclog apply`` against a real Kafka 4.0 broker: what the CI command of
``docs/as-code.md`` does over a cluster that already holds ACLs, and what a plan says up front
about what Kafka cannot hold. Each test names its principals uniquely and removes what it made."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.real_kafka import KafkaBroker, unique
from tests.tools.harness import Run, run_main
from tests.tools.test_follow_cli import Follower, _eventually


def _file(principal: str, acls: str) -> str:
    return f"version: 1\nowns:\n  principals: [{principal}]\nacls:\n{acls}"


def _acl(principal: str, name: str, pattern: str = "literal", operations: str = "read") -> str:
    return (
        f"  - resource_type: topic\n    resource_name: '{name}'\n    pattern_type: {pattern}\n"
        f"    principal: {principal}\n    operations: [{operations}]\n"
    )


@pytest.fixture
def principal(kafka_broker: KafkaBroker) -> Iterator[str]:
    """A principal no other test uses; every ACL it holds is removed afterwards."""
    name = f"User:{unique('plan')}"
    yield name
    kafka_broker.tool(
        "kafka-acls.sh", "--bootstrap-server", kafka_broker.bootstrap, "--remove", "--force",
        "--allow-principal", name, "--topic", "*", "--resource-pattern-type", "any",
    )  # fmt: skip


def _listed(kafka_broker: KafkaBroker, principal: str) -> list[dict[str, object]]:
    run = run_main("acls", "list", "--bootstrap-server", kafka_broker.bootstrap,
                   "--principal", principal, "--json")  # fmt: skip
    assert run.code == 0, run.stderr
    acls: list[dict[str, object]] = json.loads(run.stdout)["acls"]
    return acls


def _aclog(tmp_path: Path, *args: str) -> Run:
    return run_main(*args, cwd=tmp_path)


def test_plan_with_an_inventory_over_a_cluster_holding_acls(
    kafka_broker: KafkaBroker, principal: str, tmp_path: Path
) -> None:
    remote = ["--bootstrap-server", kafka_broker.bootstrap]
    topic = unique("inv")
    added = _aclog(tmp_path, "acls", "add", *remote, "--allow-principal", principal,
                   "--operation", "write", "--operation", "describe", "--topic", topic)  # fmt: skip
    assert added.code == 0, added.stderr
    # WRITE stays, DESCRIBE goes, READ comes: the plan loads kept, added and removed ACLs.
    declared = _acl(principal, topic, operations="write, read")
    (tmp_path / "acls.yaml").write_text(_file(principal, declared))
    (tmp_path / "topics.txt").write_text(f"TOPIC:{topic}\n")
    planned = _aclog(tmp_path, "plan", "acls.yaml", *remote, "--inventory", "topics.txt",
                     "--json", "--detailed-exitcode")  # fmt: skip
    assert planned.code == 4, planned.stderr
    shown = json.loads(planned.stdout)
    assert [a["operation"] for a in shown["acls"]["add"]] == ["READ"]
    assert [a["operation"] for a in shown["acls"]["remove"]] == ["DESCRIBE"]
    changes = {(c["operation"], c["before"], c["after"]) for c in shown["impact"][0]["changes"]}
    assert ("READ", "DENIED", "ALLOWED") in changes
    assert not any(operation == "WRITE" for operation, _, _ in changes)


def test_plan_over_a_followed_history_leaves_passwords_it_cannot_check(
    kafka_broker: KafkaBroker, tmp_path: Path
) -> None:
    remote = ["--bootstrap-server", kafka_broker.bootstrap]
    user = unique("followed")
    made = _aclog(tmp_path, "users", "set", user, *remote, "--mechanism", "SCRAM-SHA-512",
                  "--password", "the-real-one")  # fmt: skip
    assert made.code == 0, made.stderr
    try:
        follower = Follower(tmp_path, kafka_broker.bootstrap)
        assert follower.started(), follower.stderr()
        assert _eventually(lambda: "recorded" in follower.stderr(), 30), follower.stderr()
        assert follower.stop()[0] == 0
    finally:
        _aclog(tmp_path, "users", "delete", user, *remote, "--mechanism", "SCRAM-SHA-512")
    (tmp_path / "pw").write_text("not-the-real-one\n")
    (tmp_path / "users.yaml").write_text(
        f"owns:\n  principals: [User:{user}]\nusers:\n  - name: {user}\n"
        "    mechanism: SCRAM-SHA-512\n    password_file: pw\n"
    )
    planned = _aclog(tmp_path, "plan", "users.yaml", "--data-dir", "fol", "--detailed-exitcode")
    # Not "password differs": the history holds no keys, so the password is unknown.
    assert planned.code == 0, planned.stdout + planned.stderr
    assert "no changes" in planned.stdout
    assert f"the password of {user} (SCRAM-SHA-512) cannot be checked" in planned.stderr
    assert "aclog follow cannot read them" in planned.stderr
    forced = _aclog(tmp_path, "plan", "users.yaml", "--data-dir", "fol", "--set-passwords")
    assert "password set (not checkable)" in forced.stdout
