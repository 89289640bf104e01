"""``--format kraft`` on dump, replay, explain, diff and verify (and auto-detection), and
``export`` of a KRaft metadata log."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aclog.replay import dump_rows
from aclog.replay.kraft_stream import kraft_decoded_batches
from aclog.replay.stream import entries_between
from aclog.tools.main import app
from tests.kraft.layout import ACL_C, ACL_D, Layout, build_layout

runner = CliRunner()


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return build_layout(tmp_path / "__cluster_metadata-0")


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("fmt", [[], ["--format", "kraft"]])
def test_dump_reads_a_kraft_directory(layout: Layout, fmt: list[str]) -> None:
    code, stdout, stderr = run("dump", str(layout.directory), "--json", *fmt)
    assert code == 0, stderr
    lines = [json.loads(line) for line in stdout.splitlines()]
    expected = dump_rows(entries_between(kraft_decoded_batches(layout.directory)))
    assert lines == expected
    assert [line["offset"] for line in lines] == [r[0] for r in layout.log_records]


def test_dump_reads_one_segment_of_a_kraft_directory(layout: Layout) -> None:
    # as kafka-dump-log is given one file; it was read as aclog's format ('unknown frame version')
    segment = layout.segments[1]
    code, stdout, stderr = run("dump", str(segment), "--json")
    assert code == 0, stderr
    lines = [json.loads(line) for line in stdout.splitlines()]
    expected = run("dump", str(segment), "--json", "--format", "kraft")[1]
    assert lines == [json.loads(line) for line in expected.splitlines()] and lines


def test_dump_reads_a_checkpoint(layout: Layout) -> None:
    code, stdout, _ = run("dump", str(layout.checkpoint))
    assert code == 0
    assert "AccessControlEntryRecord v0" in stdout and "1 record\n" in stdout


def test_dump_reports_a_newer_record_version(layout: Layout) -> None:
    from aclog.kraft.encoding import encode_record, frame
    from aclog.kraft.writer import LogBuilder

    log = LogBuilder(layout.directory.parent / "bad")
    log.data([frame(18, 1) + encode_record(ACL_C)[3:]], epoch=1, timestamp_ms=1)
    log.flush()
    code, _, stderr = run("dump", str(log.directory), "--format", "kraft")
    assert code == 1
    assert "api key 18" in stderr and "version 1" in stderr


def test_replay_explain_diff_verify(layout: Layout) -> None:
    code, stdout, stderr = run("replay", "--data-dir", str(layout.directory), "--json")
    assert code == 0, stderr
    state = json.loads(stdout)
    assert state["offset"] == 17 and state["epoch"] == 3
    assert {a["resource_name"] for a in state["acls"]} == {ACL_C.resource_name, "d"}
    assert [u["name"] for u in state["users"]] == ["bob"]

    code, stdout, _ = run(
        "replay", "--data-dir", str(layout.directory), "--at-offset", "11", "--json"
    )
    assert code == 0
    assert {a["resource_name"] for a in json.loads(stdout)["acls"]} == {"b"}

    code, stdout, _ = run(
        "explain",
        "--data-dir",
        str(layout.directory),
        "--principal",
        ACL_D.principal,
        "--host",
        "10.0.0.1",
        "--operation",
        "Read",
        "--topic",
        "d",
        "--json",
    )
    assert code == 0
    assert json.loads(stdout)["decision"] == "ALLOWED"

    code, stdout, stderr = run(
        "diff", "--data-dir", str(layout.directory), "--from", "12", "--to", "17", "--json"
    )
    assert code == 0, stderr
    changes = {
        (c["change"], c.get("resource_name") or c.get("name"))
        for c in json.loads(stdout)["acls"] + json.loads(stdout)["credentials"]
    }
    assert changes == {("added", "c"), ("added", "d"), ("removed", "b"), ("added", "bob")}

    code, stdout, stderr = run("verify", "--data-dir", str(layout.directory), "--json")
    assert code == 0, stdout + stderr
    report = json.loads(stdout)
    assert report["ok"] and report["snapshots"] == 1 and report["batches"] == 10


@pytest.mark.parametrize(
    ("restated", "finding"),
    [("extra", "only in snapshot + tail"), ("missing", "cannot remove ACL")],
)
def test_verify_finds_a_snapshot_that_disagrees_with_the_log(
    layout: Layout, restated: str, finding: str
) -> None:
    from aclog.kraft.encoding import encode_record
    from aclog.kraft.writer import write_checkpoint
    from tests.kraft.layout import ACL_A, ACL_B

    assert layout.checkpoint is not None
    layout.checkpoint.unlink()
    records = [ACL_A, ACL_B] if restated == "extra" else [ACL_A]
    values = [encode_record(r) for r in records]
    write_checkpoint(layout.directory, 13, 2, values, layout.checkpoint_timestamp)
    code, stdout, _ = run("verify", "--data-dir", str(layout.directory), "--json")
    assert code == 1
    report = json.loads(stdout)
    assert finding in " ".join(report["problems"] + report["differences"])


def test_aclog_format_is_not_misread(layout: Layout) -> None:
    code, _, stderr = run("replay", "--data-dir", str(layout.directory), "--format", "aclog")
    assert code != 0
    code, _, stderr = run("replay", "--data-dir", str(layout.directory), "--format", "xml")
    assert code == 2 and "unknown --format" in stderr


def test_verify_reports_the_bytes_after_the_last_good_batch(tmp_path: Path) -> None:
    """A torn last batch is a warning (Kafka truncates it); a whole last batch whose CRC fails
    is a problem (exit 1), never silently read as the end of the log."""
    torn = build_layout(tmp_path / "torn")
    code, stdout, stderr = run("verify", "--data-dir", str(torn.directory), "--json")
    report = json.loads(stdout)
    assert code == 0 and report["ok"], stdout + stderr
    assert any("torn by a crash" in w for w in report["warnings"])
    whole = build_layout(tmp_path / "whole", torn_tail=False)
    code, stdout, _ = run("verify", "--data-dir", str(whole.directory), "--json")
    assert code == 0 and json.loads(stdout)["warnings"] == []
    newest = whole.segments[-1]
    spoiled = bytearray(newest.read_bytes())
    spoiled[-3] ^= 0xFF  # a record byte of the last batch: whole, but its CRC fails
    newest.write_bytes(bytes(spoiled))
    code, stdout, _ = run("verify", "--data-dir", str(whole.directory), "--json")
    report = json.loads(stdout)
    assert code == 1 and not report["ok"]
    assert any("whole but fails its CRC-32C" in p for p in report["problems"])


def test_replay_warns_of_a_whole_last_batch_that_fails_its_crc(tmp_path: Path) -> None:
    layout = build_layout(tmp_path, torn_tail=False)
    code, _, stderr = run("replay", "--data-dir", str(layout.directory))
    assert code == 0 and "warning" not in stderr
    newest = layout.segments[-1]
    spoiled = bytearray(newest.read_bytes())
    spoiled[-3] ^= 0xFF
    newest.write_bytes(bytes(spoiled))
    code, _, stderr = run("replay", "--data-dir", str(layout.directory))
    assert code == 0, stderr
    assert "warning" in stderr and "whole but fails its CRC-32C" in stderr


# Every command that reads a KRaft log to its end, as (arguments, the JSON flag) after the
# directory option is filled in.
READERS = {
    "dump": ["dump", "{dir}", "--json"],
    "replay": ["replay", "--data-dir", "{dir}", "--json"],
    "explain": ["explain", "--data-dir", "{dir}", "--principal", "User:bob", "--operation",
                "Read", "--topic", "d", "--host", "10.0.0.1", "--json"],
    "who-can": ["who-can", "--data-dir", "{dir}", "--operation", "Read", "--topic", "d", "--json"],
    "reach": ["reach", "--data-dir", "{dir}", "--principal", "User:alice", "--json"],
    "lint": ["lint", "--data-dir", "{dir}", "--json"],
    "timeline": ["timeline", "--data-dir", "{dir}", "--principal", "User:alice", "--operation",
                 "Read", "--topic", "b", "--json"],
    "timeline-from-the-end": ["timeline", "--data-dir", "{dir}", "--principal", "User:alice",
                              "--operation", "Read", "--topic", "b", "--from", "17", "--json"],
    "diff": ["diff", "--data-dir", "{dir}", "--from", "0", "--to", "99", "--json"],
}  # fmt: skip
CRC_WORDS = "whole but fails its CRC-32C"


def _run_reader(name: str, directory: Path) -> tuple[int, str, str]:
    return run(*(part.replace("{dir}", str(directory)) for part in READERS[name]))


def _last_batch_position(segment: Path) -> int:
    from aclog.log.segment import SegmentScan

    positions = [raw.position for raw in SegmentScan(segment, position=0, next_offset=13)]
    return positions[-1]


@pytest.mark.parametrize("name", sorted(READERS))
def test_every_reader_warns_of_a_whole_last_batch_that_fails_its_crc(
    tmp_path: Path, name: str
) -> None:
    """The warning once, on stderr (``--json`` on stdout unchanged), and the answer of the good
    batches: the same as once the damaged batch is gone."""
    layout = build_layout(tmp_path / "__cluster_metadata-0", torn_tail=False)
    newest = layout.segments[-1]
    last = _last_batch_position(newest)
    spoiled = bytearray(newest.read_bytes())
    spoiled[-3] ^= 0xFF  # a record byte of the last batch (16..17): whole, but its CRC fails
    newest.write_bytes(bytes(spoiled))
    code, damaged, stderr = _run_reader(name, layout.directory)
    assert code == 0, stderr
    assert stderr.count(CRC_WORDS) == 1 and stderr.startswith("aclog: warning: "), stderr
    assert f"{newest} at byte {last}, after offset 15" in stderr
    with open(newest, "r+b") as file:  # the log without the damaged batch
        file.truncate(last)
    code, good, stderr = _run_reader(name, layout.directory)
    assert code == 0 and "warning" not in stderr, stderr
    assert damaged == good


@pytest.mark.parametrize("name", sorted(READERS))
def test_every_reader_is_quiet_about_a_torn_last_batch(layout: Layout, name: str) -> None:
    code, _, stderr = _run_reader(name, layout.directory)
    assert code == 0 and "warning" not in stderr, stderr


def test_a_reader_that_stops_before_the_damage_is_quiet(tmp_path: Path) -> None:
    layout = build_layout(tmp_path / "__cluster_metadata-0", torn_tail=False)
    newest = layout.segments[-1]
    spoiled = bytearray(newest.read_bytes())
    spoiled[-3] ^= 0xFF
    newest.write_bytes(bytes(spoiled))
    code, _, stderr = run("dump", str(layout.directory), "--to-offset", "14")
    assert code == 0 and "warning" not in stderr, stderr
    code, _, stderr = run("replay", "--data-dir", str(layout.directory), "--at-offset", "14")
    assert code == 0 and "warning" not in stderr, stderr


def test_export_reads_a_kraft_directory(layout: Layout) -> None:
    code, stdout, stderr = run("export", "--data-dir", str(layout.directory), "--json")
    assert code == 0, stderr
    exported = json.loads(stdout)
    code, replayed, stderr = run("replay", "--data-dir", str(layout.directory), "--json")
    assert code == 0, stderr
    acls = json.loads(replayed)["acls"]
    assert acls and len(acls) == sum(len(entry["operations"]) for entry in exported["acls"])
    assert {(a["resource_name"], a["principal"]) for a in acls} == {
        (e["resource_name"], e["principal"]) for e in exported["acls"]
    }
    assert [u["name"] for u in exported["users"]] == ["bob"]


def test_acls_list_and_users_list_read_a_kraft_directory_as_replay_does(layout: Layout) -> None:
    before = sorted((p.name, p.stat().st_mtime_ns) for p in layout.directory.iterdir())
    code, stdout, stderr = run("replay", "--data-dir", str(layout.directory), "--json")
    assert code == 0, stderr
    state = json.loads(stdout)
    code, stdout, stderr = run("acls", "list", "--data-dir", str(layout.directory), "--json")
    assert code == 0, stderr  # it was 'unknown frame version 0', read as aclog's own format
    assert json.loads(stdout)["acls"] == state["acls"]
    assert {a["resource_name"] for a in state["acls"]} == {ACL_C.resource_name, ACL_D.resource_name}
    code, stdout, stderr = run("users", "list", "--data-dir", str(layout.directory), "--json")
    assert code == 0, stderr
    assert [u["name"] for u in json.loads(stdout)["users"]] == ["bob"]
    assert sorted((p.name, p.stat().st_mtime_ns) for p in layout.directory.iterdir()) == before


@pytest.mark.parametrize("command", ["list", "verify"])
def test_snapshot_list_and_verify_refuse_a_kraft_directory(layout: Layout, command: str) -> None:
    # they found no aclog snapshot there and said so as if all were well ("every snapshot
    # verifies") beside a .checkpoint they never looked at
    code, stdout, stderr = run("snapshot", command, "--data-dir", str(layout.directory))
    assert code == 2 and stdout == ""
    assert "KRaft metadata directory" in stderr and "aclog verify --data-dir" in stderr


def _contents(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in directory.iterdir()}


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--listen", "127.0.0.1:0"],
        ["serve", "--listen", "127.0.0.1:0", "--controller", "--node-id", "1"],
        ["acls", "add", "--allow-principal", "User:x", "--topic", "t"],
        ["snapshot", "create"],
    ],
    ids=lambda a: " ".join(a[:3]),
)
def test_no_writer_opens_a_kraft_directory(layout: Layout, argv: list[str]) -> None:
    """serve opened one as its data directory: its recovery cut the batch Kafka was writing at
    the end of the active segment into a quarantine file, and it left a lock, an index and a
    recovery point among Kafka's files, before failing on the first record."""
    assert layout.torn_bytes  # the tail a running Kafka may still be writing
    before = _contents(layout.directory)
    command = [sys.executable, "-m", "aclog", *argv, "--data-dir", str(layout.directory)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert "is a KRaft metadata directory: aclog never writes there" in done.stderr
    assert _contents(layout.directory) == before


def test_import_from_kraft_refuses_an_aclog_data_directory(tmp_path: Path) -> None:
    # a data directory without snapshots was read as KRaft: 'KRaft record at offset 2 ...
    # Buffer underrun', exit 1
    data = tmp_path / "data"
    code, _, stderr = run("acls", "add", "--data-dir", str(data), "--allow-principal",
                          "User:alice", "--operation", "Read", "--topic", "t")  # fmt: skip
    assert code == 0, stderr
    target = tmp_path / "new"
    code, stdout, stderr = run("import", "--from-kraft", str(data), "--data-dir", str(target))
    assert code == 2, stderr
    assert stdout == ""
    assert f"{data} is an aclog data directory" in stderr and "aclog replay" in stderr
    assert len(stderr.strip().splitlines()) == 1
    assert not target.exists()


def test_import_from_kraft_reads_kafkas_log_dir_file_of_the_same_name_as_kraft(
    layout: Layout, tmp_path: Path
) -> None:
    # Kafka keeps a recovery-point-offset-checkpoint of its own in a log directory
    from aclog.log import RECOVERY_POINT_FILE

    (layout.directory / RECOVERY_POINT_FILE).write_text("0\n1\n__cluster_metadata 0 12\n")
    target = tmp_path / "imported"
    code, _, stderr = run("import", "--from-kraft", str(layout.directory), "--data-dir",
                          str(target))  # fmt: skip
    assert code == 0, stderr
