"""``aclog explain`` and ``aclog acls add --dry-run --inventory`` against a real data directory,
including KIP-1042's example: one GLOB ACL covering six regional accounting topics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from aclog.authorizer import Authorizer
from aclog.controller.controller import replay_log
from aclog.records import AclOperation, ResourceType
from aclog.tools.explain import explanation_to_dict
from aclog.tools.main import app

runner = CliRunner()
SIX = [
    f"{region}-accounts-{kind}"
    for region in ("us", "uk", "eu")
    for kind in ("payable", "receivable")
]


def _run(*args: str) -> Any:
    return runner.invoke(app, list(args))


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    base = ("acls", "add", "--data-dir", str(tmp_path))
    assert (
        _run(
            *base,
            "--allow-principal",
            "User:finance",
            "--operation",
            "Read",
            "--topic",
            "??-accounts-*",
            "--resource-pattern-type",
            "glob",
        ).exit_code
        == 0
    )
    assert (
        _run(
            *base,
            "--allow-principal",
            "User:ledger",
            "--operation",
            "Read",
            "--topic",
            "payments.",
            "--resource-pattern-type",
            "prefixed",
        ).exit_code
        == 0
    )
    assert (
        _run(
            *base,
            "--deny-principal",
            "User:ledger",
            "--operation",
            "Read",
            "--topic",
            "payments.cards",
        ).exit_code
        == 0
    )
    return tmp_path


def _explain(data_dir: Path, principal: str, topic: str, *extra: str) -> dict[str, Any]:
    result = _run(
        "explain",
        "--data-dir",
        str(data_dir),
        "--principal",
        principal,
        "--host",
        "10.0.0.7",
        "--operation",
        "Read",
        "--topic",
        topic,
        "--json",
        *extra,
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_glob_acl_covers_the_six_kip_1042_topics(data_dir: Path) -> None:
    for topic in SIX:
        assert _explain(data_dir, "User:finance", topic)["decision"] == "ALLOWED", topic
    for topic in ("usa-accounts-payable", "us-account-payable", "us-accounts"):
        assert _explain(data_dir, "User:finance", topic)["decision"] == "DENIED", topic


def test_deny_wins_and_json_equals_the_library(data_dir: Path) -> None:
    got = _explain(data_dir, "User:ledger", "payments.cards")
    assert got["decision"] == "DENIED"
    assert got["deciding_acl"]["permission_type"] == "DENY"
    assert [a["pattern_type"] for a in got["matching_acls"]] == ["LITERAL", "PREFIXED"]
    authorizer = Authorizer()
    authorizer.load(replay_log(data_dir).acls)
    expected = authorizer.explain(
        "User:ledger", "10.0.0.7", AclOperation.READ, ResourceType.TOPIC, "payments.cards"
    )
    assert got == explanation_to_dict(expected)


def test_default_decision_and_super_users(data_dir: Path) -> None:
    nothing = _explain(data_dir, "User:x", "unrelated")
    assert nothing["decision"] == "DENIED" and nothing["deciding_acl"] is None
    open_ = _explain(data_dir, "User:x", "unrelated", "--allow-everyone-if-no-acl-found")
    assert open_["decision"] == "ALLOWED"
    admin = _explain(data_dir, "User:admin", "payments.cards", "--super-users", "User:admin")
    assert admin["decision"] == "ALLOWED" and "super user" in admin["reason"]


def test_explain_usage_errors(data_dir: Path) -> None:
    two = _run(
        "explain",
        "--data-dir",
        str(data_dir),
        "--principal",
        "User:a",
        "--host",
        "1.2.3.4",
        "--operation",
        "Read",
        "--topic",
        "a",
        "--group",
        "b",
    )
    assert two.exit_code == 2 and "exactly one resource" in two.stderr
    bad_op = _run(
        "explain",
        "--data-dir",
        str(data_dir),
        "--principal",
        "User:a",
        "--host",
        "1.2.3.4",
        "--operation",
        "Fly",
        "--topic",
        "a",
    )
    assert bad_op.exit_code == 2 and "DESCRIBE_CONFIGS" in bad_op.stderr


def test_dry_run_inventory_shows_affected_resources_and_flips(
    data_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    inventory = tmp_path_factory.mktemp("inv") / "topics.txt"
    inventory.write_text(
        "# topics\n"
        + "".join(f"TOPIC:{t}\n" for t in SIX)
        + "TOPIC:usa-accounts-payable\n\ntopic:payments.cards\n"
    )
    result = _run(
        "acls",
        "add",
        "--data-dir",
        str(data_dir),
        "--allow-principal",
        "User:audit",
        "--operation",
        "Read",
        "--topic",
        "??-accounts-*",
        "--resource-pattern-type",
        "glob",
        "--dry-run",
        "--inventory",
        str(inventory),
        "--json",
    )
    assert result.exit_code == 0, result.output
    impact = json.loads(result.stdout)["impact"]
    assert [i["resource_name"] for i in impact] == SIX
    flips = {
        (c["principal"], c["operation"], c["before"], c["after"]) for c in impact[0]["changes"]
    }
    assert flips == {
        ("User:audit", "READ", "DENIED", "ALLOWED"),
        ("User:audit", "DESCRIBE", "DENIED", "ALLOWED"),
    }
    assert len(replay_log(data_dir).acls) == 3  # a dry run writes nothing


def test_inventory_needs_dry_run_and_valid_lines(data_dir: Path, tmp_path: Path) -> None:
    inventory = tmp_path / "bad.txt"
    inventory.write_text("TOPIC:ok\nnonsense\n")
    args = (
        "acls",
        "add",
        "--data-dir",
        str(data_dir),
        "--allow-principal",
        "User:a",
        "--topic",
        "t",
        "--inventory",
        str(inventory),
    )
    assert _run(*args).exit_code == 2
    bad = _run(*args, "--dry-run")
    assert bad.exit_code == 2 and "bad.txt:2" in bad.stderr
