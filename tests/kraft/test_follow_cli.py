"""``aclog import --from-kraft DIR --follow`` as a real subprocess (stopped by its pid, with
timeouts): batches a controller appends are imported within an interval and printed as JSON
lines, SIGTERM stops it with exit 0 and the report, a restart resumes, and a damaged or
truncated KRaft log stops it with a clear message, exit 1, and the aclog log unchanged after
the last good batch. The KRaft directory stays byte-identical, with no lock file."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from aclog.records import RequestContextRecord
from aclog.replay.stream import read_decoded
from tests.kraft.follower import ImportFollower, eventually
from tests.kraft.live import LiveKraft, acl, remove
from tests.tools.harness import run_main

INTERVAL = "0.2s"


class Follower(ImportFollower):
    """A following import of ``kraft`` into ``workdir/aclog``, polling every :data:`INTERVAL`."""

    def __init__(self, workdir: Path, kraft: LiveKraft, *extra: str) -> None:
        target = workdir / "aclog"
        super().__init__(workdir, kraft.directory, target, "--interval", INTERVAL, *extra)


def imported(target: Path) -> list[Any]:
    return [
        r
        for b in read_decoded(target)
        for r in b.records
        if not isinstance(r, RequestContextRecord)
    ]


def test_follow_imports_new_batches_and_stops_on_sigterm(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path / "broker")
    kraft.append([acl(1)], other=2)
    follower = Follower(tmp_path, kraft)
    try:
        assert eventually(lambda: len(follower.lines()) == 2), follower.stderr()
        kraft.append([acl(2, "payments")])
        fingerprint = kraft.fingerprint()
        start = time.monotonic()
        assert eventually(lambda: len(follower.lines()) == 3), follower.stderr()
        assert time.monotonic() - start < 5  # within an interval or so on a loaded machine
    finally:
        code = follower.stop()
    assert code == 0, follower.stderr()
    assert kraft.fingerprint() == fingerprint  # read-only: byte-identical, no lock file
    *appended, report = follower.lines()
    assert [a["kraft_offsets"] for a in appended] == [[0, 0], [1, 3], [4, 4]]
    assert appended[2]["records_by_type"] == {"AccessControlEntryRecord": 1}
    assert report["kraft_next_offset"] == 5 and report["aclog_end_offset"] == 6
    assert imported(tmp_path / "aclog") == [r for _, r in kraft.records]
    # A restart resumes: only what KRaft committed meanwhile is imported.
    kraft.append([remove(acl(1))])
    again = Follower(tmp_path, kraft, "--max-polls", "1")
    assert again.wait() == 0, again.stderr()
    *appended, report = again.lines()
    assert [a["kraft_offsets"] for a in appended] == [[5, 5]]
    assert "resuming after KRaft batch 4..4 epoch 1" in again.stderr()
    assert imported(tmp_path / "aclog") == [r for _, r in kraft.records]


def test_a_half_written_batch_is_waited_for_then_imported(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path / "broker")
    follower = Follower(tmp_path, kraft)
    try:
        assert eventually(lambda: len(follower.lines()) == 1), follower.stderr()
        raw = kraft.batch([acl(1)])
        kraft.append_bytes(raw[:50])
        time.sleep(1.0)  # several polls see the partial batch
        assert follower.process.poll() is None and len(follower.lines()) == 1
        kraft.append_bytes(raw[50:])
        assert eventually(lambda: len(follower.lines()) == 2), follower.stderr()
    finally:
        assert follower.stop() == 0, follower.stderr()


def test_a_damaged_batch_stops_with_exit_1_after_the_last_good_one(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path / "broker")
    kraft.append([acl(1)])
    follower = Follower(tmp_path, kraft)
    try:
        assert eventually(lambda: len(follower.lines()) == 2), follower.stderr()
        kraft.append([acl(2)])
        spoiled = bytearray(kraft.batch([acl(3)]))
        spoiled[-3] ^= 0xFF
        kraft.append_bytes(bytes(spoiled))
        code = follower.wait()
    finally:
        follower.stop()
    assert code == 1
    message = follower.stderr()
    assert "aclog: cannot follow" in message and "CRC-32C mismatch" in message
    assert "nothing after offset 2 was imported" in message and "Traceback" not in message
    assert imported(tmp_path / "aclog") == [r for _, r in kraft.records]  # acl(2), not acl(3)


def test_a_truncated_segment_stops_with_a_clear_error(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path / "broker")
    kraft.append([acl(1)])
    kraft.append([acl(2)])
    follower = Follower(tmp_path, kraft)
    try:
        assert eventually(lambda: len(follower.lines()) == 3), follower.stderr()
        end = list(read_decoded(tmp_path / "aclog"))[-1].last_offset
        kraft.truncate_segment(kraft.segment.stat().st_size - 10)
        code = follower.wait()
    finally:
        follower.stop()
    assert code == 1
    assert "the KRaft log was truncated" in follower.stderr()
    assert "import the directory again into a new data directory" in follower.stderr()
    assert list(read_decoded(tmp_path / "aclog"))[-1].last_offset == end


def test_bad_follow_options_and_targets_are_usage_errors(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path / "broker")
    kraft.append([acl(1)])
    checkpoint = kraft.checkpoint([acl(1)])
    source = str(kraft.directory)
    alone = run_main("import", "--from-kraft", source, "--data-dir", str(tmp_path / "a"),
                     "--interval", "1s")  # fmt: skip
    assert alone.code == 2 and "--reconcile go with --follow" in alone.stderr
    snapshot = run_main("import", "--from-kraft", str(checkpoint), "--data-dir",
                        str(tmp_path / "b"), "--follow")  # fmt: skip
    assert snapshot.code == 2 and "--follow needs the KRaft directory" in snapshot.stderr
    interval = run_main("import", "--from-kraft", source, "--data-dir", str(tmp_path / "c"),
                        "--follow", "--interval", "soon")  # fmt: skip
    assert interval.code == 2 and "is not a duration" in interval.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "c").exists()
    # A one-shot import, then the same command again: told to add --follow, which resumes.
    target = str(tmp_path / "aclog")
    assert run_main("import", "--from-kraft", source, "--data-dir", target).code == 0
    again = run_main("import", "--from-kraft", source, "--data-dir", target)
    assert again.code == 2 and "add --follow" in again.stderr
    kraft.append([acl(2)])
    resumed = run_main("import", "--from-kraft", source, "--data-dir", target, "--follow",
                       "--max-polls", "1", "--json")  # fmt: skip
    assert resumed.code == 0, resumed.stderr
    lines = [json.loads(line) for line in resumed.stdout.splitlines()]
    assert [line["kraft_offsets"] for line in lines[:-1]] == [[2, 2]]
    assert imported(tmp_path / "aclog") == [acl(1), acl(2)]  # the snapshot's state, then 2..2
    # A data directory holding aclog's own changes is refused, and left as it was.
    mine = tmp_path / "mine"
    assert run_main("acls", "add", "--data-dir", str(mine), "--allow-principal", "User:x",
                    "--operation", "Read", "--topic", "t").code == 0  # fmt: skip
    before = sorted(os.listdir(mine))
    refused = run_main("import", "--from-kraft", source, "--data-dir", str(mine), "--follow")
    assert refused.code == 2 and "not imported from KRaft" in refused.stderr
    assert sorted(os.listdir(mine)) == before


def test_a_roll_past_the_position_stops_with_what_to_do(tmp_path: Path) -> None:
    kraft = LiveKraft(tmp_path / "broker")
    kraft.append([acl(1)])
    target = str(tmp_path / "aclog")
    first = run_main("import", "--from-kraft", str(kraft.directory), "--data-dir", target)
    assert first.code == 0, first.stderr
    kraft.append(
        [acl(2, "payments")]
    )  # never read: Kafka snapshots past it and deletes its segment
    kraft.roll()
    kraft.checkpoint([acl(1), acl(2, "payments")])
    kraft.append([acl(3, "refunds")])
    kraft.delete_segments_below(kraft.next_offset - 1)
    before = list(read_decoded(tmp_path / "aclog"))
    rolled = run_main("import", "--from-kraft", str(kraft.directory), "--data-dir", target,
                      "--follow", "--max-polls", "1")  # fmt: skip
    assert rolled.code == 1
    assert "was rolled past offset 2, the next one to import" in rolled.stderr
    assert "import the directory again into a new data directory" in rolled.stderr
    assert "Traceback" not in rolled.stderr
    assert list(read_decoded(tmp_path / "aclog")) == before
    # --reconcile records the lost offsets' net effect from the snapshot, then goes on.
    reconciled = run_main("import", "--from-kraft", str(kraft.directory), "--data-dir", target,
                          "--follow", "--max-polls", "1", "--reconcile", "--json")  # fmt: skip
    assert reconciled.code == 0, reconciled.stderr
    first, second, report = [json.loads(line) for line in reconciled.stdout.splitlines()]
    assert first["reconciled_from"] == 2 and first["records_by_type"] == {
        "AccessControlEntryRecord": 1
    }
    assert second["kraft_offsets"] == [3, 3]
    # the stop report counts the reconciled batch with the others, and names it
    assert report["reconciled"] == first
    assert report["batches_written"] == 2 and report["records_written"] == 2
    assert report["records_by_type"] == {"AccessControlEntryRecord": 2}
    assert "KRaft offsets 2..2 were deleted before they were read" in reconciled.stderr
    leader = kraft.records[0][1]
    assert imported(tmp_path / "aclog") == [leader, acl(1), acl(2, "payments"), acl(3, "refunds")]


def test_follow_help_says_bootstrap_server_goes_with_data_dir() -> None:
    shown = run_main("follow", "--help")
    assert shown.code == 0
    text = " ".join(shown.stdout.replace("│", " ").split())
    assert "excludes --data-dir" not in text
    assert "recorded in --data-dir, which is required too" in text
