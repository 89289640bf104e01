"""``aclog acls`` and ``aclog users``: JSON shapes, exit codes, dry runs, and the log they write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from aclog.controller.controller import replay_log
from aclog.records import record_to_dict
from aclog.replay.stream import read_decoded
from aclog.tools.main import app

runner = CliRunner()


def _run(*args: str, stdin: str | None = None) -> Any:
    return runner.invoke(app, list(args), input=stdin)


def test_add_prints_one_result_per_acl_in_order(tmp_path: Path) -> None:
    result = _run(
        "acls",
        "add",
        "--data-dir",
        str(tmp_path),
        "--allow-principal",
        "User:alice",
        "--operation",
        "Read",
        "--operation",
        "describe-configs",
        "--topic",
        "orders",
        "--json",
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert [(r["operation"], r["error_code"], r["error_message"]) for r in rows] == [
        ("READ", 0, None),
        ("DESCRIBE_CONFIGS", 0, None),
    ]
    assert set(rows[0]) == {
        "id",
        "resource_type",
        "resource_name",
        "pattern_type",
        "principal",
        "host",
        "operation",
        "permission_type",
        "error_code",
        "error_message",
    }
    image = replay_log(tmp_path)
    assert sorted(record_to_dict(a)["id"] for a in image.acls) == sorted(r["id"] for r in rows)
    author = list(read_decoded(tmp_path))[-1].author
    assert author is not None and author.api == "aclog acls add"


def test_list_json_equals_the_committed_acls(tmp_path: Path) -> None:
    _run(
        "acls",
        "add",
        "--data-dir",
        str(tmp_path),
        "--allow-principal",
        "User:bob",
        "--producer",
        "--topic",
        "pay",
        "--transactional-id",
        "tx",
    )
    listed = json.loads(_run("acls", "list", "--data-dir", str(tmp_path), "--json").stdout)
    assert listed == {"acls": [record_to_dict(a) for a in replay_log(tmp_path).acls]}
    ops = {(a["resource_type"], a["operation"]) for a in listed["acls"]}
    assert ops == {
        ("TOPIC", "WRITE"),
        ("TOPIC", "DESCRIBE"),
        ("TOPIC", "CREATE"),
        ("TRANSACTIONAL_ID", "WRITE"),
        ("TRANSACTIONAL_ID", "DESCRIBE"),
    }


def test_glob_acl_and_match_listing(tmp_path: Path) -> None:
    added = _run(
        "acls",
        "add",
        "--data-dir",
        str(tmp_path),
        "--allow-principal",
        "User:fin",
        "--operation",
        "READ",
        "--topic",
        "??-accounts-*",
        "--resource-pattern-type",
        "glob",
    )
    assert added.exit_code == 0, added.output
    for topic, expected in (("us-accounts-payable", 1), ("usa-accounts-payable", 0)):
        listed = _run(
            "acls",
            "list",
            "--data-dir",
            str(tmp_path),
            "--topic",
            topic,
            "--resource-pattern-type",
            "match",
            "--json",
        )
        assert len(json.loads(listed.stdout)["acls"]) == expected


def test_failed_items_exit_1_with_kafka_error_on_stderr(tmp_path: Path) -> None:
    result = _run(
        "acls",
        "add",
        "--data-dir",
        str(tmp_path),
        "--allow-principal",
        "alice",
        "--operation",
        "Read",
        "--topic",
        "t",
        "--json",
    )
    assert result.exit_code == 1
    (row,) = json.loads(result.stdout)["results"]
    assert row["error_code"] == 42 and row["id"] is None
    assert "INVALID_REQUEST (42)" in result.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    no_resource = _run("acls", "add", "--data-dir", str(tmp_path), "--allow-principal", "User:a")
    assert no_resource.exit_code == 2 and "--topic" in no_resource.stderr
    bad_op = _run(
        "acls",
        "add",
        "--data-dir",
        str(tmp_path),
        "--allow-principal",
        "User:a",
        "--operation",
        "Read",
        "--cluster",
    )
    assert bad_op.exit_code == 2 and "CLUSTER ACLs cannot name READ" in bad_op.stderr
    bad_pattern = _run(
        "acls",
        "add",
        "--data-dir",
        str(tmp_path),
        "--allow-principal",
        "User:a",
        "--topic",
        "t",
        "--resource-pattern-type",
        "match",
    )
    assert bad_pattern.exit_code == 2


def test_dry_run_and_remove(tmp_path: Path) -> None:
    base = ("--data-dir", str(tmp_path), "--allow-principal", "User:a", "--topic", "t")
    dry = _run("acls", "add", *base, "--operation", "Write", "--dry-run")
    assert "would add" in dry.stdout and len(replay_log(tmp_path).acls) == 0
    _run("acls", "add", *base, "--operation", "Write")
    _run("acls", "add", *base, "--operation", "Read")
    refused = _run("acls", "remove", "--data-dir", str(tmp_path), "--topic", "t")
    assert refused.exit_code == 2 and "--force" in refused.stderr
    planned = _run("acls", "remove", "--data-dir", str(tmp_path), "--topic", "t", "--dry-run")
    assert planned.stdout.count("would remove") == 2
    assert len(replay_log(tmp_path).acls) == 2
    removed = _run("acls", "remove", *base, "--operation", "Write", "--force", "--json")
    (row,) = json.loads(removed.stdout)["results"]
    assert [a["operation"] for a in row["acls"]] == ["WRITE"] and row["error_code"] == 0
    assert [a.operation.name for a in replay_log(tmp_path).acls] == ["READ"]


def test_remove_says_when_nothing_matches(tmp_path: Path) -> None:
    # a typo in the topic removed nothing and printed nothing, as a success does
    _run("acls", "add", "--data-dir", str(tmp_path), "--allow-principal", "User:a", "--topic", "t")
    typo = ("acls", "remove", "--data-dir", str(tmp_path), "--topic", "tt")
    assert _run(*typo, "--force").stdout == "no ACL matches: nothing removed\n"
    assert _run(*typo, "--dry-run").stdout == "no ACL matches: nothing would be removed\n"
    assert len(replay_log(tmp_path).acls) == 1


def test_users_set_list_delete(tmp_path: Path) -> None:
    data = ("--data-dir", str(tmp_path))
    made = _run(
        "users",
        "set",
        "alice",
        *data,
        "--mechanism",
        "SCRAM-SHA-256",
        "--password-stdin",
        stdin="pa55word\n",
    )
    assert made.exit_code == 0, made.output
    assert made.stdout == "set alice's SCRAM-SHA-256 credential\n"
    low = _run(
        "users",
        "set",
        "bob",
        *data,
        "--mechanism",
        "scram-sha-512",
        "--password",
        "x",
        "--iterations",
        "100",
    )
    assert low.exit_code == 1 and "Too few iterations: use --iterations 4096 to 16384" in low.stderr
    listed = json.loads(_run("users", "list", *data, "--json").stdout)
    assert listed == {
        "users": [
            {"name": "alice", "credentials": [{"mechanism": "SCRAM-SHA-256", "iterations": 8192}]}
        ]
    }
    dumped = _run("dump", str(tmp_path), "--json", "--no-redact").stdout
    assert "pa55word" not in dumped
    other = ("--mechanism", "SCRAM-SHA-512", "--password", "y")
    assert _run("users", "set", "alice", *data, *other).exit_code == 0
    gone = _run("users", "delete", "alice", *data, "--mechanism", "SCRAM-SHA-256")
    # The line names the mechanism: alice keeps her SCRAM-SHA-512 credential.
    assert (gone.exit_code, gone.stdout) == (0, "deleted alice's SCRAM-SHA-256 credential\n")
    assert _run("users", "list", "alice", *data).stdout.count("SCRAM-SHA-512") == 1
    assert _run("users", "delete", "alice", *data, "--mechanism", "SCRAM-SHA-512").exit_code == 0
    missing = _run("users", "delete", "alice", *data, "--mechanism", "SCRAM-SHA-256")
    assert missing.exit_code == 1 and "RESOURCE_NOT_FOUND" in missing.stderr
    assert json.loads(_run("users", "list", *data, "--json").stdout) == {"users": []}


def test_a_locked_data_directory_is_a_clear_error(tmp_path: Path) -> None:
    from aclog.log import SegmentedLog

    with SegmentedLog(tmp_path):
        result = _run(
            "acls",
            "add",
            "--data-dir",
            str(tmp_path),
            "--allow-principal",
            "User:a",
            "--topic",
            "t",
        )
        listed = _run("acls", "list", "--data-dir", str(tmp_path), "--json")
    assert result.exit_code == 3 and "locked by another writer" in result.stderr
    assert listed.exit_code == 0 and json.loads(listed.stdout) == {"acls": []}


def test_demo_writes_and_shows_a_history(tmp_path: Path) -> None:
    result = _run("demo", "--data-dir", str(tmp_path / "d"))
    assert result.exit_code == 0, result.output
    assert "GLOB" in result.stdout and "by User:platform-admin" in result.stdout
    image = replay_log(tmp_path / "d")
    assert len(image.acls) == 6 and set(image.scram.users) == {"payments-svc", "ledger"}
    again = _run("demo", "--data-dir", str(tmp_path / "d"), "--no-show")
    assert "kept the existing log" in again.stdout
    assert replay_log(tmp_path / "d") == image
