"""One checked path into the log: every record ``import --from-kraft`` (and ``--follow``)
brings from KRaft passes the controller's rules before it is written. A record that breaks one
is kept out and reported on stderr and in ``--json`` with its KRaft offset (exit 1: a rejected
item); everything else is imported, and the log it writes replays and verifies."""

from __future__ import annotations

import dataclasses
import json
import uuid
from pathlib import Path

import pytest

from aclog.kraft.encoding import encode_record
from aclog.kraft.writer import LogBuilder, data_batch, write_checkpoint
from aclog.records import (
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    ScramMechanism,
    UserScramCredentialRecord,
)
from aclog.replay.rebuild import rebuild_image
from tests.kraft.layout import T0, scram
from tests.kraft.live import acl
from tests.tools.harness import run_main

GOOD = acl(1, "orders")
BAD_HOST = dataclasses.replace(acl(2, "payments"), host="db.example.com")  # Kafka stores it
SECOND = acl(3, "refunds")
SAME_ID = dataclasses.replace(acl(4, "other"), id=GOOD.id)  # an id already in use
CAROL = scram("carol")
DAVE_256 = scram("dave")
DAVE_512 = UserScramCredentialRecord(
    "dave",
    ScramMechanism.SCRAM_SHA_512,
    b"salt",
    b"k" * 64,
    b"s" * 64,
    100,  # too few
)
ERIN = scram("erin")


def _kraft(directory: Path) -> Path:
    """Offsets: 0 leader change; 1..3 GOOD, BAD_HOST, CAROL; 4..5 the removal of BAD_HOST,
    SECOND; 6..8 DAVE_256, DAVE_512, ERIN (one request: dave's changes fall together);
    9 SAME_ID; 10 the removal of a credential nobody has."""
    log = LogBuilder(directory)
    log.leader_change(1, epoch=1, timestamp_ms=T0)
    log.records([GOOD, BAD_HOST, CAROL], 1, T0 + 1000)
    log.records([RemoveAccessControlEntryRecord(BAD_HOST.id), SECOND], 1, T0 + 2000)
    log.records([DAVE_256, DAVE_512, ERIN], 1, T0 + 3000)
    log.records([SAME_ID], 1, T0 + 4000)
    log.records([RemoveUserScramCredentialRecord("nobody", ScramMechanism.SCRAM_SHA_256)], 1,
                T0 + 5000)  # fmt: skip
    log.flush()
    return directory


REJECTED_OFFSETS = [2, 4, 6, 7, 9, 10]


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return _kraft(tmp_path / "kraft" / "__cluster_metadata-0")


def _state(target: Path) -> tuple[set[uuid.UUID], set[tuple[str, ScramMechanism]]]:
    image = rebuild_image(target).image
    users = {(name, m) for name, creds in image.scram.users.items() for m in creds}
    return {a.id for a in image.acls}, users


def test_import_keeps_out_what_the_rules_reject_and_imports_the_rest(
    source: Path, tmp_path: Path
) -> None:
    target = tmp_path / "aclog"
    done = run_main("import", "--from-kraft", str(source), "--data-dir", str(target), "--json")
    assert done.code == 1, done.stderr  # a rejected item, after importing everything else
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert [r["offset"] for r in report["rejected"]] == REJECTED_OFFSETS
    reasons = {r["offset"]: r["reason"] for r in report["rejected"]}
    assert "Invalid host 'db.example.com'" in reasons[2]
    assert "removes the ACL kept out at KRaft offset 2" in reasons[4]
    assert reasons[6] == "another change of this user in the same batch was kept out"
    assert reasons[7] == "Too few iterations"
    assert "already exists" in reasons[9]
    assert "does not exist" in reasons[10]
    for offset in REJECTED_OFFSETS:
        assert f"at KRaft offset {offset}:" in done.stderr
    assert "6 KRaft records broke aclog's rules" in done.stderr
    assert _state(target) == (
        {GOOD.id, SECOND.id},
        {("carol", ScramMechanism.SCRAM_SHA_256), ("erin", ScramMechanism.SCRAM_SHA_256)},
    )
    assert report["records_by_type"] == {
        "AccessControlEntryRecord": 2,
        "LeaderChangeRecord": 1,
        "UserScramCredentialRecord": 2,
    }
    assert run_main("verify", "--data-dir", str(target)).code == 0


def test_follow_reports_each_rejection_as_it_goes_and_resumes_past_it(
    source: Path, tmp_path: Path
) -> None:
    target = tmp_path / "aclog"
    args = ["import", "--from-kraft", str(source), "--data-dir", str(target), "--follow",
            "--max-polls", "1", "--json"]  # fmt: skip
    done = run_main(*args)
    assert done.code == 1, done.stderr
    *lines, report = [json.loads(line) for line in done.stdout.splitlines()]
    per_batch = [r["offset"] for line in lines for r in line["rejected"]]
    assert per_batch == [r["offset"] for r in report["rejected"]] == REJECTED_OFFSETS
    assert lines[-1]["kraft_offsets"] == [10, 10] and lines[-1]["records"] == 0
    assert "kept out RemoveUserScramCredentialRecord at KRaft offset 10" in done.stderr
    # a restart resumes after the last batch read: nothing repeated, nothing rejected again
    with open(max(source.glob("*.log")), "ab") as segment:  # Kafka commits one more batch
        segment.write(data_batch([encode_record(acl(5, "late"))], 11, 1, T0 + 6000))
    again = run_main(*args)
    assert again.code == 0, again.stderr
    *lines, report = [json.loads(line) for line in again.stdout.splitlines()]
    assert [line["kraft_offsets"] for line in lines] == [[11, 11]]
    assert report["rejected"] == []
    assert _state(target)[0] == {GOOD.id, SECOND.id, acl(5).id}


def test_a_snapshot_record_is_reported_by_snapshot_and_index(tmp_path: Path) -> None:
    directory = tmp_path / "kraft" / "__cluster_metadata-0"
    directory.mkdir(parents=True)
    bad = dataclasses.replace(acl(7, "audit"), principal="alice")  # no Type: prefix
    values = [encode_record(r) for r in (GOOD, bad, CAROL)]
    checkpoint = write_checkpoint(directory, 5, 1, values, T0)
    log = LogBuilder(directory)
    log.start_at(5)
    log.leader_change(1, epoch=1, timestamp_ms=T0 + 1000)
    log.flush()
    target = tmp_path / "aclog"
    done = run_main("import", "--from-kraft", str(directory), "--data-dir", str(target), "--json")
    assert done.code == 1, done.stderr
    (rejected,) = json.loads(done.stdout)["rejected"]
    assert (rejected["snapshot"], rejected["index"]) == (checkpoint.name, 1)
    assert f"at KRaft snapshot {checkpoint.name} record 1" in done.stderr
    assert "Invalid principal 'alice'" in rejected["reason"]
    assert _state(target)[0] == {GOOD.id}
