"""The conventions users bring from other tools: ``--version``, ``-h``, shell completion,
``python -m aclog``, help that reads like Unix help and names exit codes, and environment
variables for the data directory and the cluster."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.tools.help import readable_range, reflow, value_label
from aclog.tools.main import app

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
TYPER_LABELS = re.compile(r"<(bool|int|str|path|float|list\[[^]]*\]|int range|uuid)>|x[<>]=")


def _command_paths() -> list[list[str]]:
    """Every command and group of the CLI, as the words that name it."""
    found: list[list[str]] = []

    def walk(command: object, path: list[str]) -> None:
        found.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


@pytest.mark.parametrize("path", _command_paths(), ids=lambda p: " ".join(p) or "aclog")
def test_help_has_unix_labels_and_exit_codes(path: list[str]) -> None:
    result = runner.invoke(app, [*path, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert not TYPER_LABELS.search(result.output), result.output
    assert "Exit codes: 0 ok, 1 " in result.output
    assert result.output == runner.invoke(app, [*path, "-h"], terminal_width=200).output


def test_value_labels_and_ranges_read_as_words() -> None:
    assert value_label("<int range>") == "N"
    assert value_label("<list[str]>") == "TEXT"
    assert value_label("<path>...") == "PATH..."
    assert readable_range("x>=0") == "0 or more"
    assert readable_range("1<=x<=5") == "1 to 5"
    dump_help = runner.invoke(app, ["dump", "--help"], terminal_width=200).output
    assert re.search(r"--from-offset\s+N \[0 or more\]", dump_help)
    assert re.search(r"--json\s+One JSON object", dump_help)  # a flag has no label


def test_help_paragraphs_have_no_hard_line_breaks() -> None:
    assert reflow("one\n    two\n\nthree\nfour") == "one two\n\nthree four"
    listing = runner.invoke(app, ["--help"], env={"COLUMNS": "300"}).output
    assert re.search(r"import\s+Import the ACLs .* into a new aclog log, keeping record", listing)


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"aclog {metadata.version('aclog')}\n"


def test_python_dash_m_aclog_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "aclog", "--version"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("aclog ")


def test_shell_completion_is_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "--install-completion" in runner.invoke(app, ["--help"]).output
    # Name the shell instead of letting typer guess it from the parent processes, which depends
    # on how the tests were started (a shell, make, CI's runner) and made this test flaky.
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    script = runner.invoke(app, ["--show-completion", "bash"], prog_name="aclog")
    assert script.exit_code == 0, script.output
    assert "_ACLOG_COMPLETE=complete_bash" in script.output


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    binding = AclBinding(
        ResourceType.TOPIC,
        "orders",
        PatternType.LITERAL,
        "User:alice",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )
    with Controller.open(tmp_path / "data", authorizer=LocalOperator()) as controller:
        controller.create_acls([binding], Caller("User:admin", "10.0.0.1", "t", "CreateAcls"))
    return tmp_path / "data"


def test_every_data_dir_command_honours_aclog_data_dir(data_dir: Path) -> None:
    env = {"ACLOG_DATA_DIR": str(data_dir)}
    asks = {
        ("replay", "--json"): lambda out: len(json.loads(out)["acls"]) == 1,
        ("acls", "list", "--json"): lambda out: len(json.loads(out)["acls"]) == 1,
        ("verify", "--json"): lambda out: json.loads(out)["ok"],
        (
            "explain",
            "--principal",
            "User:alice",
            "--host",
            "10.0.0.9",
            "--operation",
            "Read",
            "--topic",
            "orders",
            "--json",
        ): lambda out: json.loads(out)["decision"] == "ALLOWED",
    }
    asks[("who-can", "--operation", "Read", "--topic", "orders", "--json")] = lambda out: (
        "User:alice" in out
    )
    asks[("reach", "--principal", "User:alice", "--json")] = lambda out: "orders" in out
    asks[("lint", "--json")] = lambda out: isinstance(json.loads(out), dict)
    asks[("timeline", "--principal", "User:alice", "--operation", "Read", "--topic", "orders",
          "--json")] = lambda out: "flips" in out or "changes" in out or "[" in out  # fmt: skip
    for argv, check in asks.items():
        result = runner.invoke(app, list(argv), env=env)
        assert result.exit_code == 0 and check(result.stdout), (argv, result.output)


def _commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every leaf command of a click group (typer's click, duck-typed), with its path."""
    found = []
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            found += _commands(command, (*path, name))
        else:
            found.append(((*path, name), command))
    return found


def _reads_environment(param: Any) -> bool:
    return param.envvar == "ACLOG_DATA_DIR" or "$ACLOG_DATA_DIR" in (param.help or "")


def test_no_data_dir_option_ignores_the_environment() -> None:
    """Every command's --data-dir reads ACLOG_DATA_DIR, or says it does and reads it itself."""
    ignoring = [
        " ".join(path)
        for path, command in _commands(typer.main.get_command(app))
        for param in command.params
        if "--data-dir" in getattr(param, "opts", ()) and not _reads_environment(param)
    ]
    assert ignoring == []


def _silent_port() -> int:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_cluster_and_its_config_come_from_the_environment(tmp_path: Path) -> None:
    config = tmp_path / "fast.properties"
    config.write_text("default.api.timeout.ms=1000\nrequest.timeout.ms=1000\nretries=2\n")
    port = _silent_port()
    env = {"ACLOG_BOOTSTRAP_SERVER": f"127.0.0.1:{port}", "ACLOG_COMMAND_CONFIG": str(config)}
    result = runner.invoke(app, ["users", "list"], env=env)
    assert result.exit_code == 3, result.output
    assert f"cannot connect to 127.0.0.1:{port}: no answer within 1 s" in result.stderr
    assert "ignoring property retries" in result.stderr  # the config file was read


def test_flags_win_over_the_environment_and_two_targets_there_are_refused(
    data_dir: Path,
) -> None:
    env = {"ACLOG_BOOTSTRAP_SERVER": "127.0.0.1:9", "ACLOG_COMMAND_CONFIG": "/nonexistent"}
    local = runner.invoke(app, ["users", "list", "--data-dir", str(data_dir), "--json"], env=env)
    assert local.exit_code == 0 and json.loads(local.stdout) == {"users": []}
    both = runner.invoke(app, ["acls", "list"], env={**env, "ACLOG_DATA_DIR": str(data_dir)})
    assert both.exit_code == 2
    assert "both ACLOG_DATA_DIR and ACLOG_BOOTSTRAP_SERVER are set" in both.stderr


def test_help_keeps_every_option_name_whole_at_80_columns() -> None:
    """Option names and the words of their help are never cut with an ellipsis, so they can be
    copied from an 80-column terminal (a long word folds onto the next line instead)."""
    for path, command in _commands(typer.main.get_command(app)):
        shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
        assert shown.exit_code == 0, (path, shown.output)
        assert "…" not in shown.stdout, (path, shown.stdout)
        names = [o for p in command.params for o in getattr(p, "opts", ()) if o.startswith("--")]
        missing = [name for name in names if name not in shown.stdout]
        assert missing == [], (path, missing)
