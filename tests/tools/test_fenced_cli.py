"""``aclog verify`` and ``aclog dump`` on a log holding a deposed leader's appends after the next
segment's base: reported as fenced, never as damage, and never listed or replayed."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from aclog.log import SegmentedLog, list_segments
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


def test_verify_and_dump_name_a_set_aside_segment_in_one_line(tmp_path: Path) -> None:
    """A deposed leader's roll at offset 2, set aside by epoch 2's takeover (README, "Epoch
    fencing"): not part of the log, named once by each."""
    directory = _log(tmp_path)
    scratch = tmp_path / "deposed"
    with SegmentedLog(scratch, fsync=False) as log:
        log.append([encode(NoOpRecord())], 1)
        log.append([_acl("kept")], 1)
        log.roll()
        log.append([_acl("stale")], 1)  # offset 2, in its own segment
    aside = directory / "00000000000000000002.log.fenced-by-epoch-0000000002"
    aside.write_bytes(list_segments(scratch)[-1][1].read_bytes())
    aside.chmod(0o600)
    run = run_main("verify", "--data-dir", str(directory), "--json")
    assert run.code == 0, run
    (line,) = [w for w in json.loads(run.stdout)["warnings"] if aside.name in w]
    assert "offsets up to 2" in line and "not part of the log" in line
    dumped = run_main("dump", str(directory), "--json")
    assert dumped.code == 0, dumped
    assert [json.loads(row)["offset"] for row in dumped.stdout.splitlines()] == [0, 1, 2]
    assert [text for text in dumped.stderr.splitlines() if aside.name in text] == [
        f"aclog: warning: {line}"
    ]
