"""Names with control characters, rich markup or ``:emoji:`` codes in text output: every command
shows them escaped on their own line, literally; ``--json`` keeps them exact.

Kafka accepts such names, so a crafted topic could otherwise forge lines an operator reads
(``\\n``, ``\\r``), clear or retitle the terminal (``\\x1b[2J``), or restyle the output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from aclog.controller import upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator, replay_log
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
    record_to_dict,
)
from aclog.tools.main import app
from aclog.tools.pipeline import output as pipeline_output
from aclog.tools.visible import visible

runner = CliRunner()
FORGED = "\nALLOW User:mallory ALL from * on CLUSTER:LITERAL:kafka-cluster"
NAME = f"evil{FORGED}\r\x00\x1b[2J"
PRINCIPAL = "User:op\x1b]0;owned\x07"
MARKUP = "[bold]pay[/] :thumbs_up:"
CLIENT_ID = "client\r\nid"
USER = "ev\nil\x1b[31m"


def _binding(name: str) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC,
        name,
        PatternType.LITERAL,
        PRINCIPAL,
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    caller = Caller("User:admin\x1b[8m", "10.0.0.1", CLIENT_ID, "CreateAcls")
    with Controller.open(tmp_path, authorizer=LocalOperator()) as controller:
        created = controller.create_acls([_binding(NAME), _binding(MARKUP)], caller)
        upsertion = upsertion_for_password(USER, ScramMechanism.SCRAM_SHA_256, "pw")
        altered = controller.alter_scram([upsertion], [], caller)
    assert all(r.error.is_success for r in [*created, *altered])
    return tmp_path


def _lines(*args: str) -> list[str]:
    """The command's stdout lines, after checking that nothing in it is a control character
    (line breaks aside) and that it succeeded."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert result.stdout == "".join(f"{line}\n" for line in lines)  # only \n ends lines
    assert all(line.isprintable() for line in lines), lines
    return lines


def _json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return result.stdout


def _acl_text(name: str) -> str:
    return f"ALLOW {visible(PRINCIPAL)} READ from * on TOPIC:LITERAL:{visible(name)}"


def test_acls_list(data_dir: Path) -> None:
    lines = _lines("acls", "list", "--data-dir", str(data_dir))
    assert lines == [_acl_text(NAME), _acl_text(MARKUP), "2 ACLs"]
    assert MARKUP in lines[1]  # neither styled nor turned into an emoji
    expected = {"acls": [record_to_dict(acl) for acl in replay_log(data_dir).acls]}
    shown = _json("acls", "list", "--data-dir", str(data_dir))
    assert shown == json.dumps(expected, indent=2) + "\n"
    assert [acl["resource_name"] for acl in json.loads(shown)["acls"]] == [NAME, MARKUP]


def test_dump(data_dir: Path) -> None:
    lines = _lines("dump", str(data_dir))
    authored = [line for line in lines if line.startswith("batch") and " by " in line]
    assert authored and all(visible(CLIENT_ID) in line for line in authored)
    (acl_line,) = [line for line in lines if f"resource_name={visible(NAME)} " in line]
    assert f"principal={visible(PRINCIPAL)} " in acl_line
    assert any(f"name={visible(USER)} " in line for line in lines)
    assert not any(line.startswith("ALLOW User:mallory") for line in lines)
    records = [json.loads(line) for line in _json("dump", str(data_dir)).splitlines()]
    acls = [r["data"] for r in records if r["type"] == "AccessControlEntryRecord"]
    assert [(acl["resource_name"], acl["principal"]) for acl in acls] == [
        (NAME, PRINCIPAL),
        (MARKUP, PRINCIPAL),
    ]
    assert {r["author"]["client_id"] for r in records if "author" in r} == {CLIENT_ID}


def test_replay(data_dir: Path) -> None:
    lines = _lines("replay", "--data-dir", str(data_dir))
    assert lines[1:] == [
        f"  {_acl_text(NAME)}",
        f"  {_acl_text(MARKUP)}",
        f"  user {visible(USER)}: SCRAM-SHA-256",
    ]
    state = json.loads(_json("replay", "--data-dir", str(data_dir)))
    assert [acl["resource_name"] for acl in state["acls"]] == [NAME, MARKUP]
    assert [user["name"] for user in state["users"]] == [USER]


def test_explain(data_dir: Path) -> None:
    question = ["--principal", PRINCIPAL, "--host", "10.0.0.1", "--operation", "Read"]
    lines = _lines("explain", "--data-dir", str(data_dir), *question, "--topic", NAME)
    assert len(lines) == 2 and lines[0].startswith("ALLOWED: allowed by ALLOW rule READ")
    assert lines[1].startswith(f"  matches ALLOW READ on LITERAL '{visible(NAME)}' for ")
    assert f"for {visible(PRINCIPAL)} from *" in lines[1]
    shown = json.loads(_json("explain", "--data-dir", str(data_dir), *question, "--topic", NAME))
    assert shown["deciding_acl"]["resource_name"] == NAME


def test_diff_and_users_list(data_dir: Path) -> None:
    lines = _lines("diff", "--data-dir", str(data_dir), "--from", "0", "--to", "100")
    assert len(lines) == 4  # the range, two ACLs and the credential
    assert lines[1].startswith(
        f"  added   ALLOW {visible(PRINCIPAL)} READ from * on TOPIC:LITERAL:"
    )
    assert f"by {visible('User:admin' + chr(27) + '[8m')} from 10.0.0.1" in lines[1]
    assert _lines("users", "list", "--data-dir", str(data_dir)) == [
        f"{visible(USER)}: SCRAM-SHA-256 (8192 iterations)",
        "1 SCRAM user",
    ]


def test_lists_of_an_empty_log_say_so(tmp_path: Path) -> None:
    # 'users list' printed nothing on an empty log (while 'acls list' printed '0 ACLs')
    Controller.open(tmp_path, authorizer=LocalOperator()).close()
    assert _lines("acls", "list", "--data-dir", str(tmp_path)) == ["0 ACLs"]
    assert _lines("users", "list", "--data-dir", str(tmp_path)) == ["0 SCRAM users"]


def test_error_messages_are_not_rich_markup(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["acls", "list", "--data-dir", str(tmp_path), "--resource-pattern-type", "[/]\x1b"]
    )
    assert result.exit_code == 2, result.output  # not a crash on an unbalanced tag
    assert "[/]" in result.stderr and "\x1b" not in result.stderr


def test_pipeline_tables_show_cells_literally(capsys: pytest.CaptureFixture[str]) -> None:
    pipeline_output.show_rows(
        [{"principal": "x\x1b[2J", "name": "[red]y[/]"}], ["principal", "name"], 5, "t"
    )
    shown = capsys.readouterr().out
    assert "x\\x1b[2J" in shown and "[red]y[/]" in shown and "\x1b" not in shown
