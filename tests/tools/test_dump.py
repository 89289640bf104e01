"""``aclog dump``: JSON equals the library's reading; errors have clear exits."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aclog.log import SegmentedLog
from aclog.log.segment import list_segments
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    NoOpRecord,
    PatternType,
    RequestContextRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
    encode,
)
from aclog.replay.stream import entries_between, read_decoded
from aclog.tools.main import app

runner = CliRunner()
ACL = AccessControlEntryRecord(
    uuid.UUID(int=7),
    ResourceType.TOPIC,
    "orders",
    PatternType.PREFIXED,
    "User:alice",
    "*",
    AclOperation.WRITE,
    AclPermissionType.ALLOW,
)
SCRAM = UserScramCredentialRecord(
    "alice", ScramMechanism.SCRAM_SHA_512, b"salt", b"stored", b"server", 4096
)
AUTHOR = RequestContextRecord("User:admin", "10.1.2.3", "kafka-python", 1_795_000_000_000, "x")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    with SegmentedLog(tmp_path, segment_bytes=250, fsync=False) as log:
        log.append([encode(NoOpRecord())], 1, timestamp_ms=1)
        log.append([encode(AUTHOR), encode(ACL), encode(SCRAM)], 1, timestamp_ms=2)
        for _ in range(5):
            log.append([encode(NoOpRecord())], 2, timestamp_ms=3)
    return tmp_path


def _json_lines(output: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in output.splitlines()]


def test_json_equals_library_reading(data_dir: Path) -> None:
    result = runner.invoke(app, ["dump", str(data_dir), "--json"])
    assert result.exit_code == 0, result.output
    expected = [e.to_dict() for e in entries_between(read_decoded(data_dir))]
    assert _json_lines(result.stdout) == expected
    acl_line = _json_lines(result.stdout)[2]
    assert acl_line["type"] == "AccessControlEntryRecord"
    assert acl_line["author"]["principal"] == "User:admin"  # type: ignore[index]
    assert acl_line["batch_base_offset"] == 1
    assert acl_line["data"]["pattern_type"] == "PREFIXED"  # type: ignore[index]


def test_secrets_are_redacted_unless_asked(data_dir: Path) -> None:
    redacted = runner.invoke(app, ["dump", str(data_dir), "--type", "UserScramCredentialRecord"])
    assert "(redacted)" in redacted.stdout and "c3RvcmVk" not in redacted.stdout
    shown = runner.invoke(
        app, ["dump", str(data_dir), "--json", "--no-redact", "--type", "userscramcredential"]
    )
    (line,) = _json_lines(shown.stdout)
    assert line["data"]["stored_key"] == "c3RvcmVk"  # type: ignore[index]


def test_offset_range_and_type_filter(data_dir: Path) -> None:
    result = runner.invoke(
        app, ["dump", str(data_dir), "--json", "--from-offset", "2", "--to-offset", "5"]
    )
    assert [line["offset"] for line in _json_lines(result.stdout)] == [2, 3, 4]
    only = runner.invoke(app, ["dump", str(data_dir), "--json", "--type", "NoOpRecord"])
    assert {line["type"] for line in _json_lines(only.stdout)} == {"NoOpRecord"}


def test_a_single_segment_file_can_be_dumped(data_dir: Path) -> None:
    segment = list_segments(data_dir)[1][1]
    result = runner.invoke(app, ["dump", str(segment), "--json"])
    assert result.exit_code == 0
    offsets = [line["offset"] for line in _json_lines(result.stdout)]
    assert offsets and offsets[0] == list_segments(data_dir)[1][0]


def test_human_listing_shows_batches_and_authors(data_dir: Path) -> None:
    result = runner.invoke(app, ["dump", str(data_dir)])
    assert result.exit_code == 0
    assert "by User:admin from 10.1.2.3" in result.stdout
    assert "AccessControlEntryRecord v0" in result.stdout
    assert "9 records" in result.stdout


def test_corrupt_log_exits_1_with_the_position(data_dir: Path) -> None:
    segment = list_segments(data_dir)[0][1]
    data = bytearray(segment.read_bytes())
    data[40] ^= 0xFF
    segment.write_bytes(bytes(data))
    result = runner.invoke(app, ["dump", str(data_dir), "--json"])
    assert result.exit_code == 1
    assert f"corrupt log segment {segment} at byte 0" in result.stderr


def test_missing_path_and_unknown_type_are_usage_errors(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["dump", str(tmp_path / "nope")])
    assert missing.exit_code == 2
    assert "no such file or directory" in missing.stderr
    unknown = runner.invoke(app, ["dump", str(tmp_path), "--type", "Bogus"])
    assert unknown.exit_code == 2
    assert "AccessControlEntryRecord" in unknown.stderr


def test_a_removal_says_which_acl_it_removed(tmp_path: Path) -> None:
    """A bare id says nothing: the listing and the JSON name the ACL the id was, even when only
    removals are shown, and ``null`` when its addition was not read (the dump starts later)."""
    data = ("--data-dir", str(tmp_path))
    runner.invoke(app, ["acls", "add", *data, "--allow-principal", "User:a", "--allow-host",
                        "10.0.0.1", "--operation", "Read", "--topic", "t"])  # fmt: skip
    runner.invoke(app, ["acls", "remove", *data, "--topic", "t", "--force"])
    only = ("--type", "RemoveAccessControlEntryRecord")
    listing = runner.invoke(app, ["dump", str(tmp_path), *only]).stdout
    assert "(was ALLOW User:a READ from 10.0.0.1 on TOPIC:LITERAL:t)" in listing
    [row] = _json_lines(runner.invoke(app, ["dump", str(tmp_path), *only, "--json"]).stdout)
    assert row["removed_acl"] == {**row["removed_acl"], "principal": "User:a", "host": "10.0.0.1"}  # type: ignore[dict-item]
    late = ("--from-offset", str(row["offset"]), "--json")
    [late_row] = _json_lines(runner.invoke(app, ["dump", str(tmp_path), *late]).stdout)
    assert late_row["removed_acl"] is None
