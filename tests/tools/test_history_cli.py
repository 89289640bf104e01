"""``aclog replay``, ``verify``, ``diff``, ``snapshot`` and ``dump`` of snapshot files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from aclog.replay.rebuild import rebuild_image
from aclog.snapshot import list_snapshots
from aclog.tools.history import state_to_dict
from aclog.tools.main import app
from aclog.tools.points import format_time

runner = CliRunner()


def _run(*args: str) -> Any:
    return runner.invoke(app, list(args))


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    assert _run("demo", "--data-dir", str(tmp_path), "--no-show").exit_code == 0
    assert _run("snapshot", "create", "--data-dir", str(tmp_path)).exit_code == 0
    assert (
        _run(
            "acls",
            "add",
            "--data-dir",
            str(tmp_path),
            "--allow-principal",
            "User:late",
            "--operation",
            "Read",
            "--topic",
            "late",
        ).exit_code
        == 0
    )
    return tmp_path


def test_replay_json_equals_the_library_at_every_point(data_dir: Path) -> None:
    for offset in (None, 0, 8, 12, 17):
        args = [] if offset is None else ["--at-offset", str(offset)]
        result = _run("replay", "--data-dir", str(data_dir), "--json", *args)
        assert result.exit_code == 0, result.output
        expected = state_to_dict(rebuild_image(data_dir, at_offset=offset).image)
        assert json.loads(result.stdout) == expected
    latest = json.loads(_run("replay", "--data-dir", str(data_dir), "--json").stdout)
    assert set(latest) == {"offset", "epoch", "timestamp", "acls", "users"}
    assert "salt" not in json.dumps(latest["users"])
    assert "late" in {a["resource_name"] for a in latest["acls"]}


def test_verify_passes_then_reports_a_corrupt_snapshot(data_dir: Path) -> None:
    ok = _run("verify", "--data-dir", str(data_dir), "--json")
    assert ok.exit_code == 0 and json.loads(ok.stdout)["ok"] is True
    snapshot = list_snapshots(data_dir)[0].path
    data = bytearray(snapshot.read_bytes())
    data[-5] ^= 0x01
    snapshot.write_bytes(bytes(data))
    bad = _run("verify", "--data-dir", str(data_dir), "--json")
    assert bad.exit_code == 1
    assert json.loads(bad.stdout)["problems"]
    listed = json.loads(_run("snapshot", "list", "--data-dir", str(data_dir), "--json").stdout)
    assert [s["valid"] for s in listed["snapshots"]] == [False]
    assert _run("snapshot", "verify", "--data-dir", str(data_dir)).exit_code == 1


def test_diff_names_who_and_when(data_dir: Path) -> None:
    result = _run("diff", "--data-dir", str(data_dir), "--from", "8", "--to", "100", "--json")
    assert result.exit_code == 0, result.output
    changes = json.loads(result.stdout)
    removed = [c for c in changes["acls"] if c["change"] == "removed"]
    assert [c["resource_name"] for c in removed] == ["audit"]
    assert removed[0]["author"]["principal"] == "User:security-oncall"
    added = [c["resource_name"] for c in changes["acls"] if c["change"] == "added"]
    assert added == ["late"]
    credentials = {(c["change"], c["name"], c["mechanism"]) for c in changes["credentials"]}
    assert ("added", "payments-svc", "SCRAM-SHA-512") in credentials


def test_diff_by_time(data_dir: Path) -> None:
    result = _run(
        "diff",
        "--data-dir",
        str(data_dir),
        "--from",
        "2000-01-01T00:00:00Z",
        "--to",
        "2999-01-01T00:00:00Z",
        "--json",
    )
    assert result.exit_code == 0
    assert len(json.loads(result.stdout)["acls"]) == 7
    bad = _run("diff", "--data-dir", str(data_dir), "--from", "yesterday", "--to", "5")
    assert bad.exit_code == 2 and "2026-11-21T10:00:00Z" in bad.stderr


def test_explain_and_list_as_of_an_offset(data_dir: Path) -> None:
    args = (
        "--principal",
        "User:late",
        "--host",
        "1.1.1.1",
        "--operation",
        "Read",
        "--topic",
        "late",
        "--json",
    )
    now = json.loads(_run("explain", "--data-dir", str(data_dir), *args).stdout)
    before = json.loads(
        _run("explain", "--data-dir", str(data_dir), *args, "--at-offset", "17").stdout
    )
    assert (now["decision"], before["decision"]) == ("ALLOWED", "DENIED")
    listed = _run("acls", "list", "--data-dir", str(data_dir), "--at-offset", "8", "--json")
    assert len(json.loads(listed.stdout)["acls"]) == 7


def test_dump_reads_a_snapshot_file(data_dir: Path) -> None:
    snapshot = list_snapshots(data_dir)[0]
    result = _run("dump", str(snapshot.path), "--json")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert {line["offset"] for line in lines} == {snapshot.last_offset}
    assert {line["type"] for line in lines} == {
        "AccessControlEntryRecord",
        "UserScramCredentialRecord",
    }
    assert all(line["data"].get("salt", "(redacted)") == "(redacted)" for line in lines)


def test_snapshot_create_rows_writes_a_row_of_named_fields_per_record(tmp_path: Path) -> None:
    import fastavro

    assert _run("demo", "--data-dir", str(tmp_path), "--no-show").exit_code == 0
    result = _run("snapshot", "create", "--rows", "--json", "--data-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    with open(json.loads(result.stdout)["path"], "rb") as file:
        rows = list(fastavro.reader(file, return_record_name=True))
    acls = [fields for name, fields in rows if name == "aclog.records.AccessControlEntryRecord"]
    image = rebuild_image(tmp_path).image
    assert sorted(a["resource_name"] for a in acls) == sorted(a.resource_name for a in image.acls)
    assert rebuild_image(tmp_path).snapshot is not None  # and it loads as the newest snapshot


def test_diff_of_an_empty_log_says_so_once(tmp_path: Path) -> None:
    result = _run("diff", "--data-dir", str(tmp_path), "--from", "0", "--to", "5")
    assert result.exit_code == 0, result.output
    assert result.stderr.count("aclog: note: the log is empty") == 1, result.stderr


def test_diff_text_says_what_the_json_says(tmp_path: Path) -> None:
    """Each line keeps the ACL's host (a DENY from one address is not a DENY from everywhere),
    who asked, from where, with which client, when and at which offset."""
    data = ("--data-dir", str(tmp_path / "d"))
    _run("acls", "add", *data, "--deny-principal", "User:x", "--deny-host", "10.1.1.1",
         "--operation", "Read", "--topic", "t")  # fmt: skip
    text = _run("diff", *data, "--from", "0", "--to", "2").stdout.splitlines()
    [change] = json.loads(_run("diff", *data, "--from", "0", "--to", "2", "--json").stdout)["acls"]
    assert text[1].strip() == (
        "added   DENY User:x READ from 10.1.1.1 on TOPIC:LITERAL:t by "
        f"{change['author']['principal']} from local (aclog-cli, aclog acls add) at offset 2, "
        f"{format_time(change['timestamp'])}"
    )
    assert "net" in _run("diff", "--help").stdout
