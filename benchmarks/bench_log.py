"""Log benchmarks: append with fsync and read+decode, beside their floors, in one run.

Floors: fastavro encoding (or decoding) of the same record bodies alone, one call per record,
and the batch CRC-32C alone. Appends go through the real path: the batch encoder the controller
uses (frames + Avro bodies, assembled a field at a time), v2 batch build, write, fsync. Reads go
through the real path too: segment scan, CRC check, record parse, then the batch decoder every
log reader uses (the columnar decoder's Arrow columns built into dataclasses a field at a
time, with the collector paused as the programs that read do), and beside it the columnar
decoder alone, as the pipeline uses it (each batch's values to Arrow columns, no record
objects). The 200,000 source
records stay alive throughout, as an image's records would. Both reads and the decode floor are
timed in turn (the machine is shared: conditions drift within a run), and the rows note their
ratios.
"""

from __future__ import annotations

import io
import random
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from fastavro import schemaless_reader, schemaless_writer
from kafka.record.util import calc_crc32c

from aclog.log import SegmentedLog, read_batches
from aclog.log.batch import build_batch
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    RecordType,
    ResourceType,
    encode,
)
from aclog.records.bulk_encode import encode_many
from aclog.records.codec import _acl_to
from aclog.records.collector import gc_paused
from aclog.records.columnar import decode_columns
from aclog.records.schemas import parsed_schema
from aclog.records.small_batch import decode_records
from benchmarks import bench_seal
from benchmarks.harness import best_in_turn
from benchmarks.report import Report, Row


def acl_records(count: int, seed: int = 7) -> list[AccessControlEntryRecord]:
    """Realistic ACL records: tenant-prefixed topics, a few hundred principals."""
    rng = random.Random(seed)
    ops = [AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE]
    return [
        AccessControlEntryRecord(
            uuid.UUID(int=rng.getrandbits(128)),
            ResourceType.TOPIC,
            f"t{rng.randrange(1000):04d}.orders-{i % 97}",
            rng.choice([PatternType.LITERAL, PatternType.PREFIXED]),
            f"User:svc-{rng.randrange(300)}",
            "*",
            rng.choice(ops),
            AclPermissionType.ALLOW if rng.random() > 0.05 else AclPermissionType.DENY,
        )
        for i in range(count)
    ]


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def run(report: Report, quick: bool) -> None:
    total = 20_000 if quick else 200_000
    records = acl_records(total)
    bodies = [encode(r) for r in records]
    repeat = 2 if quick else 3
    for batch_size in (1, 100, 10_000):
        count = min(total, 2_000 if batch_size == 1 else total)
        _append(report, records[:count], batch_size, repeat)
    _floors(report, records, bodies, repeat)
    _read(report, records, bodies, repeat)
    bench_seal.run(report, quick)


def _append(
    report: Report, records: list[AccessControlEntryRecord], batch_size: int, repeat: int
) -> None:
    def once() -> None:
        with tempfile.TemporaryDirectory() as tmp, SegmentedLog(tmp) as log:
            for start in range(0, len(records), batch_size):
                log.append(encode_many(records[start : start + batch_size]), 1)

    seconds = _best(once, repeat)
    report.add(
        Row(
            "log",
            "aclog",
            f"append fsync batch={batch_size}",
            len(records),
            "throughput",
            len(records) / seconds,
            "records/s",
        )
    )


def _floors(
    report: Report, records: list[AccessControlEntryRecord], bodies: list[bytes], repeat: int
) -> None:
    """The encode and CRC floors (the decode floor is timed beside read + decode)."""
    schema = parsed_schema(RecordType.ACCESS_CONTROL_ENTRY, 0)
    dicts = [_acl_to(r) for r in records]

    def encode_only() -> None:
        for d in dicts:
            schemaless_writer(io.BytesIO(), schema, d)

    batch = bytes(build_batch(bodies[:10_000], 0, 1, 0))
    batches = max(1, len(bodies) // 10_000)

    def crc_only() -> None:
        for _ in range(batches):
            calc_crc32c(memoryview(batch)[21:])

    n = len(records)
    report.add(
        Row(
            "log",
            "floor: fastavro encode",
            "ACL bodies alone",
            n,
            "throughput",
            n / _best(encode_only, repeat),
            "records/s",
        )
    )
    report.add(
        Row(
            "log",
            "floor: batch CRC-32C",
            "10,000-record batches",
            n,
            "throughput",
            n / _best(crc_only, repeat),
            "records/s",
        )
    )


def _decode_floor(bodies: list[bytes]) -> Callable[[], None]:
    """fastavro decoding each body alone, one call per record."""
    schema = parsed_schema(RecordType.ACCESS_CONTROL_ENTRY, 0)

    def decode_only() -> None:
        for body in bodies:
            stream = io.BytesIO(body)
            stream.seek(3)
            schemaless_reader(stream, schema, None)

    return decode_only


def _read(
    report: Report, records: list[AccessControlEntryRecord], bodies: list[bytes], repeat: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        with SegmentedLog(tmp, fsync=False) as log:
            for start in range(0, len(records), 10_000):
                log.append([encode(r) for r in records[start : start + 10_000]], 1)

        def read_decode() -> None:
            with gc_paused():  # as the loader and the CLI run it (their edges pause the GC)
                for batch in read_batches(Path(tmp)):
                    decode_records(batch.values, batch.base_offset)

        def read_columnar() -> None:
            for batch in read_batches(Path(tmp)):
                decode_columns(batch.values, batch.base_offset)

        def read_only() -> None:
            for _ in read_batches(Path(tmp)):
                pass

        n = len(records)
        read_seconds, columnar_seconds, floor_seconds = best_in_turn(
            [read_decode, read_columnar, _decode_floor(bodies)], repeat
        )
        rate, floor = n / read_seconds, n / floor_seconds
        columnar = n / columnar_seconds
        report.add(
            Row(
                "log",
                "floor: fastavro decode",
                "ACL bodies alone",
                n,
                "throughput",
                floor,
                "records/s",
            )
        )
        report.add(
            Row(
                "log",
                "aclog",
                "read + decode",
                n,
                "throughput",
                rate,
                "records/s",
                f"{rate / floor:.2f}x the fastavro decode floor (timed in turn with it)",
            )
        )
        report.add(
            Row(
                "log",
                "aclog",
                "read + columnar decode (Arrow columns)",
                n,
                "throughput",
                columnar,
                "records/s",
                f"{columnar / floor:.2f}x the fastavro decode floor (timed in turn with it)",
            )
        )
        report.add(
            Row(
                "log",
                "aclog",
                "read (CRC + batch parse)",
                n,
                "throughput",
                n / _best(read_only, repeat),
                "records/s",
            )
        )
