"""A probe, not a suite: the authorizer's index built from an ACL table
(:func:`aclog.authorizer.table_load.index_from_table`) beside today's bulk load, what a
cold start wired through the table costs (``Authorizer.load`` of the table-backed image)
beside today's loader and the fastavro floor, and the writer's first change after such a
load (:class:`~aclog.authorizer.stored_ids.StoredIds` over the table: the batch's ids looked
up) beside the dict of every id that change built before (``by_id_from`` of the image's
view). Not on the product path yet (replay does not make tables yet), so not in ``make bench``.

Usage: ``python -m benchmarks.probe_table_load DIR [--quick]`` (DIR as for
:mod:`benchmarks.probe_acl_table`: 1M snapshot ACLs + a 250k-record tail, made once if
missing). Every row is the best of three, the rows timed in turn, each after a full collection
and with the collector paused; a row's result is dropped after its clock stops. Prints one
line per row.
"""

from __future__ import annotations

import gc
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from aclog.authorizer import Authorizer
from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.stored_ids import StoredIds, by_id_from
from aclog.authorizer.table_load import index_from_table
from aclog.broker import AuthorizerPublisher, MetadataLoader
from aclog.image import AclsImage
from aclog.image.acl_table import AclTable
from aclog.records.collector import call_paused, gc_paused
from aclog.records.types import AccessControlEntryRecord
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


def _wired(directory: Path, snapshot: Path, first_tail: int) -> Authorizer:
    """A cold start through the table: :func:`_wired_table`, then ``Authorizer.load`` of
    the table-backed image (its index grouped from the columns, its writer's view of the ids
    the image itself)."""
    authorizer = Authorizer()
    authorizer.load(AclsImage.of_table(_wired_table(directory, snapshot, first_tail)))
    return authorizer


Batch = tuple[list[AccessControlEntryRecord], list[uuid.UUID]]


def _first_change(image: AclsImage, batch: Batch) -> StoredIds:
    """The writer's side of the first change after a load from ``image``: ``batch`` checked
    against, and taken into, a view of the ids just made from the image."""
    adds, removes = batch
    ids = StoredIds(image)
    ids.record(adds, ids.checked(adds, removes))
    return ids


def _a_batch(table: AclTable) -> Batch:
    """Remove the first and the last ACL of ``table`` and add the first back (its id
    freed by the removal): what a small admin request does."""
    hi, lo = table.ids()
    first_id, last_id = (uuid.UUID(int=int(hi[i]) << 64 | int(lo[i])) for i in (0, -1))
    first = table.get(first_id)
    assert first is not None
    return [first], [first_id, last_id]


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
    wired = call_paused(_wired, directory, snapshot, acls)
    assert wired.index.listing() == reference.listing(), "the wired authorizer differs"
    del mine, reference, wired
    image, batch = AclsImage.of_table(final), _a_batch(final)
    changed = _first_change(image, batch).found([*batch[1], batch[0][0].id])
    assert len(changed) == 1 and batch[0][0].id.int in changed, "the first change failed"
    fastavro_only, fastavro_count = _fastavro_decode(directory, 0)
    best = _best(
        {
            "(1) index_from_table(table after the tail)": lambda: index_from_table(final),
            "(2) today: AclIndex.build(records) of the same ACLs": lambda: AclIndex.build(records),
            "(3) wired: snapshot -> table + tail applied + Authorizer.load(table image)": (
                lambda: _wired(directory, snapshot, acls)
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
    first = _best(
        {
            "(4) first change after a load from the table image (StoredIds over it)": (
                lambda: _first_change(image, batch)
            ),
            "(5) before: the first change's dict of every id (by_id_from the view)": (
                lambda: by_id_from(image.acls)
            ),
        }
    )
    for name, seconds in first.items():
        print(f"{seconds * 1000:10.3f} ms  {name}")


if __name__ == "__main__":
    main()
