"""Snapshot benchmarks: write and load of 10k / 100k / 1M ACLs, beside their floors.

``aclog`` rows go through the real path: record -> ACL column chunks (format 2), fastavro
container writer, CRC-32C, header patch, fsync, rename (write); size + CRC check, fastavro
container reader, records built from the columns into a list with the collector paused (load,
as the broker's loader does it). ``aclog format 1 (rows)`` does the same with the older layout
of one Avro row per record. ``plain container`` rows are that row layout written and read by
fastavro alone (no checksum, no header patch, no fsync) with the same record conversion; the
deflate row shows what compression would save on disk. Floors: fastavro's schemaless encoding
(or decoding) of the same ACL field dicts alone, without container or conversion (the floor of
the row layout, which format 2 no longer goes through).
"""

from __future__ import annotations

import gc
import io
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import fastavro
from fastavro import schemaless_reader, schemaless_writer

from aclog.records import AccessControlEntryRecord, RecordType
from aclog.records.codec import record_from_fields, record_to_fields
from aclog.records.collector import gc_paused
from aclog.records.schemas import parsed_schema
from aclog.snapshot import read_snapshot, write_snapshot
from aclog.snapshot.schema import SNAPSHOT_SCHEMA
from benchmarks.bench_log import acl_records
from benchmarks.report import Report, Row

SIZES = (10_000, 100_000, 1_000_000)
_ACL = "aclog.records.AccessControlEntryRecord"
_CHUNK = 100_000  # floors convert records to dicts in chunks, so 1M never holds 1M dicts


def _timed(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    """The best time of ``repeat`` runs, and the result of the last one."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def run(report: Report, quick: bool) -> None:
    for n in (SIZES[0],) if quick else SIZES:
        records = acl_records(n)
        repeat = 3 if n <= 100_000 else 1
        with tempfile.TemporaryDirectory() as tmp:
            _aclog(report, Path(tmp), records, repeat)
            _aclog(report, Path(tmp), records, repeat, rows=True)
            _plain(report, Path(tmp), records, repeat, "null")
            if n <= 100_000:
                _plain(report, Path(tmp), records, repeat, "deflate")
        _floors(report, records, repeat)


def _row(report: Report, impl: str, workload: str, n: int, value: float, unit: str) -> None:
    metric = "size" if unit == "bytes/ACL" else "throughput"
    report.add(Row("snapshot", impl, workload, n, metric, value, unit))


def _aclog(
    report: Report,
    directory: Path,
    records: list[AccessControlEntryRecord],
    repeat: int,
    rows: bool = False,
) -> None:
    n = len(records)

    def write() -> int:
        info = write_snapshot(directory, records, last_offset=n, epoch=1, timestamp_ms=0, rows=rows)
        return info.size

    seconds, size = _timed(write, repeat)
    path = next(directory.glob("*.snapshot.avro"))
    verify, _ = _timed(lambda: read_snapshot(path), repeat)
    gc.collect()  # the load pays for none of the writes' garbage
    with gc_paused():  # as the loader loads (see aclog.broker.loader)
        load, loaded = _timed(lambda: read_snapshot(path).read_all(), repeat)
    assert loaded == records
    del loaded
    path.unlink()
    impl = "aclog format 1 (rows)" if rows else "aclog"
    _row(report, impl, "write + fsync", n, n / seconds, "records/s")
    _row(report, impl, "file size", n, int(str(size)) / n, "bytes/ACL")
    _row(report, impl, "load (verify + decode)", n, n / load, "records/s")
    if not rows:
        _row(report, impl, "verify (size + CRC-32C)", n, n / verify, "records/s")


def _plain(
    report: Report,
    directory: Path,
    records: list[AccessControlEntryRecord],
    repeat: int,
    codec: str,
) -> None:
    n, path = len(records), directory / f"plain-{codec}.avro"

    def write() -> None:
        with open(path, "wb") as out:
            rows = ((_ACL, record_to_fields(r)) for r in records)
            fastavro.writer(out, SNAPSHOT_SCHEMA, rows, codec=codec)

    def load() -> list[Any]:
        with open(path, "rb") as file:
            rows: Iterator[Any] = fastavro.reader(file, return_record_name=True)
            return [record_from_fields(RecordType.ACCESS_CONTROL_ENTRY, f) for _, f in rows]

    seconds, _ = _timed(write, repeat)
    loading, _ = _timed(load, repeat)
    impl = f"plain container ({codec})"
    _row(report, impl, "write, no check/fsync", n, n / seconds, "records/s")
    _row(report, impl, "file size", n, path.stat().st_size / n, "bytes/ACL")
    _row(report, impl, "load, no check", n, n / loading, "records/s")
    path.unlink()


def _floors(report: Report, records: list[AccessControlEntryRecord], repeat: int) -> None:
    schema = parsed_schema(RecordType.ACCESS_CONTROL_ENTRY, 0)
    encode_seconds = decode_seconds = 0.0
    for start in range(0, len(records), _CHUNK):
        dicts = [record_to_fields(r) for r in records[start : start + _CHUNK]]
        out = io.BytesIO()

        def encode(dicts: list[dict[str, Any]] = dicts, out: io.BytesIO = out) -> None:
            out.seek(0)
            out.truncate()
            for d in dicts:
                schemaless_writer(out, schema, d)

        def decode(count: int = len(dicts), out: io.BytesIO = out) -> None:
            stream = io.BytesIO(out.getvalue())
            for _ in range(count):
                schemaless_reader(stream, schema, None)

        encode_seconds += _timed(encode, repeat)[0]
        decode_seconds += _timed(decode, repeat)[0]
    n = len(records)
    _row(
        report,
        "floor: fastavro encode",
        "field dicts, no container",
        n,
        n / encode_seconds,
        "records/s",
    )
    _row(
        report,
        "floor: fastavro decode",
        "to dicts, no container",
        n,
        n / decode_seconds,
        "records/s",
    )
