"""What the CLI says about a damaged log: verify and dump tell the truth, writers report cuts."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aclog.log import SegmentedLog, read_batches
from aclog.log.durable import replace_file
from aclog.log.quarantine import list_quarantined
from aclog.log.recovery_point import FILE_NAME, encode
from aclog.log.segment import list_segments
from aclog.tools.main import app

runner = CliRunner()


def _add_argv(data_dir: Path, flag: str, principal: str, topic: str) -> list[str]:
    target = ["--operation", "Read", "--topic", topic]
    return ["acls", "add", "--data-dir", str(data_dir), flag, principal, *target]


def _add(data_dir: Path, principal: str, permission: str = "allow") -> None:
    result = runner.invoke(
        app,
        _add_argv(data_dir, f"--{permission}-principal", principal, "orders"),
    )
    assert result.exit_code == 0, result.output


@pytest.fixture
def two_batches(tmp_path: Path) -> Path:
    """A data directory with an ALLOW, then a DENY committed after it (the newest batch)."""
    data_dir = tmp_path / "data"
    _add(data_dir, "User:alice")
    _add(data_dir, "User:bob", "deny")
    return data_dir


def _segment(data_dir: Path) -> Path:
    return list_segments(data_dir)[-1][1]


def _flip(path: Path, position: int) -> None:
    data = bytearray(path.read_bytes())
    data[position] ^= 0x04
    path.write_bytes(bytes(data))


_REQUEST = ["--principal", "User:bob", "--operation", "Read", "--topic", "orders"]


def test_a_damaged_acknowledged_batch_fails_reads_verify_and_writes(two_batches: Path) -> None:
    segment = _segment(two_batches)
    _flip(segment, segment.stat().st_size - 5)  # inside the DENY's record
    for argv in (
        ["acls", "list", "--data-dir", str(two_batches)],
        ["verify", "--data-dir", str(two_batches)],
        ["dump", str(two_batches)],
        ["replay", "--data-dir", str(two_batches)],
        # every command that replays says the same, none as an internal error
        ["diff", "--data-dir", str(two_batches), "--from", "0", "--to", "99"],
        ["explain", "--data-dir", str(two_batches), *_REQUEST, "--host", "10.0.0.1"],
        ["who-can", "--data-dir", str(two_batches), "--operation", "Read", "--topic", "orders"],
        ["reach", "--data-dir", str(two_batches), "--principal", "User:bob"],
        ["timeline", "--data-dir", str(two_batches), *_REQUEST],
        ["lint", "--data-dir", str(two_batches)],
        ["export", "--data-dir", str(two_batches)],
    ):
        result = runner.invoke(app, argv)
        assert result.exit_code == 1, (argv, result.output)
        assert str(segment) in result.stderr and "below the recovery point" in result.stderr
    before = segment.read_bytes()
    result = runner.invoke(
        app,
        _add_argv(two_batches, "--allow-principal", "User:carol", "x"),
    )
    assert result.exit_code == 1 and "below the recovery point" in result.stderr
    assert segment.read_bytes() == before, "a refused log is never cut"


def _tear_newest(data_dir: Path, keep: int) -> tuple[Path, int]:
    """Tear the newest batch as a crash before its fsync would: keep ``keep`` of its bytes and
    put the recovery point back before it. Returns the segment and the batch's byte."""
    segment = _segment(data_dir)
    newest = list(read_batches(data_dir))[-1]
    with open(segment, "r+b") as file:
        file.truncate(newest.position + keep)
    (data_dir / FILE_NAME).write_bytes(encode(newest.base_offset, 1))
    return segment, newest.position


def test_a_torn_tail_fails_verify_and_dump_then_the_writer_quarantines_it(
    two_batches: Path,
) -> None:
    segment, start = _tear_newest(two_batches, 40)
    verify = runner.invoke(app, ["verify", "--data-dir", str(two_batches)])
    assert verify.exit_code == 1
    assert f"{segment} ends with 40 bytes that are not a whole batch, from byte {start}" in (
        verify.stderr
    )
    assert f"{segment.name}.{start}.quarantine" in verify.stderr
    dump = runner.invoke(app, ["dump", str(two_batches)])
    assert dump.exit_code == 1 and f"from byte {start}" in dump.stderr
    assert "AccessControlEntryRecord" in dump.stdout, "what is whole is still listed"

    listed = runner.invoke(app, ["acls", "list", "--data-dir", str(two_batches)])
    assert listed.exit_code == 0 and "User:bob" not in listed.stdout  # never acknowledged
    _add(two_batches, "User:carol")  # a writer: cuts, quarantines, says so
    [quarantined] = list_quarantined(two_batches)
    assert quarantined.stat().st_size == 40
    verify = runner.invoke(app, ["verify", "--data-dir", str(two_batches), "--json"])
    assert verify.exit_code == 0
    assert '"quarantined": [' in verify.stdout and str(quarantined) in verify.stdout


def test_the_cli_writer_reports_the_cut_on_stderr(two_batches: Path) -> None:
    segment, start = _tear_newest(two_batches, 70)
    result = runner.invoke(
        app,
        _add_argv(two_batches, "--allow-principal", "User:carol", "x"),
    )
    assert result.exit_code == 0
    assert f"aclog: warning: cut a torn tail off {segment}: 70 bytes from byte {start}" in (
        result.stderr
    )
    assert f"{segment.name}.{start}.quarantine" in result.stderr


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (os.urandom(3000), "is not a log segment: found 3000 invalid bytes from byte 0"),
        (b"root:x:0:0:root:/root:/bin/bash\n" * 4, "is not a log segment: found 128 invalid"),
        (b"", "is empty: not a log segment"),
    ],
    ids=["random", "passwd", "empty"],
)
def test_dump_refuses_a_file_that_is_not_a_segment(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    path = tmp_path / "thing.bin"
    path.write_bytes(content)
    result = runner.invoke(app, ["dump", str(path)])
    assert result.exit_code == 1, result.output
    assert str(path) in result.stderr and expected in result.stderr
    assert "0 records" not in result.stdout


def test_dump_refuses_a_directory_without_segments_but_lists_a_real_empty_log(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes").mkdir()
    result = runner.invoke(app, ["dump", str(tmp_path / "notes")])
    assert result.exit_code == 2 and "holds no log segments" in result.stderr
    SegmentedLog(tmp_path / "empty").close()
    for target in (tmp_path / "empty", _segment(tmp_path / "empty")):
        result = runner.invoke(app, ["dump", str(target)])
        assert result.exit_code == 0, result.output
        assert result.stdout.strip() == "0 records"


def test_a_segment_with_garbage_after_its_batches_is_reported_by_dump(two_batches: Path) -> None:
    segment = _segment(two_batches)
    copy = two_batches.parent / "copy"
    shutil.copytree(two_batches, copy)
    size = _segment(copy).stat().st_size
    with open(_segment(copy), "ab") as file:
        file.write(b"\x00" * 100)
    result = runner.invoke(app, ["dump", str(_segment(copy))])
    assert result.exit_code == 1
    assert f"ends with 100 bytes that are not a whole batch, from byte {size}" in result.stderr
    assert segment.read_bytes() == _segment(copy).read_bytes()[:size]


def test_verify_warns_about_files_others_can_read(two_batches: Path) -> None:
    os.chmod(two_batches, 0o755)
    os.chmod(_segment(two_batches), 0o644)
    result = runner.invoke(app, ["verify", "--data-dir", str(two_batches)])
    assert result.exit_code == 0
    assert f"{two_batches} has mode 0755" in result.stderr and "chmod 700" in result.stderr
    assert f"{_segment(two_batches)} has mode 0644" in result.stderr


def test_everything_the_cli_creates_is_private_whatever_the_umask(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    old = os.umask(0)
    try:
        _add(data_dir, "User:alice")
        result = runner.invoke(app, ["snapshot", "create", "--data-dir", str(data_dir)])
        assert result.exit_code == 0, result.output
        replace_file(data_dir / "quorum-state", b"{}")  # how the controller writes it
    finally:
        os.umask(old)
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    names = sorted(p.name for p in data_dir.iterdir())
    assert any(name.endswith(".snapshot.avro") for name in names), names
    for path in data_dir.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    verify = runner.invoke(app, ["verify", "--data-dir", str(data_dir)])
    assert verify.exit_code == 0 and "warning" not in verify.stderr
