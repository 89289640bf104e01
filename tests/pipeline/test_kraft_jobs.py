"""Every pipeline job that reads a log takes ``--format kraft|aclog|auto`` and reads Kafka's own
``__cluster_metadata-0`` as ``aclog replay --format kraft`` does: each job's answer on a small
generated KRaft directory (three segments, a checkpoint, other record types, leader changes, a
torn tail) equals the in-process answer for the same directory, or, where there is none, what
the directory holds. KRaft records no authors: the jobs show none. A whole last batch that fails
its CRC is a warning on stderr (``--json`` unchanged), a torn one is quiet.

Kept small: Spark is slow on two cores; the CLI reuses the session's SparkSession."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq
import pytest

from aclog.authorizer import Authorizer
from aclog.log.segment import SegmentScan
from aclog.records import AclOperation, ResourceType, kafka_uuid_text
from aclog.replay.rebuild import rebuild_image
from tests.kraft.layout import ACL_A, ACL_B, ACL_C, ACL_D, Layout, build_layout
from tests.tools.harness import run_main

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CRC_WORDS = "whole but fails its CRC-32C"


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Layout:
    return build_layout(tmp_path_factory.mktemp("kraft") / "__cluster_metadata-0")


def _json(*args: str) -> Any:
    """A command's ``--json`` answer; a torn tail (every read here) leaves stderr quiet."""
    run = run_main(*args, "--json")
    assert run.code == 0, run.stderr
    assert "warning" not in run.stderr, run.stderr
    return json.loads(run.stdout)


def _each(option: str, values: list[str]) -> list[str]:
    return [part for value in values for part in (option, value)]


def test_history_job_gives_kraft_lifetimes_without_authors(
    spark: SparkSession, layout: Layout
) -> None:
    del spark  # the CLI reuses the session
    d = str(layout.directory)
    rows = _json("pipeline", "history", "--data-dir", d, "--format", "kraft")["lifetimes"]
    assert rows == _json("pipeline", "history", "--data-dir", d)["lifetimes"]  # auto
    acls = {r["acl_id"]: (r["created_offset"], r["removed_offset"]) for r in rows if r["acl_id"]}
    assert acls == {
        kafka_uuid_text(ACL_A.id): (4, 9),
        kafka_uuid_text(ACL_B.id): (10, 16),
        kafka_uuid_text(ACL_C.id): (13, None),
        kafka_uuid_text(ACL_D.id): (17, None),
    }
    users = {r["user"]: (r["created_offset"], r["removed_offset"]) for r in rows if r["user"]}
    assert users == {"alice": (6, 11), "bob": (14, None)}
    assert {(r["created_by"], r["removed_by"]) for r in rows} == {(None, None)}


def test_records_job_writes_the_kraft_rows(layout: Layout, tmp_path: Path) -> None:
    out = tmp_path / "records"
    d = str(layout.directory)
    args = ("pipeline", "records", "--data-dir", d, "--format", "kraft", "--out", str(out))
    written = _json(*args, "--snapshots", "all")
    table = pq.read_table(out).sort_by([("offset", "ascending"), ("position", "ascending")])
    rows = table.select(["offset", "source", "type", "author_principal"]).to_pylist()
    assert written["records"] == len(rows) == 18 + 1  # every offset, and the checkpoint's ACL
    assert [r["offset"] for r in rows if r["source"] == "log"] == list(range(18))
    assert [(r["offset"], r["type"]) for r in rows if r["source"] == "snapshot"] == [
        (12, "AccessControlEntryRecord")
    ]
    assert {r["author_principal"] for r in rows} == {None}
    # The Parquet feeds the other jobs as an aclog log's does.
    state = _json("pipeline", "state", "--records", str(out))
    assert state == _json("replay", "--data-dir", d, "--format", "kraft")


@pytest.mark.parametrize("point", [[], ["--at-offset", "12"]])
def test_access_job_equals_explain(layout: Layout, point: list[str], tmp_path: Path) -> None:
    resources = tmp_path / "resources.txt"
    resources.write_text("TOPIC:a\nTOPIC:b\nTOPIC:c\nTOPIC:d\nGROUP:g\n")
    people = tmp_path / "principals.txt"
    people.write_text("User:alice\nUser:bob\n")
    decisions = _json(
        "pipeline", "access", "--data-dir", str(layout.directory), "--format", "kraft",
        "--resources", str(resources), "--principals", str(people), *point,
    )["decisions"]  # fmt: skip
    at = {"at_offset": int(point[1])} if point else {}
    authorizer = Authorizer()
    authorizer.load(rebuild_image(layout.directory, kraft=True, **at).image.acls)
    for row in decisions:
        request = (row["principal"], row["host"], AclOperation[row["operation"]],
                   ResourceType[row["resource_type"]], row["resource_name"])  # fmt: skip
        explained = authorizer.explain(*request)
        deciding = explained.deciding_acl
        acl_id = None if deciding is None else kafka_uuid_text(deciding.id)
        assert (row["decision"], row["acl_id"]) == (explained.decision.value, acl_id), row
    allowed = {
        (r["principal"], r["resource_name"]) for r in decisions if r["reason"] == "allow_acl"
    }
    assert allowed == ({("User:alice", "b")} if point else {("User:alice", "c"), ("User:bob", "d")})


@pytest.mark.parametrize(
    ("point", "acl"), [([], ACL_C), (["--at-offset", "12"], ACL_B), (["--at-offset", "7"], None)]
)
def test_orphans_job_reads_the_kraft_state(layout: Layout, point: list[str], acl: Any) -> None:
    d = str(layout.directory)
    rows = _json("pipeline", "orphans", "--data-dir", d, "--format", "kraft", *point)["orphans"]
    found = {(r["kind"], r["acl_id"], r["user"]) for r in rows}
    # At the end ACL C names alice, whose credential is gone (bob has ACL D and a credential);
    # at 12 the checkpoint holds ACL B, also alice's, and no credential; at 7 alice has both.
    assert found == (
        set() if acl is None else {("acl_without_credential", kafka_uuid_text(acl.id), None)}
    )


def test_question_jobs_equal_the_commands(layout: Layout) -> None:
    d = str(layout.directory)
    kraft = ["--data-dir", d, "--format", "kraft"]
    topics, ops = ["b", "c", "d"], ["Read", "Write"]
    job = _json(
        "pipeline", "who-can", *kraft, *_each("--topic", topics), *_each("--operation", ops)
    )
    expected = [_json("who-can", *kraft, "--operation", op, "--topic", t)
                for t in topics for op in ops]  # fmt: skip
    assert job["answers"] == expected and any(a["allowed"] for a in expected)
    people = ["User:alice", "User:bob"]
    job = _json("pipeline", "reach", *kraft, *_each("--principal", people), "--at-offset", "12")
    expected = [_json("reach", *kraft, "--principal", p, "--at-offset", "12") for p in people]
    assert job["answers"] == expected and expected[0]["resources"]
    job = _json("pipeline", "timeline", *kraft, *_each("--principal", people),
                *_each("--topic", topics), "--operation", "Read")  # fmt: skip
    expected = [_json("timeline", *kraft, "--principal", p, "--topic", t, "--operation", "Read")
                for p in people for t in topics]  # fmt: skip
    assert job["timelines"] == expected and any(a["flips"] for a in expected)


def test_diff_and_lint_jobs_equal_the_commands(layout: Layout) -> None:
    kraft = ["--data-dir", str(layout.directory), "--format", "kraft"]
    for start, end in (("0", "17"), ("5", "12")):
        job = _json("pipeline", "diff", *kraft, "--from", start, "--to", end)
        expected = _json("diff", *kraft, "--from", start, "--to", end)
        assert job == expected and expected["acls"]
        assert {change["author"] for change in expected["acls"]} == {None}  # KRaft has none
    job = _json("pipeline", "lint", *kraft, "--at-time", "2030-01-01")
    assert job == _json("lint", *kraft, "--at-time", "2030-01-01")


def test_format_aclog_does_not_misread_a_kraft_directory(layout: Layout) -> None:
    run = run_main("pipeline", "history", "--data-dir", str(layout.directory), "--format", "xml")
    assert run.code == 2 and "unknown --format" in run.stderr
    run = run_main("pipeline", "orphans", "--data-dir", str(layout.directory), "--format", "aclog")
    assert run.code != 0 and "Traceback" not in run.stderr


def test_a_whole_last_batch_that_fails_its_crc_is_a_warning(layout: Layout, tmp_path: Path) -> None:
    damaged = tmp_path / "__cluster_metadata-0"
    shutil.copytree(layout.directory, damaged)
    newest = damaged / layout.segments[-1].name
    scan = SegmentScan(newest, position=0, next_offset=13)
    last = [raw.position for raw in scan][-1]
    data = bytearray(newest.read_bytes()[: scan.end_position])  # without the torn bytes
    data[-3] ^= 0xFF  # the last batch (16..17): whole, but its CRC fails
    newest.write_bytes(bytes(data))
    where = f"{newest} at byte {last}, after offset 15"
    replayed = run_main("replay", "--data-dir", str(damaged), "--json")
    assert replayed.code == 0 and CRC_WORDS in replayed.stderr
    for args in (
        ["state"],
        ["history"],
        ["records", "--out", str(tmp_path / "records")],
        ["timeline", "--principal", "User:bob", "--topic", "d", "--operation", "Read"],
    ):
        run = run_main("pipeline", *args, "--data-dir", str(damaged), "--json")
        assert run.code == 0, run.stderr
        assert run.stderr.count(CRC_WORDS) == 1 and where in run.stderr, run.stderr
        if args == ["state"]:
            assert json.loads(run.stdout) == json.loads(replayed.stdout)
    assert pq.read_table(tmp_path / "records").num_rows == 16  # offsets 0..15
    answer = json.loads(run.stdout)["timelines"][0]
    assert answer["to"]["last_offset"] == 15  # the good batches only: ACL D never came


def test_records_names_a_checkpoint_it_cannot_read(layout: Layout, tmp_path: Path) -> None:
    out = tmp_path / "records"
    for given in (tmp_path / "nope.checkpoint", layout.segments[0]):
        run = run_main(
            "pipeline", "records", "--data-dir", str(layout.directory), "--format", "kraft",
            "--out", str(out), "--snapshots", str(given),
        )  # fmt: skip
        assert run.code == 1 and f"no KRaft checkpoint at {given}" in run.stderr, run.stderr
        assert not out.exists()
