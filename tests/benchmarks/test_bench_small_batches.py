"""Smoke run of the small-batch twins at tiny scale: every log replays to the bulk log's state,
and each size's rows carry its ratio to the bulk row."""

from __future__ import annotations

from benchmarks import (
    admin_stream,
    bench_serve_start,
    bench_small_batches,
    bench_tail_after_snapshot,
)
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
    kinds = {type(record).__name__ for record in admin_stream.stream(2000)}
    assert kinds == {
        "AccessControlEntryRecord",
        "RemoveAccessControlEntryRecord",
        "UserScramCredentialRecord",
        "RemoveUserScramCredentialRecord",
    }


def test_serve_start_rows_time_a_real_server_until_it_listens() -> None:
    """Wall and CPU rows for the empty directory and the request log, which holds 1-4 records
    (contexts aside) a batch."""
    rows = bench_serve_start.rows("smallbatch", 40)
    assert [(r.impl, r.workload) for r in rows] == [
        ("aclog serve start", "empty data directory"),
        ("aclog serve start CPU", "empty data directory"),
        ("aclog serve start", "40 batches of 1-4 records"),
        ("aclog serve start CPU", "40 batches of 1-4 records"),
    ]
    assert all(0 < r.value < 120 for r in rows)
    assert 40 <= rows[2].size <= 160 and "target <= 1 s" in rows[2].note


def test_tail_rows_replay_onto_the_snapshot_as_the_whole_log_does() -> None:
    """The tail after a snapshot, replayed at once and followed a batch at a time, gives the
    state of the whole log replayed without the snapshot; each row says its time."""
    rows = bench_tail_after_snapshot.rows("smallbatch", acls=300, batches=40)
    assert rows[0].metric == "mismatches" and rows[0].value == 0
    assert [(r.impl, r.workload) for r in rows[1:]] == [
        (f"aclog tail {how}", f"300-ACL snapshot + 40 batches of {size}")
        for size in bench_tail_after_snapshot.SIZES
        for how in ("replay", "follow")
    ]
    assert all(r.value > 0 and " ms; best of" in r.note for r in rows[1:])
    assert [r.size for r in rows[1::2]] == [40 * size for size in bench_tail_after_snapshot.SIZES]
