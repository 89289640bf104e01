"""``aclog plan`` and ``aclog apply`` against a real Kafka 4.0 broker: what the CI command of
``docs/as-code.md`` does over a cluster that already holds ACLs, and what a plan says up front
about what Kafka cannot hold. Each test names its principals uniquely and removes what it made."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from aclog.acl.filters import AclFilter
from aclog.remote.admin import RemoteAdmin
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
    _remove_all(kafka_broker, name)


def _remove_all(kafka_broker: KafkaBroker, principal: str) -> None:
    """Remove every ACL of ``principal``, under Kafka's cap per request; retried for a while,
    as Kafka's controller answers -1 for a moment after a request over the cap."""
    deadline = time.monotonic() + 60
    with RemoteAdmin.connect(kafka_broker.bootstrap) as admin:
        while True:
            error, held = admin.describe_acls(AclFilter(principal=principal))
            if error.is_success and not held:
                return
            filters = [AclFilter(t, n, p, principal) for t, n, p in
                       dict.fromkeys((a.resource_type, a.resource_name, a.pattern_type)
                                     for a in held)]  # fmt: skip
            for start in range(0, len(filters), 1_000):
                admin.delete_acls(filters[start : start + 1_000])
            assert time.monotonic() < deadline, f"{principal}'s ACLs stay: {error}"
            time.sleep(0.5)


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


def test_a_glob_entry_is_an_error_at_plan_time_and_apply_changes_nothing(
    kafka_broker: KafkaBroker, principal: str, tmp_path: Path
) -> None:
    remote = ["--bootstrap-server", kafka_broker.bootstrap]
    topic = unique("glob")
    declared = _acl(principal, f"{topic}-*", "glob") + _acl(principal, topic)
    (tmp_path / "glob.yaml").write_text(_file(principal, declared))
    planned = _aclog(tmp_path, "plan", "glob.yaml", *remote)
    assert planned.code == 1, planned.stdout + planned.stderr
    assert planned.stdout == ""
    assert planned.stderr.startswith("aclog: glob.yaml:5: the cluster does not store GLOB ACLs")
    assert f"{topic}-* (GLOB)" in planned.stderr
    applied = _aclog(tmp_path, "apply", "glob.yaml", *remote)
    assert applied.code == 1
    assert "refused: glob.yaml:5: the cluster does not store GLOB ACLs" in applied.stderr
    assert _listed(kafka_broker, principal) == []  # not even the LITERAL entry


def test_an_apply_over_the_cap_goes_in_requests_under_it(
    kafka_broker: KafkaBroker, principal: str, tmp_path: Path
) -> None:
    remote = ["--bootstrap-server", kafka_broker.bootstrap]
    prefix = unique("bulk")
    names = ", ".join(f"{prefix}-{i}" for i in range(5_001))
    (tmp_path / "bulk.yaml").write_text(
        f"owns:\n  principals: [{principal}]\nroles:\n  - principal: {principal}\n"
        f"    consumer: true\n    groups: [{prefix}]\n    topics: [{names}]\n"
    )  # 10,003 ACLs: one CreateAcls of them all fails whole on Kafka
    planned = _aclog(tmp_path, "plan", "bulk.yaml", *remote)
    assert planned.code == 0, planned.stderr
    assert "warning: 10,003 ACLs go in 2 CreateAcls requests of at most 10,000" in planned.stderr
    applied = _aclog(tmp_path, "apply", "bulk.yaml", *remote, "--json")
    assert applied.code == 0, applied.stderr[:2000]
    results = json.loads(applied.stdout)["results"]
    assert len(results) == 10_003 and all(r["error_code"] == 0 for r in results)
    assert len(_listed(kafka_broker, principal)) == 10_003
    assert _aclog(tmp_path, "plan", "bulk.yaml", *remote, "--detailed-exitcode").code == 0
    # Removing them all: DeleteAcls in parts too (Kafka matches each filter against every ACL).
    (tmp_path / "none.yaml").write_text(f"owns:\n  principals: [{principal}]\n")
    emptied = _aclog(tmp_path, "apply", "none.yaml", *remote, "--allow-delete", "--json")
    assert emptied.code == 0, emptied.stderr[:2000]
    assert len(json.loads(emptied.stdout)["results"]) == 10_003
    assert _listed(kafka_broker, principal) == []


def test_acls_add_over_the_cap_says_so_once_against_kafka(
    kafka_broker: KafkaBroker, principal: str, tmp_path: Path
) -> None:
    prefix = unique("cap")
    topics = [arg for i in range(10_001) for arg in ("--topic", f"{prefix}-{i}")]
    added = _aclog(tmp_path, "acls", "add", "--bootstrap-server", kafka_broker.bootstrap,
                   "--allow-principal", principal, "--operation", "read", *topics)  # fmt: skip
    assert added.code == 1
    # Kafka 4.0 answers each creation -1 "Unable to perform excessively large batch operation."
    assert added.stderr.splitlines() == [
        "aclog: nothing was created: this request names 10,001 ACLs, and Kafka commits at most "
        "10,000 records per request (QuorumController.MAX_RECORDS_PER_USER_OP); split it into "
        "commands of at most 10,000 new ACLs each"
    ]
    _remove_all(kafka_broker, principal)  # nothing to remove: it waits out Kafka's hiccup
    assert _listed(kafka_broker, principal) == []
