"""A probe, not a suite: where the batch decoder's line between record-by-record decoding
(``aclog.records.small_batch``) and the columnar decoder should sit.

For batches of a request context plus N-1 ACL additions (what a controller writes for one
``kafka-acls --add``), it times, per batch, both paths for what the two readers of a decoded
batch need: ``records`` (``aclog dump``: every record and kind) and ``replay`` (the batch
decoded and replayed onto a table-backed image of 2,000 ACLs, then applied). Every row is the
best of five rounds, the two paths timed in turn within each round, with the collector
paused. Usage: ``python -m benchmarks.probe_small_batch [--sizes 1,2,...]``.
"""

from __future__ import annotations

import argparse
import gc
import time
import uuid
from collections.abc import Callable
from typing import Any

from aclog.image import MetadataDelta, MetadataImage, MetadataProvenance
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    RequestContextRecord,
    ResourceType,
    encode,
)
from aclog.records.collector import gc_paused
from aclog.records.column_records import decode_columnar_records
from aclog.records.small_batch import decode_small
from aclog.replay.batches import CommittedBatch, replay_batches

ROUNDS = 5
PATHS = {"small": decode_small, "columnar": decode_columnar_records}


def _acl(i: int) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        uuid.UUID(int=i + 1),
        ResourceType.TOPIC,
        f"topic-{i}",
        PatternType.LITERAL,
        f"User:u{i % 7}",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def per_call(call: Callable[[], Any], batches: int) -> float:
    """Seconds per call of the best of :data:`ROUNDS` runs of ``batches`` calls."""
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for _ in range(batches):
            call()
        best = min(best, (time.perf_counter() - started) / batches)
    return best


def probe(sizes: list[int]) -> list[tuple[int, str, str, float]]:
    """(batch size, reader, path, microseconds per batch) rows."""
    stored = tuple(_acl(i) for i in range(100_000, 102_000))
    base = replay_batches(MetadataImage.EMPTY, [CommittedBatch(0, 1, 1, stored)]).image
    context = encode(RequestContextRecord("User:admin", "127.0.0.1", "cli", 1000, "CreateAcls"))
    rows = []
    for size in sizes:
        values = [context] + [encode(_acl(i)) for i in range(size - 1)]
        batches = max(10, 2000 // size)
        for reader in ("records", "replay"):
            for path, decode in PATHS.items():
                call = _call(reader, decode, values, base)
                gc.collect()
                with gc_paused():
                    rows.append((size, reader, path, per_call(call, batches) * 1e6))
    return rows


def _call(reader: str, decode: Any, values: list[bytes], base: MetadataImage) -> Any:
    end = MetadataProvenance(len(values) + 1, 1, 1)

    def records() -> None:
        decoded = decode(values, 2000)
        decoded.kinds()
        len(decoded.records)

    def replay() -> None:
        delta = MetadataDelta(base)
        delta.replay_decoded(decode(values, 2000), 2000)
        delta.apply(end)

    return records if reader == "records" else replay


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1,2,4,8,16,32,48,64,96,128,256")
    sizes = [int(size) for size in parser.parse_args().sizes.split(",")]
    print(f"{'size':>5} {'reader':>8} {'small us':>10} {'columnar us':>12} {'ratio':>6}")
    rows = probe(sizes)
    for i in range(0, len(rows), 2):
        (size, reader, _, small), (_, _, _, columnar) = rows[i], rows[i + 1]
        print(f"{size:>5} {reader:>8} {small:>10.0f} {columnar:>12.0f} {small / columnar:>6.2f}")


if __name__ == "__main__":
    main()
