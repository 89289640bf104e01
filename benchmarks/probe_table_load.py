"""A probe, not a suite: the authorizer's index built from an ACL table
(:func:`aclog.authorizer.table_load.index_from_table`) beside today's bulk load, and what a
cold start wired through the table would cost beside today's loader and the fastavro floor.
Not on the product path yet, so not in ``make bench``.

Usage: ``python -m benchmarks.probe_table_load DIR [--quick]`` (DIR as for
:mod:`benchmarks.probe_acl_table`: 1M snapshot ACLs + a 250k-record tail, made once if
missing). Every row is the best of three, the rows timed in turn, each after a full collection
and with the collector paused; a row's result is dropped after its clock stops. Prints one
line per row.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from pathlib import Path

from aclog.authorizer import Authorizer
from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.table_load import index_from_table
from aclog.broker import AuthorizerPublisher, MetadataLoader
from aclog.image.acl_table import AclTable
from aclog.records.collector import call_paused, gc_paused
from aclog.snapshot.acl_columns import chunk_arrays
from benchmarks.bench_coldstart import _fastavro_decode
from benchmarks.probe_acl_table import _chunk_fields, _tail_table, probe_data

ROUNDS = 3


def _wired_table(directory: Path, snapshot: Path, first_tail: int) -> AclTable:
    """Snapshot file -> table -> the tail applied."""
    fields = _chunk_fields(snapshot)
    table = AclTable.from_chunks(chunk_arrays(f, split=False) for f in fields)
    if table is None:
        raise SystemExit("the snapshot states an ACL twice")
    return _tail_table(directory, first_tail, table)


def _wired(directory: Path, snapshot: Path, first_tail: int) -> AclIndex:
    """A cold start through the table: :func:`_wired_table`, then the index (without the
    authorizer's other state: its writer's view of the ids is made lazily)."""
    return index_from_table(_wired_table(directory, snapshot, first_tail))


def _today(directory: Path) -> Authorizer:
    """Today's cold start: ``MetadataLoader.catch_up`` feeding an ``AuthorizerPublisher``."""
    authorizer = Authorizer()
    MetadataLoader(directory, [AuthorizerPublisher(authorizer)]).catch_up()
    return authorizer


def _best(rows: dict[str, Callable[[], object]]) -> dict[str, float]:
    best = {name: float("inf") for name in rows}
    for _ in range(ROUNDS):
        for name, run in rows.items():
            gc.collect()
            with gc_paused():
                start = time.perf_counter()
                result = run()
                best[name] = min(best[name], time.perf_counter() - start)
                del result  # freed off the clock
    return best


def main() -> None:
    directory, acls, tail, snapshot = probe_data()
    final = call_paused(_wired_table, directory, snapshot, acls)
    records = call_paused(final.records)
    mine, reference = call_paused(index_from_table, final), call_paused(AclIndex.build, records)
    assert mine.listing() == reference.listing(), "the index from the table differs"
    today_len = len(call_paused(_today, directory))
    assert today_len == len(mine) == len(records), (today_len, len(mine))
    del mine, reference
    fastavro_only, fastavro_count = _fastavro_decode(directory, 0)
    best = _best(
        {
            "(1) index_from_table(table after the tail)": lambda: index_from_table(final),
            "(2) today: AclIndex.build(records) of the same ACLs": lambda: AclIndex.build(records),
            "(3) wired: snapshot -> table + tail applied + index_from_table": lambda: _wired(
                directory, snapshot, acls
            ),
            "today: MetadataLoader.catch_up + AuthorizerPublisher": lambda: _today(directory),
            "floor: fastavro decode of every record's body": fastavro_only,
        }
    )
    print(
        f"{acls} snapshot ACLs + {tail} tail records ({fastavro_count} in the floor); "
        f"final table {len(final)} ACLs in {final.segments} segments"
    )
    floor = best["floor: fastavro decode of every record's body"]
    for name, seconds in best.items():
        print(f"{seconds:8.3f} s  {seconds / floor:5.2f}x floor  {name}")


if __name__ == "__main__":
    main()
