"""Option values are checked by one rule wherever they appear, and failures say what to do.

A query (``explain``, ``acls list``) refuses a host or operation that ``acls add`` would refuse,
with the same words, instead of answering about an ACL no one could create; ``acls list`` refuses
such a principal too, but ``explain``, ``timeline`` and ``reach`` ask about a *caller*, which
may be ``User:`` (answered as Kafka answers it) and must only be ``Type:name``; the
``--operation`` error lists exactly what the command accepts; a request over Kafka's 10,000
records is said once; ``acls remove`` asks on a terminal and refuses elsewhere; ``import``
names the KRaft record types it skips.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import aclog.tools.acls_removing
from aclog.controller.controller import Controller, LocalOperator
from aclog.kraft.writer import LogBuilder
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from tests.kraft.fakes import other_record
from tests.tools.harness import run_main, tree_digest

ASK = ("--host", "10.0.0.1", "--operation", "Read", "--topic", "orders")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "data"
    assert run_main("demo", "--data-dir", str(directory), "--no-show").code == 0
    return directory


def _add_error(data_dir: Path, *options: str) -> str:
    """The message ``acls add`` gives for the ACL that ``options`` describe."""
    result = run_main("acls", "add", "--data-dir", str(data_dir), "--topic", "orders", *options)
    assert result.code == 1
    found = re.search(r"INVALID_REQUEST \(42\): (.*)", result.stderr)
    assert found is not None, result.stderr
    return found.group(1)


def test_list_refuses_the_principal_add_refuses_with_the_same_words(data_dir: Path) -> None:
    refused = _add_error(data_dir, "--allow-principal", "ledger")
    listed = run_main("acls", "list", "--data-dir", str(data_dir), "--principal", "ledger")
    assert listed.code == 2 and listed.stdout == ""
    assert f"--principal: {refused}" in listed.stderr


def test_a_caller_without_a_colon_is_a_usage_error(data_dir: Path) -> None:
    for command in (("explain", *ASK), ("timeline", *ASK), ("reach", "--host", "10.0.0.1")):
        result = run_main(*command, "--data-dir", str(data_dir), "--principal", "ledger")
        assert result.code == 2 and result.stdout == "", command
        assert "--principal: Invalid principal 'ledger': a caller's principal is Type:name" in (
            result.stderr
        )


def test_explain_answers_a_caller_named_user_colon_as_kafkas_authorizer_does(
    tmp_path: Path,
) -> None:
    """Kafka's StandardAuthorizer applies a ``User:*`` ACL to the session principal ``User:``
    and denies it when no ACL applies (compared with Kafka's own class in
    tests/kafka_real/test_caller_principal.py); only creating an ACL *for* ``User:`` is
    refused."""
    data = str(tmp_path / "data")
    add = ("acls", "add", "--data-dir", data, "--operation", "Read")
    assert run_main(*add, "--allow-principal", "User:*", "--topic", "orders").code == 0
    assert run_main(*add, "--allow-principal", "User:alice", "--topic", "private").code == 0
    assert run_main(*add, "--allow-principal", "User:", "--topic", "orders").code == 1
    answers = {}
    for caller, topic, extra in (
        ("User:", "orders", ()),
        ("User:", "private", ()),
        ("User:", "private", ("--super-users", "User:")),
        (":x", "orders", ()),
    ):
        explain = ("explain", "--data-dir", data, "--host", "10.0.0.1", "--operation", "Read")
        result = run_main(*explain, "--principal", caller, "--topic", topic, *extra, "--json")
        assert result.code == 0, result.stderr
        answer = json.loads(result.stdout)
        deciding = answer["deciding_acl"]
        answers[caller, topic, bool(extra)] = (
            answer["decision"],
            deciding and deciding["principal"],
        )
    assert answers == {
        ("User:", "orders", False): ("ALLOWED", "User:*"),
        ("User:", "private", False): ("DENIED", None),
        ("User:", "private", True): ("ALLOWED", None),
        (":x", "orders", False): ("ALLOWED", "User:*"),
    }
    for command in (("timeline", *ASK), ("reach", "--host", "10.0.0.1")):
        asked = run_main(*command, "--data-dir", data, "--principal", "User:", "--json")
        assert asked.code == 0, (command, asked.stderr)


def test_explain_refuses_the_host_add_refuses_with_the_same_words(data_dir: Path) -> None:
    refused = _add_error(data_dir, "--allow-principal", "User:a", "--allow-host", "myhost")
    result = run_main(
        "explain", "--data-dir", str(data_dir), "--principal", "User:a", "--host", "myhost",
        "--operation", "Read", "--topic", "orders",
    )  # fmt: skip
    assert result.code == 2 and f"--host: {refused}" in result.stderr


ACCEPTED = (
    "ALL, READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, "
    "ALTER_CONFIGS, IDEMPOTENT_WRITE, CREATE_TOKENS, DESCRIBE_TOKENS"
)


@pytest.mark.parametrize("name", ["Any", "unknown", "Reed"])
@pytest.mark.parametrize(
    "line",
    [
        ("explain", "--principal", "User:a", "--host", "10.0.0.1", "--topic", "t"),
        ("acls", "add", "--allow-principal", "User:a", "--topic", "t"),
        ("acls", "remove", "--topic", "t", "--force"),
    ],
    ids=lambda line: " ".join(line[:2]),
)
def test_the_operation_error_lists_exactly_what_is_accepted(
    data_dir: Path, line: tuple[str, ...], name: str
) -> None:
    before = tree_digest(data_dir)
    result = run_main(*line, "--data-dir", str(data_dir), "--operation", name)
    assert result.code == 2, result.stderr
    assert f"use one of: {ACCEPTED}" in result.stderr
    assert "UNKNOWN" not in result.stderr.replace(name, "") and "ANY," not in result.stderr
    assert tree_digest(data_dir) == before


def test_an_add_over_kafkas_cap_says_so_once_and_creates_nothing(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    topics = [arg for n in range(10_200) for arg in ("--topic", f"t{n}")]
    result = run_main(
        "acls", "add", "--data-dir", str(data_dir), "--allow-principal", "User:a",
        "--operation", "Read", *topics,
    )  # fmt: skip
    assert result.code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines[:3]
    assert "names 10,200 ACLs" in lines[0] and "at most 10,000 records per request" in lines[0]
    assert "split it into commands" in lines[0]
    assert not data_dir.exists()


def test_the_cap_counts_only_acls_that_would_be_new(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    first = [arg for n in range(300) for arg in ("--topic", f"t{n}")]
    every = [arg for n in range(10_200) for arg in ("--topic", f"t{n}")]
    principal = ("--allow-principal", "User:a", "--operation", "Read")
    assert run_main("acls", "add", "--data-dir", str(data_dir), *principal, *first).code == 0
    result = run_main("acls", "add", "--data-dir", str(data_dir), *principal, *every, "--json")
    assert result.code == 0, result.stderr[:300]  # 9,900 new: under the cap
    assert len(json.loads(result.stdout)["results"]) == 10_200


def _acl(name: str) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC, name, PatternType.LITERAL, "User:a", "*", AclOperation.READ,
        AclPermissionType.ALLOW,
    )  # fmt: skip


def _names(data_dir: Path) -> list[str]:
    listed = run_main("acls", "list", "--data-dir", str(data_dir), "--json")
    return sorted(a["resource_name"] for a in json.loads(listed.stdout)["acls"])


@pytest.fixture
def two_acls(tmp_path: Path) -> Path:
    with Controller.open(tmp_path, authorizer=LocalOperator()) as controller:
        controller.create_acls([_acl("orders"), _acl("pay")])
    return tmp_path


@pytest.mark.parametrize(("answer", "code", "left"), [("y\n", 0, ["pay"]), ("n\n", 1, None)])
def test_remove_asks_on_a_terminal(
    two_acls: Path, monkeypatch: pytest.MonkeyPatch, answer: str, code: int, left: list[str] | None
) -> None:
    monkeypatch.setattr(aclog.tools.acls_removing, "on_terminal", lambda: True)
    result = run_main("acls", "remove", "--data-dir", str(two_acls), "--topic", "orders",
                      stdin=answer)  # fmt: skip
    assert result.code == code, result.stderr
    assert "ALLOW User:a READ from * on TOPIC:LITERAL:orders" in result.stdout
    assert "Remove this ACL? [y/N]" in result.stdout
    assert _names(two_acls) == (left if left is not None else ["orders", "pay"])


def test_remove_refuses_without_force_when_nobody_can_answer(two_acls: Path) -> None:
    result = run_main("acls", "remove", "--data-dir", str(two_acls), "--topic", "orders")
    assert result.code == 2
    assert "pass --force to confirm" in result.stderr
    assert _names(two_acls) == ["orders", "pay"]
    forced = run_main("acls", "remove", "--data-dir", str(two_acls), "--topic", "orders", "--force")
    assert forced.code == 0 and _names(two_acls) == ["pay"]


def test_remove_help_says_when_it_asks_and_when_it_refuses() -> None:
    words = run_main("acls", "remove", "--help").stdout.split()
    text = " ".join(word for word in words if word != "\u2502")  # without the panel's borders
    assert "asks on a terminal" in text and "refuses (exit 2) when stdin is not a terminal" in text


def test_import_names_the_kraft_record_types_it_skips(tmp_path: Path) -> None:
    source = tmp_path / "__cluster_metadata-0"
    log = LogBuilder(source)
    skipped = {23: "BeginTransactionRecord", 24: "EndTransactionRecord",
               25: "AbortTransactionRecord", 26: "RemoveDelegationTokenRecord",
               27: "RegisterControllerRecord"}  # fmt: skip
    log.data([other_record(key) for key in skipped], epoch=1, timestamp_ms=1_000)
    log.flush()
    result = run_main(
        "import", "--from-kraft", str(source), "--data-dir", str(tmp_path / "aclog"), "--json"
    )
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["skipped"] == dict.fromkeys(skipped.values(), 1)
    text = run_main("import", "--from-kraft", str(source), "--data-dir", str(tmp_path / "other"))
    assert "api key" not in text.stdout
    for name in skipped.values():
        assert f"{name} 1" in text.stdout
