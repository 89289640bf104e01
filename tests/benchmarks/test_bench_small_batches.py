"""Smoke run of the small-batch twins at tiny scale: every log replays to the bulk log's state,
and each size's rows carry its ratio to the bulk row."""

from __future__ import annotations

from benchmarks import bench_small_batches
from benchmarks.bench_small_batches import BULK, SIZES


def test_small_batch_logs_replay_as_the_bulk_log_and_report_their_ratio() -> None:
    rows = bench_small_batches.rows(300)
    assert rows[0].metric == "mismatches" and rows[0].value == 0
    timed = rows[1:]
    assert len(timed) == 2 * (1 + len(SIZES))
    assert f"batches of {BULK} (bulk)" in timed[0].workload
    for row in timed[2:]:
        assert "x the bulk" in row.note and row.value > 0


def test_the_stream_mixes_acl_and_scram_changes() -> None:
    kinds = {type(record).__name__ for record in bench_small_batches.stream(2000)}
    assert kinds == {
        "AccessControlEntryRecord",
        "RemoveAccessControlEntryRecord",
        "UserScramCredentialRecord",
        "RemoveUserScramCredentialRecord",
    }
