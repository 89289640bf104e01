"""A probe, not a suite: what an image's ACLs held as columns (``aclog.image.acl_table``) cost on
the cold-start data, beside what the product path costs today. Not on the product path yet,
so not in ``make bench``; its numbers decide how the table is wired in.

Usage: ``python -m benchmarks.probe_acl_table DIR [--quick]`` (DIR is made once with
``bench_coldstart.make_log``: 1M snapshot ACLs + a 250k-record tail, or 50k + 12.5k with
``--quick``). Every row is the best of three, the rows timed in turn, each after a full
collection and with the collector paused, as the suites time theirs. Prints one line per row.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastavro

from aclog.image import MetadataDelta, MetadataImage, MetadataProvenance
from aclog.image.acl_column_rows import of_kinds, removal_words
from aclog.image.acl_table import AclTable
from aclog.log import read_batches
from aclog.records.collector import call_paused, gc_paused
from aclog.records.columnar import decode_kinds
from aclog.records.types import AccessControlEntryRecord
from aclog.replay.rebuild import rebuild_image, replay_tail
from aclog.snapshot import read_snapshot
from aclog.snapshot.acl_columns import FULL_NAME, chunk_arrays
from benchmarks.bench_coldstart import _fastavro_decode, make_log

ROUNDS = 3


def _chunk_fields(snapshot: Path) -> list[dict[str, Any]]:
    """Every ACL column chunk's field values, as fastavro's reader gives them."""
    with snapshot.open("rb") as file:
        items = fastavro.reader(file, return_record_name=True)
        return [fields for name, fields in items if name == FULL_NAME]  # type: ignore[misc]


def _tail_table(directory: Path, first: int, table: AclTable) -> AclTable:
    """``table`` with every tail batch read, decoded to columns and applied."""
    for batch in read_batches(directory, first):
        kinds = decode_kinds(batch.values, batch.base_offset)
        applied = table.applied(of_kinds(kinds), removal_words(kinds))
        if applied is None:
            raise SystemExit(f"the table declined the batch at {batch.base_offset}")
        table = applied
    return table


def _tail_columns(directory: Path, first: int) -> int:
    """The tail read and decoded to the table's input columns only (no table)."""
    count = 0
    for batch in read_batches(directory, first):
        kinds = decode_kinds(batch.values, batch.base_offset)
        count += len(of_kinds(kinds)) + len(removal_words(kinds)[0])
    return count


def probe_data() -> tuple[Path, int, int, Path]:
    """The probes' command line (``DIR [--quick]``): the data directory, made once if missing,
    its snapshot ACLs and tail records, and its snapshot file."""
    parser = argparse.ArgumentParser()
    parser.add_argument("directory", type=Path)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    directory: Path = args.directory
    acls, tail = (50_000, 12_500) if args.quick else (1_000_000, 250_000)
    if not directory.exists():
        directory.mkdir(parents=True)
        make_log(directory, acls, tail)
    snapshot = next(p for p in directory.iterdir() if p.name.endswith(".snapshot.avro"))
    return directory, acls, tail, snapshot


def main() -> None:
    directory, acls, tail, snapshot = probe_data()
    fields = _chunk_fields(snapshot)
    base = call_paused(rebuild_image, directory, at_offset=acls - 1).image
    built = call_paused(lambda: AclTable.from_chunks(chunk_arrays(f, split=False) for f in fields))
    assert built is not None
    final = call_paused(_tail_table, directory, acls, built)
    replayed = call_paused(replay_tail, directory, base, acls)[0]
    assert call_paused(final.records) == list(replayed.acls.acls.values()), "the table differs"
    records: list[AccessControlEntryRecord] = []
    fastavro_only, fastavro_count = _fastavro_decode(directory, acls)

    def read_all() -> None:
        records[:] = read_snapshot(snapshot).read_all()  # type: ignore[arg-type]

    def restated() -> None:
        delta = MetadataDelta(MetadataImage.EMPTY, snapshot=True)
        delta.replay_restated(records, acls - 1)
        delta.apply(MetadataProvenance(acls - 1, 1, 1))

    def table() -> AclTable:
        made = AclTable.from_chunks(chunk_arrays(f, split=False) for f in fields)
        assert made is not None
        return made

    # name -> (untimed setup, timed run of its result). The tail starts from a table with a
    # pool of its own each round, so that every round codes the tail's strings anew.
    nothing: Callable[[], Any] = lambda: None  # noqa: E731
    rows: dict[str, tuple[Callable[[], Any], Callable[[Any], object]]] = {
        "(a0) snapshot file -> chunk fields (fastavro reader)": (
            nothing,
            lambda _: _chunk_fields(snapshot),
        ),
        "(a) chunk fields -> AclTable (chunk_arrays + from_chunks)": (nothing, lambda _: table()),
        "today: read_snapshot().read_all() (file -> records)": (nothing, lambda _: read_all()),
        "wired: replay_restated + apply (records -> table-backed AclsImage)": (
            nothing,
            lambda _: restated(),
        ),
        "(b0) tail read + decode_kinds + table input columns": (
            nothing,
            lambda _: _tail_columns(directory, acls),
        ),
        "(b) tail read + decode + AclTable.applied, 25 batches": (
            table,
            lambda start: _tail_table(directory, acls, start),
        ),
        "wired: replay_tail (read + decode + replay onto the table + apply)": (
            nothing,
            lambda _: replay_tail(directory, base, acls),
        ),
        "floor: fastavro decode of the tail's bodies": (nothing, lambda _: fastavro_only()),
        "(c) records() of the final table": (nothing, lambda _: final.records()),
        "(c') records() of the snapshot table": (nothing, lambda _: built.records()),
    }
    best = {name: float("inf") for name in rows}
    for _ in range(ROUNDS):
        for name, (setup, run) in rows.items():
            argument = setup()
            gc.collect()
            with gc_paused():
                start = time.perf_counter()
                run(argument)
                best[name] = min(best[name], time.perf_counter() - start)
            del argument
    print(
        f"{acls} snapshot ACLs + {tail} tail records ({fastavro_count} in the floor); "
        f"final table {len(final)} ACLs in {final.segments} segments"
    )
    for name, seconds in best.items():
        print(f"{seconds:8.3f} s  {name}")
    floor = best["floor: fastavro decode of the tail's bodies"]
    for name in ("(b) tail read + decode + AclTable.applied, 25 batches", "today: replay_tail"):
        key = next(row for row in best if row.startswith(name))
        print(f"{floor / best[key]:8.2f} x  floor time / time of: {key} (target >= 1.5)")


if __name__ == "__main__":
    main()
