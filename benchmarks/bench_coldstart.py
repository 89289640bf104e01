"""Cold start and tail replay: a broker's loader on a 1M-ACL snapshot plus a 250k-record tail,
until its authorizer is ready, beside the decode-only floors of the same records.

The data directory is made with the real writers (snapshot writer, SegmentedLog) from the same
generator as the other log benchmarks; the timed part is ``MetadataLoader.catch_up()`` feeding
an ``AuthorizerPublisher`` — snapshot read and checksum, replay of the tail into the image, and
the authorizer's bulk load. The floors run with the garbage collector paused, as catch-up does.
The tail's replay and its decode-only floors are timed in turn, best of three, like the log
suite's rows: a single run on a shared machine moved by a third from one run to the next.

The targets are ratios to the fastavro floor: fastavro alone decoding each record's Avro body,
one call per record, as the log suite's floor does. Tail replay is compared with that floor's
rate over the tail; cold start with the time that floor needs for every record it loads (the
snapshot's ACLs as the log holds them, plus the tail), timed right after the cold start.
"""

from __future__ import annotations

import gc
import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fastavro import schemaless_reader

from aclog.authorizer import Authorizer
from aclog.broker import AuthorizerPublisher, MetadataLoader
from aclog.log import SegmentedLog, read_batches
from aclog.records import RecordType, RemoveAccessControlEntryRecord, encode
from aclog.records.collector import call_paused, gc_paused
from aclog.records.schemas import parsed_schema
from aclog.replay.rebuild import rebuild_image, replay_tail
from aclog.replay.stream import read_decoded
from aclog.snapshot import read_snapshot, write_snapshot
from benchmarks.bench_log import acl_records
from benchmarks.harness import best_in_turn
from benchmarks.report import Report, Row

BATCH = 10_000
ROUNDS = 3
"""The tail replay and its floor: best of this many, timed in turn."""


def make_log(directory: Path, snapshot_acls: int, tail: int) -> None:
    """A snapshot of ``snapshot_acls`` distinct ACLs (their records in the log before it)
    and a tail of ``tail`` records after it, one in ten a removal, 10k to a batch."""
    # Distinct bindings only: the controller never commits one ACL twice, and replay is strict.
    unique = {r.binding: r for r in acl_records((snapshot_acls + tail) * 2, seed=11)}
    records = list(unique.values())[: snapshot_acls + tail]
    base, rest = records[:snapshot_acls], records[snapshot_acls:]
    with SegmentedLog(directory, fsync=False) as log:
        for start in range(0, len(base), BATCH):
            log.append([encode(r) for r in base[start : start + BATCH]], 1)
        write_snapshot(
            directory, base, last_offset=log.end_offset - 1, epoch=1, timestamp_ms=0, fsync=False
        )
        for start in range(0, len(rest), BATCH):
            chunk = list(rest[start : start + BATCH])
            # One in ten tail records removes an ACL from the snapshot, as real churn does.
            chunk[::10] = [
                RemoveAccessControlEntryRecord(base[start + i].id) for i in range(0, len(chunk), 10)
            ]
            log.append([encode(r) for r in chunk], 1)


def run(report: Report, quick: bool) -> None:
    snapshot_acls, tail = (50_000, 12_500) if quick else (1_000_000, 250_000)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        make_log(directory, snapshot_acls, tail)
        authorizer = Authorizer()
        loader = MetadataLoader(directory, [AuthorizerPublisher(authorizer)])
        gc.collect()  # no garbage from making the data is collected on the clock
        start = time.perf_counter()
        with gc_paused(freeze=True):  # as MetadataLoader.start() catches up (a process edge)
            loader.catch_up()
        ready = time.perf_counter() - start
        assert authorizer.is_ready and len(authorizer) == len(loader.image.acls)
        del loader, authorizer
        floor = _fastavro_seconds(directory, 0)
        size = f"{snapshot_acls}+{tail}"
        report.add(
            Row(
                "coldstart",
                "floor: fastavro decode",
                f"the {size} records' bodies alone",
                snapshot_acls + tail,
                "seconds",
                floor,
                "s",
                "timed right after the cold start",
            )
        )
        report.add(
            Row(
                "coldstart",
                "aclog loader",
                f"snapshot {size} -> authorizer ready",
                snapshot_acls + tail,
                "seconds",
                ready,
                "s",
                f"{ready / floor:.2f}x the fastavro decode time of the same records "
                "(target <= 1.0x); target <= 10 s at 1M+250k",
            )
        )
        _floors(report, directory, snapshot_acls, tail)


def _fastavro_decode(directory: Path, first: int) -> tuple[Callable[[], None], int]:
    """fastavro decoding the body of every record of the log from offset ``first``, one call
    per record with the schema its frame names (the log suite's floor), and their number."""
    values = [v for batch in read_batches(directory, first) for v in batch.values]
    schemas = {
        frame: parsed_schema(RecordType(frame[1]), frame[2]) for frame in {v[:3] for v in values}
    }
    pairs = [(v, schemas[v[:3]]) for v in values]

    def decode_only() -> None:
        for value, schema in pairs:
            stream = io.BytesIO(value)
            stream.seek(3)
            schemaless_reader(stream, schema, None)

    return decode_only, len(pairs)


def _fastavro_seconds(directory: Path, first: int) -> float:
    decode_only, _ = _fastavro_decode(directory, first)
    gc.collect()
    with gc_paused():
        start = time.perf_counter()
        decode_only()
        return time.perf_counter() - start


def _floors(report: Report, directory: Path, snapshot_acls: int, tail: int) -> None:
    snapshot = next(p for p in directory.iterdir() if p.name.endswith(".snapshot.avro"))
    # Each measurement starts with a collection, so none pays for an earlier one's garbage, and
    # runs with the collector paused, as the loader's catch-up does (its floors).
    gc.collect()
    with gc_paused():
        start = time.perf_counter()
        decoded = len(read_snapshot(snapshot).read_all())
        snapshot_seconds = time.perf_counter() - start
    report.add(
        Row(
            "coldstart",
            "snapshot read+decode",
            "records only",
            decoded,
            "throughput",
            decoded / snapshot_seconds,
            "records/s",
        )
    )
    first_tail = snapshot_acls
    base = call_paused(rebuild_image, directory, at_offset=first_tail - 1).image
    counts: dict[str, int] = {}

    def floor() -> None:
        with gc_paused():
            counts["floor"] = sum(len(b.records) for b in read_decoded(directory, first_tail))

    def replay() -> None:
        # What a broker or controller does with the log after its snapshot: every batch
        # replayed into one delta, applied to the snapshot's image.
        # The collector paused, as a program that replays does (see aclog.records.collector).
        with gc_paused():
            counts["replay"] = replay_tail(directory, base, first_tail)[1]

    fastavro_only, fastavro_count = _fastavro_decode(directory, first_tail)

    def fastavro() -> None:
        with gc_paused():
            fastavro_only()

    # In turn, best of three, each after a collection: the floors and the replay see the same
    # moments of a shared machine, and none pays for another's garbage.
    decode_seconds, fastavro_seconds, replay_seconds = best_in_turn(
        [floor, fastavro, replay], ROUNDS, collect=True
    )
    count, replayed = counts["floor"], counts["replay"]
    fastavro_rate = fastavro_count / fastavro_seconds
    report.add(
        Row(
            "coldstart",
            "floor: fastavro decode",
            "tail records' bodies alone",
            fastavro_count,
            "throughput",
            fastavro_rate,
            "records/s",
            f"best of {ROUNDS}, in turn with the replay",
        )
    )
    report.add(
        Row(
            "coldstart",
            "floor: tail read+decode",
            "log records, no replay",
            count,
            "throughput",
            count / decode_seconds,
            "records/s",
            f"best of {ROUNDS}, in turn with the replay",
        )
    )
    report.add(
        Row(
            "coldstart",
            "aclog replay",
            "tail read, decoded + applied",
            replayed,
            "throughput",
            replayed / replay_seconds,
            "records/s",
            f"{replayed / replay_seconds / fastavro_rate:.2f}x the fastavro decode floor "
            f"(target >= 1.5x); best of {ROUNDS}, in turn with the floors",
        )
    )
