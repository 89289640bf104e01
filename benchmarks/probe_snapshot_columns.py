"""A probe, not a suite: a snapshot read as columns (``SnapshotReader.read_columns``, with every
check ``read_all`` makes) into an ACL table, beside today's read as records, and beside the
unchecked read of :mod:`benchmarks.probe_acl_table`. Not on the product path yet (the loader
still restates records), so not in ``make bench``.

Usage: ``python -m benchmarks.probe_snapshot_columns DIR [--quick]`` (DIR as for
:mod:`benchmarks.probe_acl_table`: 1M snapshot ACLs + a 250k-record tail, made once if missing).
Every row is the best of three, the rows timed in turn, each after a full collection and with
the collector paused; a row's result is dropped after its clock stops. Prints one line per row,
with its ratio to the floor: fastavro decoding the bodies of the log records the snapshot
holds (the same ACLs, one call per record).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from fastavro import schemaless_reader

from aclog.image import MetadataImage
from aclog.image.acl_table import AclTable
from aclog.log import read_batches
from aclog.records.collector import call_paused
from aclog.records.schemas import parsed_schema
from aclog.records.types import AccessControlEntryRecord, RecordType
from aclog.replay.rebuild import restated
from aclog.snapshot import SnapshotContents, newest_valid_contents, read_snapshot
from aclog.snapshot.acl_columns import chunk_arrays
from benchmarks.probe_acl_table import _chunk_fields, probe_data
from benchmarks.probe_table_load import _best

FLOOR = "floor: fastavro decode of the snapshot's ACLs' log bodies"


def _table(contents: SnapshotContents) -> AclTable:
    table = AclTable.from_chunks(contents.chunks)
    if table is None:
        raise SystemExit("the snapshot states an ACL twice")
    return table


def _selected(directory: Path) -> AclTable:
    """What a loader would do: choose and read the newest snapshot, build the table."""
    found = newest_valid_contents(directory, on_warning=print)
    if found is None:
        raise SystemExit(f"no usable snapshot in {directory}")
    return _table(found[1])


def _unchecked(snapshot: Path) -> AclTable | None:
    """:mod:`benchmarks.probe_acl_table`'s read: fastavro's reader, no check at all."""
    return AclTable.from_chunks(chunk_arrays(f, split=False) for f in _chunk_fields(snapshot))


def _restated(snapshot: Path) -> MetadataImage:
    """The records' path: every record read, then restated into an image (the path a
    KRaft checkpoint and a snapshot that states an ACL twice take)."""
    reader = read_snapshot(snapshot)
    info = reader.info
    return restated(reader.read_all(), info.last_offset, info.epoch, info.timestamp_ms)


def _floor(directory: Path, count: int) -> Callable[[], None]:
    """fastavro decoding the bodies of the log's first ``count`` records, one call each."""
    values = [v for batch in read_batches(directory, 0) for v in batch.values][:count]
    schemas = {f: parsed_schema(RecordType(f[1]), f[2]) for f in {v[:3] for v in values}}
    pairs = [(v, schemas[v[:3]]) for v in values]

    def decode_only() -> None:
        for value, schema in pairs:
            stream = io.BytesIO(value)
            stream.seek(3)
            schemaless_reader(stream, schema, None)

    return decode_only


def main() -> None:
    directory, acls, _, snapshot = probe_data()
    contents = call_paused(read_snapshot(snapshot).read_columns)
    records = call_paused(read_snapshot(snapshot).read_all)
    table = call_paused(_table, contents)
    assert contents.acl_count == len(table) == acls == len(records), "the counts differ"
    assert call_paused(table.records) == [
        r for r in records if isinstance(r, AccessControlEntryRecord)
    ], "the table differs from the records"
    del table, records
    best = _best(
        {
            "today: read_snapshot().read_all() (file -> records)": lambda: read_snapshot(
                snapshot
            ).read_all(),
            "read_snapshot().read_columns() (file -> chunks)": lambda: read_snapshot(
                snapshot
            ).read_columns(),
            "read_columns() + AclTable.from_chunks (file -> table)": lambda: _table(
                read_snapshot(snapshot).read_columns()
            ),
            "newest_valid_contents + from_chunks (selection -> table)": lambda: _selected(
                directory
            ),
            "unchecked: fastavro reader + chunk_arrays + from_chunks": lambda: _unchecked(snapshot),
            "records: read_all + restate + apply (file -> image)": lambda: _restated(snapshot),
            FLOOR: _floor(directory, acls),
        }
    )
    print(f"{acls} snapshot ACLs ({snapshot.stat().st_size} bytes)")
    floor = best[FLOOR]
    for name, seconds in best.items():
        print(f"{seconds:8.3f} s  {seconds / floor:5.2f}x floor  {name}")


if __name__ == "__main__":
    main()
