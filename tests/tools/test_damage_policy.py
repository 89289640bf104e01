"""One damage policy for every reader (issue 35.5): a flipped byte in an acknowledged batch is
refused by every command that reads the log, naming the file and the byte, with exit 1 —
also when a snapshot covers the batch (the answer would not need it) and when the batch comes
after the point a time-travel read asks for. README "The data directory" states the rule."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aclog.log import SegmentedLog, list_segments
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    encode,
)
from aclog.tools.main import app

runner = CliRunner()
BATCHES = 12
REQUEST = ["--principal", "User:u1", "--operation", "Read", "--topic", "t1"]
DESIRED = "owns: all\nacls: []\n"

READERS: dict[str, list[str]] = {
    "acls list": ["acls", "list"],
    "acls list as of a point": ["acls", "list", "--at-offset", "11"],
    "users list": ["users", "list"],
    "explain": ["explain", *REQUEST, "--host", "10.0.0.1"],
    "replay": ["replay"],
    "replay as of a time": ["replay", "--at-time", "2026-11-21"],
    "diff": ["diff", "--from", "3", "--to", "11"],
    "who-can": ["who-can", "--operation", "Read", "--topic", "t1"],
    "reach": ["reach", "--principal", "User:u1"],
    "lint": ["lint"],
    "timeline": ["timeline", *REQUEST],
    "export": ["export"],
    "plan": ["plan", "{desired}"],
    "dump": ["dump"],
    "verify": ["verify"],
    "acls add (a writer)": ["acls", "add", "--allow-principal", "User:x", *REQUEST[2:]],
}


def _argv(command: list[str], data_dir: Path) -> list[str]:
    desired = data_dir.parent / "desired.yaml"
    desired.write_text(DESIRED)
    argv = [part.replace("{desired}", str(desired)) for part in command]
    if argv[0] == "dump":
        return [*argv, str(data_dir)]
    return [*argv, "--data-dir", str(data_dir)]


def _log(data_dir: Path) -> None:
    """Twelve one-ACL batches in four segments, with timestamps in 2026-11 (ms 1795…)."""
    with SegmentedLog(data_dir, segment_bytes=400) as log:
        for n in range(BATCHES):
            record = AccessControlEntryRecord(
                uuid.UUID(int=n + 1), ResourceType.TOPIC, f"t{n}", PatternType.LITERAL,
                f"User:u{n}", "*", AclOperation.READ, AclPermissionType.ALLOW,
            )  # fmt: skip
            log.append([encode(record)], epoch=1, timestamp_ms=1_795_000_000_000 + n)
    assert len(list_segments(data_dir)) >= 3


def _flip(path: Path, position: int) -> None:
    data = bytearray(path.read_bytes())
    data[position] ^= 0x04
    path.write_bytes(bytes(data))


@pytest.fixture
def covered(tmp_path: Path) -> tuple[Path, Path]:
    """A log whose first segment is damaged below a snapshot of the whole log."""
    data_dir = tmp_path / "data"
    _log(data_dir)
    made = runner.invoke(app, ["snapshot", "create", "--data-dir", str(data_dir)])
    assert made.exit_code == 0, made.output
    first = list_segments(data_dir)[0][1]
    _flip(first, first.stat().st_size - 3)  # inside the segment's last record
    return data_dir, first


@pytest.fixture
def after_the_point(tmp_path: Path) -> tuple[Path, Path]:
    """A log (no snapshot) whose last segment is damaged: after the point offset 1 asks for."""
    data_dir = tmp_path / "data"
    _log(data_dir)
    last = list_segments(data_dir)[-1][1]
    _flip(last, 70)  # inside the first batch's records
    return data_dir, last


def _refused(argv: list[str], segment: Path) -> None:
    result = runner.invoke(app, argv)
    assert result.exit_code == 1, (argv, result.output)
    assert result.stdout == "" or argv[0] in ("dump", "verify"), result.stdout
    named = re.search(rf"corrupt log segment {re.escape(str(segment))} at byte \d+", result.stderr)
    assert named, (argv, result.stderr)


@pytest.mark.parametrize("reader", READERS)
def test_damage_a_snapshot_covers_is_refused_by_every_reader(
    covered: tuple[Path, Path], reader: str
) -> None:
    data_dir, segment = covered
    _refused(_argv(READERS[reader], data_dir), segment)


@pytest.mark.parametrize("reader", ["acls list", "explain", "who-can", "reach", "replay", "lint"])
def test_damage_after_a_point_in_time_is_refused_too(
    after_the_point: tuple[Path, Path], reader: str
) -> None:
    data_dir, segment = after_the_point
    _refused([*_argv(READERS[reader], data_dir), "--at-offset", "1"], segment)
