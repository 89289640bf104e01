"""``aclog who-can``, ``aclog reach`` and ``aclog lint`` against a real data directory: ``--json``
equals the library's result, the text reads as a listing, usage errors exit 2, ``lint
--fail-on`` gates CI, and none of them writes to the data directory."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time
from typer.testing import CliRunner

from aclog.authorizer import Authorizer
from aclog.controller.controller import replay_log
from aclog.questions.hygiene import lint_directory
from aclog.questions.reach import reach
from aclog.questions.who_can import who_can
from aclog.records import AclOperation, ResourceType
from aclog.tools.main import app
from tests.tools.harness import run_main

runner = CliRunner()


def _run(*args: str) -> Any:
    return runner.invoke(app, list(args))


def _ok(*args: str) -> Any:
    result = _run(*args)
    assert result.exit_code == 0, result.output
    return result


def _add(data_dir: Path, *args: str) -> None:
    _ok("acls", "add", "--data-dir", str(data_dir), *args)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    _add(
        tmp_path,
        "--allow-principal",
        "User:*",
        "--operation",
        "Read",
        "--topic",
        "ord",
        "--resource-pattern-type",
        "prefixed",
    )
    _add(tmp_path, "--deny-principal", "User:bob", "--operation", "Read", "--topic", "orders")
    _add(
        tmp_path,
        "--allow-principal",
        "User:alice",
        "--allow-host",
        "10.0.0.1",
        "--operation",
        "Write",
        "--topic",
        "orders",
    )
    _ok(
        "users",
        "set",
        "weak",
        "--mechanism",
        "SCRAM-SHA-256",
        "--iterations",
        "4096",
        "--password",
        "pw",
        "--data-dir",
        str(tmp_path),
    )
    return tmp_path


def _authorizer(data_dir: Path, super_users: set[str] | None = None) -> Authorizer:
    authorizer = Authorizer(super_users or set())
    authorizer.load(replay_log(data_dir).acls)
    return authorizer


def _files(directory: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in directory.iterdir()}


def test_who_can_json_equals_the_library_and_text_lists_rows(data_dir: Path) -> None:
    args = ("who-can", "--data-dir", str(data_dir), "--operation", "Read", "--topic", "orders")
    got = json.loads(_ok(*args, "--json", "--super-users", "User:admin").stdout)
    expected = who_can(
        _authorizer(data_dir, {"User:admin"}), AclOperation.READ, ResourceType.TOPIC, "orders"
    )
    assert got == expected.to_dict()
    assert [(r["principal"], r["principal_kind"]) for r in got["allowed"]] == [
        ("User:admin", "super_user"),
        ("User:*", "any"),
    ]
    assert [r["principal"] for r in got["denied"]] == ["User:bob"]
    text = _ok(*args).stdout
    assert "who can READ on topic 'orders' (from any host):" in text
    assert "any principal" in text and "denied by a DENY although any principal is allowed" in text
    write = _ok("who-can", "--data-dir", str(data_dir), "--operation", "Write", "--topic", "orders")
    assert "User:alice" in write.stdout and "from 10.0.0.1" in write.stdout


def test_who_can_as_of_an_offset_and_from_a_host(data_dir: Path) -> None:
    args = ("who-can", "--data-dir", str(data_dir), "--operation", "Read", "--topic", "orders")
    before_deny = json.loads(_ok(*args, "--json", "--at-offset", "3").stdout)
    assert before_deny["denied"] == []
    elsewhere = json.loads(
        _ok(
            *args[:-4], "--operation", "Write", "--topic", "orders", "--host", "10.0.0.2", "--json"
        ).stdout
    )
    assert elsewhere["allowed"] == [] and elsewhere["host"] == "10.0.0.2"


def test_who_can_usage_errors(data_dir: Path) -> None:
    base = ("who-can", "--data-dir", str(data_dir), "--operation")
    two = _run(*base, "Read", "--topic", "a", "--group", "b")
    assert two.exit_code == 2 and "exactly one resource" in two.stderr
    bad = _run(*base, "Fly", "--topic", "a")
    assert bad.exit_code == 2
    missing = _run(
        "who-can", "--data-dir", str(data_dir / "nope"), "--operation", "Read", "--topic", "a"
    )
    assert missing.exit_code == 2


def test_reach_json_equals_the_library_per_pattern_and_per_name(
    data_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    args = ("reach", "--data-dir", str(data_dir), "--principal", "User:bob")
    got = json.loads(_ok(*args, "--json").stdout)
    assert got == reach(_authorizer(data_dir), "User:bob").to_dict()
    (entry,) = got["resources"]
    assert entry["description"] == "every topic starting with 'ord'"
    assert [e["description"] for e in entry["exclusions"]] == ["topic 'orders'"]
    text = _ok(*args).stdout
    assert "except topic 'orders': READ denied by DENY READ" in text
    inventory = tmp_path_factory.mktemp("inv") / "topics.txt"
    inventory.write_text("TOPIC:orders\nTOPIC:order-x\nGROUP:g\n")
    per_name = json.loads(_ok(*args, "--inventory", str(inventory), "--json").stdout)
    names = [
        (ResourceType.TOPIC, "orders"),
        (ResourceType.TOPIC, "order-x"),
        (ResourceType.GROUP, "g"),
    ]
    assert per_name == reach(_authorizer(data_dir), "User:bob", inventory=names).to_dict()
    assert [r["resource_name"] for r in per_name["resources"]] == ["orders", "order-x"]
    groups = json.loads(_ok(*args, "--resource-type", "group", "--json").stdout)
    assert groups["resources"] == [] and groups["resource_types"] == ["GROUP"]


def test_reach_usage_errors_and_super_users(data_dir: Path, tmp_path: Path) -> None:
    args = ("reach", "--data-dir", str(data_dir), "--principal", "User:bob")
    assert _run(*args, "--resource-type", "planet").exit_code == 2
    bad = tmp_path / "bad.txt"
    bad.write_text("nonsense\n")
    bad_inventory = _run(*args, "--inventory", str(bad))
    assert bad_inventory.exit_code == 2 and "bad.txt:1" in bad_inventory.stderr
    admin = _ok(
        "reach",
        "--data-dir",
        str(data_dir),
        "--principal",
        "User:admin",
        "--super-users",
        "User:admin",
    )
    assert "is a super user" in admin.stdout


@pytest.mark.parametrize(
    ("question", "refused"),
    [
        (("reach", "--principal", "bob"), "Invalid principal 'bob'"),
        (("reach", "--principal", "User:bob", "--host", "localhost"), "Invalid host 'localhost'"),
        (("who-can", "--operation", "Read", "--topic", "orders", "--host", "db1"), "'db1'"),
    ],
)
def test_a_principal_or_host_no_acl_could_name_is_a_usage_error(
    data_dir: Path, question: tuple[str, ...], refused: str
) -> None:
    # As explain and timeline refuse them: answering "nothing" for 'bob' (not User:bob) or for
    # a host name (never a client address) read as a real answer.
    result = _run(question[0], "--data-dir", str(data_dir), *question[1:])
    assert result.exit_code == 2, result.stdout
    assert refused in result.stderr and result.stdout == ""


def test_lint_json_equals_the_library_and_fail_on_gates(data_dir: Path) -> None:
    args = ("lint", "--data-dir", str(data_dir))
    got = json.loads(_ok(*args, "--json").stdout)
    assert got == lint_directory(data_dir).to_dict()
    assert {f["kind"] for f in got["findings"]} == {"any_principal", "weak_iterations"}
    assert got["counts"] == {"info": 0, "warning": 2, "error": 0}
    text = _ok(*args).stdout
    assert "WARNING  weak_iterations" in text
    assert "3 ACLs and 1 SCRAM credential checked: 0 errors, 2 warnings, 0 info" in text
    assert _run(*args, "--fail-on", "warning").exit_code == 1
    assert _run(*args, "--fail-on", "error").exit_code == 0
    assert _run(*args, "--min-iterations", "4096", "--fail-on", "WARNING").exit_code == 1
    assert _run(*args, "--fail-on", "loud").exit_code == 2
    assert _run("lint", "--data-dir", str(data_dir / "nope")).exit_code == 2


def test_lint_takes_one_point_and_says_where_it_landed(data_dir: Path) -> None:
    # as replay, who-can and reach: one point, and a note when it is not quite the point asked
    args = ("lint", "--data-dir", str(data_dir))
    both = _run(*args, "--at-offset", "3", "--at-time", "2026-01-01")
    assert both.exit_code == 2 and "not both" in both.stderr
    early = _ok(*args, "--at-time", "2000-01-01T00:00:00Z")
    assert "aclog: note: the log starts at" in early.stderr
    assert "0 ACLs and 0 SCRAM credentials checked" in early.stdout
    late = _ok(*args, "--at-offset", "999999")
    assert "aclog: note: offset 999999 is past the end of the log" in late.stderr
    assert late.stdout == _ok(*args).stdout
    missing = _run("lint", "--data-dir", str(data_dir / "nope"))
    assert "it does not exist" in missing.stderr


def test_lint_stale_credentials_by_now(data_dir: Path) -> None:
    args = ("lint", "--data-dir", str(data_dir), "--max-credential-age-days", "90", "--json")
    fresh = json.loads(_ok(*args).stdout)
    assert "stale_credential" not in {f["kind"] for f in fresh["findings"]}
    with freeze_time(datetime.now(UTC) + timedelta(days=100)):
        later = json.loads(_ok(*args).stdout)
    (stale,) = [f for f in later["findings"] if f["kind"] == "stale_credential"]
    assert stale["user"] == "weak" and stale["mechanism"] == "SCRAM-SHA-256"


def test_clean_acls_lint_clean(tmp_path: Path) -> None:
    _add(tmp_path, "--allow-principal", "User:alice", "--operation", "Read", "--topic", "t")
    result = _ok("lint", "--data-dir", str(tmp_path), "--fail-on", "info")
    assert "1 ACL and 0 SCRAM credentials checked: no findings" in result.stdout


def test_the_questions_never_write(data_dir: Path) -> None:
    before = _files(data_dir)
    _ok("who-can", "--data-dir", str(data_dir), "--operation", "Read", "--topic", "orders")
    _ok("reach", "--data-dir", str(data_dir), "--principal", "User:alice")
    _ok("lint", "--data-dir", str(data_dir), "--max-credential-age-days", "1")
    assert _files(data_dir) == before


EVIL_TOPIC = "evil\nALLOW User:mallory ALL\r\x00\x1b[2J"
EVIL_PRINCIPAL = "User:op\x1b]0;owned\x07"


def test_names_from_the_log_are_shown_escaped(tmp_path: Path) -> None:
    _add(
        tmp_path,
        "--allow-principal",
        EVIL_PRINCIPAL,
        "--operation",
        "Delete",
        "--topic",
        EVIL_TOPIC,
    )
    _ok(
        "users",
        "set",
        "ev\nil\x1b[31m",
        "--mechanism",
        "SCRAM-SHA-256",
        "--iterations",
        "4096",
        "--password",
        "pw",
        "--data-dir",
        str(tmp_path),
    )
    for args in (
        ("who-can", "--operation", "Delete", "--topic", EVIL_TOPIC),
        ("reach", "--principal", EVIL_PRINCIPAL),
        ("lint",),
    ):
        shown = _ok(args[0], "--data-dir", str(tmp_path), *args[1:]).stdout
        lines = shown.splitlines()
        assert shown == "".join(f"{line}\n" for line in lines)  # only \n ends lines
        assert all(line.isprintable() for line in lines), lines
        assert not any(line.startswith("ALLOW User:mallory") for line in lines)


@pytest.mark.parametrize(
    "question",
    [
        ("explain", "--principal", "User:a", "--host", "10.0.0.1", "--operation", "Read"),
        ("who-can", "--operation", "Read"),
        ("timeline", "--principal", "User:a", "--operation", "Read"),
    ],
    ids=lambda q: q[0],
)
def test_a_question_about_an_empty_name_is_refused(data_dir: Path, question: tuple[str]) -> None:
    # no ACL can name '' (acls add refuses it), so an answer ('nobody', DENIED) was about nothing
    result = _run(*question, "--data-dir", str(data_dir), "--topic", "")
    assert result.exit_code == 2 and result.stdout == ""
    assert "--topic: the resource name is empty" in result.stderr


def test_lint_text_groups_a_flood_and_filters_by_severity(tmp_path: Path) -> None:
    """Role shortcuts make one redundant DESCRIBE per topic: the text lists a few and counts the
    rest; --all lists them all, --show warning none, and --json always has every finding."""
    data = ("--data-dir", str(tmp_path / "d"))
    topics = [arg for i in range(30) for arg in ("--topic", f"t{i}")]
    made = run_main("acls", "add", *data, "--allow-principal", "User:c", "--consumer", *topics,
                    "--group", "g")  # fmt: skip
    assert made.code == 0, made.stderr
    lines = run_main("lint", *data).stdout.splitlines()
    assert len([line for line in lines if line.startswith("INFO")]) == 5
    assert "… and 25 more redundant_acl (info); --all lists every one" in lines[5]
    every = run_main("lint", *data, "--all").stdout.splitlines()
    assert len([line for line in every if line.startswith("INFO")]) == 30
    quiet = run_main("lint", *data, "--show", "warning").stdout.splitlines()
    assert quiet[-1] == "(30 below warning not listed: --show info lists them)"
    findings = json.loads(run_main("lint", *data, "--json").stdout)["findings"]
    assert len(findings) == 30
