"""``aclog verify`` and ``aclog dump`` on a log holding a deposed leader's appends after the next
segment's base: reported as fenced, never as damage, and never listed or replayed."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    NoOpRecord,
    PatternType,
    ResourceType,
    encode,
)
from tests.log.fenced_log import fenced_log
from tests.tools.harness import run_main


def _acl(name: str) -> bytes:
    return encode(
        AccessControlEntryRecord(
            uuid.UUID(int=len(name)),
            ResourceType.TOPIC,
            name,
            PatternType.LITERAL,
            "User:alice",
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        )
    )


def _log(tmp_path: Path) -> Path:
    directory = tmp_path / "data"
    fenced_log(
        directory, [[encode(NoOpRecord())], [_acl("kept")]], [[_acl("stale")]], [[_acl("new")]]
    )
    return directory


def test_verify_reports_fenced_bytes_as_a_warning_not_a_problem(tmp_path: Path) -> None:
    run = run_main("verify", "--data-dir", str(_log(tmp_path)), "--json")
    report = json.loads(run.stdout)
    assert run.code == 0, run
    assert report["ok"] and report["batches"] == 3
    assert any("are fenced" in warning for warning in report["warnings"])


def test_dump_lists_no_stale_record_and_says_what_was_fenced(tmp_path: Path) -> None:
    run = run_main("dump", str(_log(tmp_path)), "--json")
    assert run.code == 0, run
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert [(row["offset"], row["epoch"]) for row in rows] == [(0, 1), (1, 1), (2, 2)]
    assert [row["data"].get("resource_name") for row in rows] == [None, "kept", "new"]
    assert "are fenced" in run.stderr
