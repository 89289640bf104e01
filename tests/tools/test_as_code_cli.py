"""``aclog plan``, ``aclog apply`` and ``aclog export``: on a data directory (one batch, the
request context, --allow-delete, --plan-file, a second apply that writes nothing) and against a
real ``aclog serve`` changed out of band by kafka-python and confluent-kafka. Passwords reach
neither the log nor any output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import ScramCredentialInfo
from confluent_kafka.admin import ScramMechanism as CkMechanism
from confluent_kafka.admin import UserScramCredentialUpsertion as CkUpsertion
from kafka.admin import (
    ACL,
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
)

from aclog.controller.controller import Controller
from aclog.desired import CurrentState
from aclog.records import ScramMechanism
from aclog.replay.rebuild import rebuild_image
from aclog.replay.stream import read_decoded
from tests.tools.harness import Run, run_main, tree_digest
from tests.wire.clients import confluent, kafka_python
from tests.wire.harness import ServerProcess

PASSWORD = "s3cret-Pa55-never-shown"
FILE = """\
version: 1
owns:
  principals: [User:orders-app]
  resource_prefixes: [orders.]
acls:
  - resource_type: topic
    resource_name: orders.
    pattern_type: prefixed
    principal: User:analytics
    operations: [read, describe]
roles:
  - principal: User:orders-app
    producer: true
    idempotent: true
    topics: [orders.events]
users:
  - name: orders-app
    mechanism: SCRAM-SHA-512
    password_file: orders-app.password
"""


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "acls.yaml").write_text(FILE, encoding="utf-8")
    (tmp_path / "orders-app.password").write_text(PASSWORD + "\n", encoding="utf-8")
    return tmp_path


def _aclog(workdir: Path, *args: str) -> Run:
    run = run_main(*args, cwd=workdir)
    assert PASSWORD not in run.stdout + run.stderr
    return run


def _no_password_in(directory: Path) -> None:
    for path in directory.rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path


def test_plan_apply_and_a_second_apply_on_a_data_directory(workdir: Path) -> None:
    data = ["--data-dir", "data"]
    assert _aclog(workdir, "acls", "add", *data, "--allow-principal", "User:orders-app",
                  "--operation", "read", "--topic", "legacy").code == 0  # fmt: skip
    assert _aclog(workdir, "acls", "add", *data, "--allow-principal", "User:other",
                  "--operation", "read", "--topic", "other").code == 0  # fmt: skip
    planned = _aclog(workdir, "plan", "acls.yaml", *data, "--json", "--detailed-exitcode")
    assert planned.code == 4, planned.stderr
    shown = json.loads(planned.stdout)
    assert len(shown["acls"]["add"]) == 6
    # Only what the file owns is removed: User:other's ACL on "other" stays.
    assert [a["resource_name"] for a in shown["acls"]["remove"]] == ["legacy"]
    assert shown["users"]["upsert"] == [
        {"name": "orders-app", "mechanism": "SCRAM-SHA-512", "iterations": 8192, "reason": "new"}
    ]
    before = tree_digest(workdir / "data")
    refused = _aclog(workdir, "apply", "acls.yaml", *data)
    assert refused.code == 1
    assert "--allow-delete" in refused.stderr
    assert "remove ACL ALLOW User:orders-app READ on TOPIC legacy" in refused.stderr
    assert tree_digest(workdir / "data") == before  # nothing half-applied

    applied = _aclog(workdir, "apply", "acls.yaml", *data, "--allow-delete", "--json")
    assert applied.code == 0, applied.stderr
    result = json.loads(applied.stdout)
    assert result["committed"] and not result["refused"]
    assert [r["action"] for r in result["results"]] == ["add"] * 6 + ["remove", "upsert"]
    # One batch, led by who applied which file with which hash.
    last = list(read_decoded(workdir / "data"))[-1]
    context = last.records[0]
    assert context.api.startswith("aclog apply acls.yaml sha256=")  # type: ignore[union-attr]
    assert len(last.records) == 1 + 6 + 1 + 1

    after = tree_digest(workdir / "data")
    again = _aclog(workdir, "apply", "acls.yaml", *data, "--allow-delete")
    assert (again.code, again.stdout) == (0, "no changes\n")
    assert tree_digest(workdir / "data") == after
    assert _aclog(workdir, "plan", "acls.yaml", *data, "--detailed-exitcode").code == 0
    # A new password is a change the data directory can see (its keys are stored).
    (workdir / "orders-app.password").write_text("another-password\n")
    changed = _aclog(workdir, "plan", "acls.yaml", *data, "--detailed-exitcode")
    assert changed.code == 4 and "password differs" in changed.stdout
    _no_password_in(workdir / "data")


def test_a_plan_file_from_another_state_is_refused(workdir: Path) -> None:
    data = ["--data-dir", "data"]
    saved = _aclog(workdir, "plan", "acls.yaml", *data, "--out", "plan.json")
    assert saved.code == 0, saved.stderr
    assert PASSWORD not in (workdir / "plan.json").read_text()
    assert _aclog(workdir, "acls", "add", *data, "--allow-principal", "User:x",
                  "--operation", "read", "--topic", "elsewhere").code == 0  # fmt: skip
    before = tree_digest(workdir / "data")
    refused = _aclog(workdir, "apply", "acls.yaml", *data, "--plan-file", "plan.json")
    assert refused.code == 1
    assert "the state has changed since the plan was made" in refused.stderr
    assert tree_digest(workdir / "data") == before
    fresh = _aclog(workdir, "plan", "acls.yaml", *data, "--out", "plan.json")
    assert fresh.code == 0
    assert _aclog(workdir, "apply", "acls.yaml", *data, "--plan-file", "plan.json").code == 0
    (workdir / "plan.json").write_text("{}")
    bad = _aclog(workdir, "apply", "acls.yaml", *data, "--plan-file", "plan.json")
    assert bad.code == 2 and "not a plan written by aclog plan --out" in bad.stderr


def test_export_round_trips_and_reads_the_past(workdir: Path) -> None:
    data = ["--data-dir", "data"]
    assert _aclog(workdir, "acls", "add", *data, "--allow-principal", "User:early",
                  "--operation", "read", "--topic", "t").code == 0  # fmt: skip
    assert _aclog(workdir, "apply", "acls.yaml", *data).code == 0
    exported = _aclog(workdir, "export", "--format", "yaml", *data, "--out", "all.yaml")
    assert exported.code == 0, exported.stderr
    text = (workdir / "all.yaml").read_text()
    assert "owns: all" in text and "orders-app" in text and "password" not in text.split("\n", 2)[2]
    same = _aclog(workdir, "plan", "all.yaml", *data, "--detailed-exitcode")
    assert same.code == 0, same.stdout + same.stderr
    past = _aclog(workdir, "export", *data, "--at-time", "2000-01-01T00:00:00Z", "--json")
    assert json.loads(past.stdout)["acls"] == []
    wrong = _aclog(workdir, "export", "--format", "xml", *data)
    assert wrong.code == 2


def test_a_plan_reads_and_never_writes(workdir: Path) -> None:
    data = workdir / "data"
    assert _aclog(workdir, "acls", "add", "--data-dir", "data", "--allow-principal",
                  "User:orders-app", "--topic", "legacy").code == 0  # fmt: skip
    before = tree_digest(workdir)
    with Controller.open(data):  # a writer holds the lock: a plan does not need it
        held = tree_digest(workdir)
        planned = _aclog(workdir, "plan", "acls.yaml", "--data-dir", "data", "--json")
        assert planned.code == 0, planned.stderr
        assert tree_digest(workdir) == held
    assert tree_digest(workdir) == before
    fresh = _aclog(workdir, "plan", "acls.yaml", "--data-dir", "new", "--detailed-exitcode")
    assert fresh.code == 4 and "planning from an empty state" in fresh.stderr
    assert not (workdir / "new").exists()


def test_bad_files_exit_2_with_every_line(workdir: Path) -> None:
    (workdir / "bad.yaml").write_text(
        "owns: all\nacls:\n  - {resource_type: topic, resource_name: t, principal: User:a,"
        " operaton: read}\nusers:\n  - {name: u, mechanism: SCRAM-SHA-256, password: x}\n"
    )
    run = _aclog(workdir, "plan", "bad.yaml", "--data-dir", "data")
    assert run.code == 2
    assert run.stderr.splitlines() == [
        "aclog: bad.yaml:3: unknown key 'operaton' in an ACL (did you mean 'operations'?)",
        "aclog: bad.yaml:5: a password never goes in the file; name where to read it with "
        "password_env (an environment variable) or password_file (a file)",
    ]
    assert not (workdir / "data").exists()
    missing = _aclog(workdir, "plan", "nope.yaml", "--data-dir", "data")
    assert missing.code == 2 and "nope.yaml" in missing.stderr


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    (tmp_path / "srv").mkdir()
    process = ServerProcess(tmp_path / "srv", "--super-users", "User:ANONYMOUS")
    process.start()
    try:
        yield process
    finally:
        assert process.stop() == 0, process.stderr()[-3000:]


def test_against_a_served_cluster_changed_out_of_band(workdir: Path, server: ServerProcess) -> None:
    remote = ["--bootstrap-server", server.bootstrap]
    first = _aclog(workdir, "apply", "acls.yaml", *remote)
    assert first.code == 0, first.stderr
    assert _aclog(workdir, "plan", "acls.yaml", *remote, "--detailed-exitcode").code == 0
    # Out of band: kafka-python grants inside and outside the owned scope; confluent-kafka
    # creates an owned credential the file does not declare.
    pattern = ResourcePattern(ResourceType.TOPIC, "orders.audit", ACLResourcePatternType.LITERAL)
    outside = ResourcePattern(ResourceType.TOPIC, "payments", ACLResourcePatternType.LITERAL)
    with kafka_python(server) as admin:
        admin.create_acls([
            ACL("User:intruder", "*", ACLOperation.READ, ACLPermissionType.ALLOW, pattern),
            ACL("User:intruder", "*", ACLOperation.READ, ACLPermissionType.ALLOW, outside),
        ])  # fmt: skip
    info = ScramCredentialInfo(CkMechanism.SCRAM_SHA_256, 4096)
    ck_admin = confluent(server)  # kept: librdkafka drops a handle's requests when collected
    futures = ck_admin.alter_user_scram_credentials(
        [CkUpsertion("orders-app", info, b"out-of-band")]
    )
    assert futures["orders-app"].result(timeout=10) is None
    drift = _aclog(workdir, "plan", "acls.yaml", *remote, "--json", "--detailed-exitcode")
    assert drift.code == 4
    shown = json.loads(drift.stdout)
    assert [a["resource_name"] for a in shown["acls"]["remove"]] == ["orders.audit"]
    assert shown["users"]["delete"][0]["mechanism"] == "SCRAM-SHA-256"
    assert shown["unverified"] == ["orders-app (SCRAM-SHA-512)"]
    converged = _aclog(workdir, "apply", "acls.yaml", *remote, "--allow-delete", "--json")
    assert converged.code == 0, converged.stderr
    assert [r["action"] for r in json.loads(converged.stdout)["results"]] == ["remove", "delete"]
    assert _aclog(workdir, "plan", "acls.yaml", *remote, "--detailed-exitcode").code == 0
    second = _aclog(workdir, "apply", "acls.yaml", *remote, "--allow-delete")
    assert (second.code, second.stdout) == (0, "no changes\n")
    # A cluster never shows enough to check a password: a new one is only set when asked.
    (workdir / "orders-app.password").write_text("rotated-password\n")
    assert _aclog(workdir, "plan", "acls.yaml", *remote, "--detailed-exitcode").code == 0
    rotated = _aclog(workdir, "apply", "acls.yaml", *remote, "--set-passwords", "--json")
    assert rotated.code == 0 and "rotated-password" not in rotated.stdout + rotated.stderr
    assert [r["action"] for r in json.loads(rotated.stdout)["results"]] == ["upsert"]
    stored = CurrentState.from_image(rebuild_image(server.data_dir).image)
    assert stored.password_matches(("orders-app", ScramMechanism.SCRAM_SHA_512), "rotated-password")
    exported = _aclog(workdir, "export", *remote, "--out", "cluster.yaml")
    assert exported.code == 0, exported.stderr
    assert _aclog(workdir, "plan", "cluster.yaml", *remote, "--detailed-exitcode").code == 0
    at_time = _aclog(workdir, "export", *remote, "--at-time", "2026-01-01T00:00:00Z")
    assert at_time.code == 2 and "--at-time needs --data-dir" in at_time.stderr
    payments = ResourcePatternFilter(ResourceType.TOPIC, "payments", ACLResourcePatternType.LITERAL)
    with kafka_python(server) as admin:
        left = admin.describe_acls(
            ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY, payments)
        )
    assert len(left[0]) == 1  # outside the owned scope: untouched
    _no_password_in(server.workdir)


def test_plan_with_an_inventory_over_a_data_directory_holding_acls(workdir: Path) -> None:
    data = ["--data-dir", "data"]
    assert _aclog(workdir, "acls", "add", *data, "--allow-principal", "User:orders-app",
                  "--operation", "read", "--topic", "legacy").code == 0  # fmt: skip
    # Declared and already held, so the plan loads kept, added and removed ACLs together.
    assert _aclog(workdir, "acls", "add", *data, "--allow-principal", "User:analytics",
                  "--operation", "read", "--topic", "orders.", "--resource-pattern-type",
                  "prefixed").code == 0  # fmt: skip
    (workdir / "topics.txt").write_text("TOPIC:orders.events\nTOPIC:legacy\n")
    planned = _aclog(workdir, "plan", "acls.yaml", *data, "--inventory", "topics.txt", "--json")
    assert planned.code == 0, planned.stderr
    impact = {i["resource_name"]: i["changes"] for i in json.loads(planned.stdout)["impact"]}
    assert {"principal": "User:orders-app", "host": "0.0.0.0", "operation": "READ",
            "before": "ALLOWED", "after": "DENIED"} in impact["legacy"]  # fmt: skip
    assert any(c["operation"] == "WRITE" and c["after"] == "ALLOWED"
               for c in impact["orders.events"])  # fmt: skip


def test_a_prefixed_cluster_acl_is_a_bad_file(workdir: Path) -> None:
    (workdir / "cluster.yaml").write_text(
        "owns: all\nacls:\n  - resource_type: cluster\n    resource_name: kafka-cluster\n"
        "    pattern_type: prefixed\n    principal: User:ops\n    operations: [alter]\n"
    )
    for command in ("plan", "apply"):
        run = _aclog(workdir, command, "cluster.yaml", "--data-dir", "data")
        assert run.code == 2, run.stderr
        assert run.stderr.startswith("aclog: cluster.yaml:3: invalid ACL: pattern_type prefixed")
    assert not (workdir / "data").exists()


GLOB_FILE = """\
owns:
  principals: [User:globber]
acls:
  - resource_type: topic
    resource_name: "orders-*"
    pattern_type: glob
    principal: User:globber
    operations: [read]
  - resource_type: topic
    resource_name: audit
    principal: User:globber
    operations: [read]
"""


def test_a_glob_plans_and_applies_against_aclog_serve(workdir: Path, server: ServerProcess) -> None:
    (workdir / "glob.yaml").write_text(GLOB_FILE)
    remote = ["--bootstrap-server", server.bootstrap]
    planned = _aclog(workdir, "plan", "glob.yaml", *remote, "--json")
    assert planned.code == 0, planned.stderr
    assert [a["pattern_type"] for a in json.loads(planned.stdout)["acls"]["add"]] == [
        "GLOB",
        "LITERAL",
    ]
    applied = _aclog(workdir, "apply", "glob.yaml", *remote)
    assert applied.code == 0, applied.stderr
    assert _aclog(workdir, "plan", "glob.yaml", *remote, "--detailed-exitcode").code == 0


def _over_the_cap(topics: int) -> str:
    """A file whose consumer role adds 2 ACLs per topic plus READ on one group."""
    names = ", ".join(f"t{i}" for i in range(topics))
    return (
        "owns:\n  principals: [User:bulk]\nroles:\n  - principal: User:bulk\n"
        f"    consumer: true\n    groups: [g]\n    topics: [{names}]\n"
    )


def test_a_data_directory_plan_over_the_cap_warns_and_apply_refuses_once(workdir: Path) -> None:
    (workdir / "bulk.yaml").write_text(_over_the_cap(5_001))  # 10,003 ACLs
    data = ["--data-dir", "data"]
    planned = _aclog(workdir, "plan", "bulk.yaml", *data, "--json")
    assert planned.code == 0, planned.stderr
    [warning] = json.loads(planned.stdout)["warnings"]
    assert warning.startswith("apply would fail and change nothing: the plan adds 10,003 ACLs")
    shown = _aclog(workdir, "plan", "bulk.yaml", *data)
    assert "warning: apply would fail and change nothing" in shown.stderr
    applied = _aclog(workdir, "apply", "bulk.yaml", *data)
    assert applied.code == 1
    assert applied.stderr.splitlines() == [
        "aclog: refused: nothing was applied: the plan adds 10,003 ACLs, and Kafka commits at "
        "most 10,000 records per request (QuorumController.MAX_RECORDS_PER_USER_OP), and a "
        "data-directory apply is ONE atomic batch: apply it in parts (several files, or owned "
        "scopes widened step by step)"
    ]
    assert not (workdir / "data").exists()
