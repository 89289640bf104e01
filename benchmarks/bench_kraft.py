"""KRaft input against aclog's own format: the same state (an ACL snapshot plus a tail of adds
and removals) written once as aclog's snapshot + log and once as a KRaft ``.checkpoint`` +
``__cluster_metadata-0`` segment, each replayed to an image by ``rebuild_image`` (what
``aclog replay`` and ``aclog replay --format kraft`` run), timed in turn, best of three.

The ratio row is KRaft seconds / aclog seconds (issue 24's target: at most 1.5). Both images
must hold the same ACLs; a ``mismatches`` row reports any difference. The KRaft files are made
by :mod:`aclog.kraft.writer` (bodies encoded by hand from Kafka's schemas, batches by
kafka-python), in batches of the same size as aclog's.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from aclog.kraft.encoding import encode_record
from aclog.kraft.writer import LogBuilder, write_checkpoint
from aclog.records import AccessControlEntryRecord, Record, RemoveAccessControlEntryRecord
from aclog.replay.rebuild import Rebuilt, rebuild_image
from benchmarks.bench_log import acl_records
from benchmarks.harness import best_in_turn
from benchmarks.report import Report, Row

BATCH = 10_000
ROUNDS = 3
EPOCH = 1


def state(snapshot_acls: int, tail: int) -> tuple[list[Record], list[Record]]:
    """The snapshot's ACLs and the tail: distinct bindings, one tail record in ten removing a
    snapshot ACL (the same churn as the cold-start suite)."""
    unique = {r.binding: r for r in acl_records((snapshot_acls + tail) * 2, seed=11)}
    records: list[AccessControlEntryRecord] = list(unique.values())[: snapshot_acls + tail]
    base, rest = records[:snapshot_acls], records[snapshot_acls:]
    out: list[Record] = list(rest)
    for i in range(0, len(out), 10):
        out[i] = RemoveAccessControlEntryRecord(base[i].id)
    return list(base), out


def write_aclog(directory: Path, base: list[Record], tail: list[Record]) -> None:
    from aclog.log import SegmentedLog
    from aclog.records import encode
    from aclog.snapshot import write_snapshot

    with SegmentedLog(directory, fsync=False) as log:
        for start in range(0, len(base), BATCH):
            log.append([encode(r) for r in base[start : start + BATCH]], EPOCH)
        write_snapshot(
            directory,
            base,
            last_offset=log.end_offset - 1,
            epoch=EPOCH,
            timestamp_ms=0,
            fsync=False,
        )
        for start in range(0, len(tail), BATCH):
            log.append([encode(r) for r in tail[start : start + BATCH]], EPOCH)


def write_kraft(directory: Path, base: list[Record], tail: list[Record]) -> None:
    """A checkpoint covering offsets ``0..len(base)-1`` and the log after it (Kafka deleted the
    segments below the snapshot, as retention does)."""
    directory.mkdir(parents=True)
    values = [encode_record(r) for r in base]
    write_checkpoint(directory, len(base), EPOCH, values, 0, batch_size=BATCH)
    log = LogBuilder(directory)
    log.start_at(len(base))
    for start in range(0, len(tail), BATCH):
        log.records(tail[start : start + BATCH], EPOCH, 1)
    log.flush()


def run(report: Report, quick: bool) -> None:
    snapshot_acls, tail = (50_000, 12_500) if quick else (1_000_000, 250_000)
    measure(report, snapshot_acls, tail)


def measure(report: Report, snapshot_acls: int, tail: int) -> None:
    """The rows for a snapshot of ``snapshot_acls`` ACLs and a tail of ``tail`` records."""
    base, rest = state(snapshot_acls, tail)
    with tempfile.TemporaryDirectory() as tmp:
        own, kraft = Path(tmp) / "aclog", Path(tmp) / "__cluster_metadata-0"
        own.mkdir()
        write_aclog(own, base, rest)
        write_kraft(kraft, base, rest)
        del base, rest
        results: dict[str, Rebuilt] = {}

        def replay_own() -> None:
            results["own"] = rebuild_image(own)

        def replay_kraft() -> None:
            results["kraft"] = rebuild_image(kraft, kraft=True)

        own_seconds, kraft_seconds = best_in_turn([replay_own, replay_kraft], ROUNDS, collect=True)
        _rows(report, snapshot_acls, tail, own_seconds, kraft_seconds, results)


def _rows(
    report: Report,
    snapshot_acls: int,
    tail: int,
    own_seconds: float,
    kraft_seconds: float,
    results: dict[str, Rebuilt],
) -> None:
    size, total = f"snapshot {snapshot_acls} + tail {tail}", snapshot_acls + tail
    note = f"best of {ROUNDS}, in turn"
    for impl, seconds in (("aclog format", own_seconds), ("kraft format", kraft_seconds)):
        rate = total / seconds
        report.add(
            Row(
                "kraft",
                impl,
                f"{size} -> image",
                total,
                "seconds",
                seconds,
                "s",
                f"{note}; {rate:,.0f} records/s",
            )
        )
    report.add(
        Row(
            "kraft",
            "kraft / aclog",
            f"{size} -> image",
            total,
            "ratio",
            kraft_seconds / own_seconds,
            "x",
            "target <= 1.5",
        )
    )
    own, kraft = results["own"].image.acls.acls, results["kraft"].image.acls.acls
    differ = len(set(own.items()) ^ set(kraft.items()))
    report.add(
        Row(
            "kraft", "kraft vs aclog image", "ACLs that differ", total, "mismatches", differ, "acls"
        )
    )
