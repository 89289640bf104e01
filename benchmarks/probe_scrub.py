"""A probe, not a suite: what checking the bytes a reader skips costs (issue 35.3 and 35.5).

Builds a data directory of N one-ACL batches (what a controller writes for one ``kafka-acls
--add``) and a snapshot of them all, then times, best of five: ``check_batches`` over the whole
log (what every rebuild now checks below its snapshot, and what a running server's scrub reads
each pass), the scrub's snapshot checksum, and a rebuild from the snapshot (which includes the
check). Usage: ``python -m benchmarks.probe_scrub [--batches 200000]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from aclog.log import SegmentedLog
from aclog.log.check import check_batches
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    encode,
)
from aclog.records.collector import gc_paused
from aclog.replay.rebuild import rebuild_image
from aclog.snapshot import read_snapshot, write_snapshot
from aclog.snapshot.naming import list_snapshots

ROUNDS = 5


def _acl(i: int) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        uuid.UUID(int=i + 1),
        ResourceType.TOPIC,
        f"topic-{i}",
        PatternType.LITERAL,
        f"User:u{i % 100}",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def _make(directory: Path, batches: int) -> None:
    records = [_acl(i) for i in range(batches)]
    with SegmentedLog(directory, fsync=False) as log:
        for record in records:
            log.append([encode(record)], 1, timestamp_ms=1000)
        end = log.end_offset
    write_snapshot(directory, records, last_offset=end - 1, epoch=1, timestamp_ms=1000, fsync=False)


def _best(work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter()
        with gc_paused():
            work()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batches", type=int, default=200_000)
    batches = parser.parse_args().batches
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        _make(directory, batches)
        size = sum(p.stat().st_size for p in directory.glob("*.log"))
        snapshot = list_snapshots(directory)[-1].path
        rows = {
            "check_batches (whole log)": _best(lambda: check_batches(directory)),
            "snapshot checksum": _best(lambda: read_snapshot(snapshot)),
            "rebuild from the snapshot": _best(lambda: rebuild_image(directory)),
        }
    print(f"{batches} one-ACL batches, {size / 1e6:.1f} MB of log; best of {ROUNDS}")
    for name, seconds in rows.items():
        print(f"  {name:28} {seconds * 1000:8.1f} ms  ({seconds / batches * 1e6:.2f} µs/batch)")


if __name__ == "__main__":
    main()
