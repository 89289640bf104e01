"""What ``aclog dump`` reads: the entries of data directories, segment files, snapshots and KRaft
metadata (a ``__cluster_metadata-0`` directory or a ``.checkpoint``), each path read by its kind,
between two offsets, in the order given.

A snapshot's records have no offsets of their own: they restate the state as of its last offset,
so they read as one batch at that offset and epoch. A data directory's fenced tails (a deposed
leader's bytes past a newer epoch's fence) are neither records of the log nor damage: each is
one warning after the directory's entries.

Not thread-safe per iterator (each reads its files in turn); separate calls share nothing.
Cost: O(records read); a snapshot's records are held as one batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from aclog.log import fenced_tails
from aclog.records import RECORD_TYPES
from aclog.records.warning import OnWarning
from aclog.replay.kraft_stream import kraft_decoded_batches
from aclog.replay.stream import (
    DecodedBatch,
    Entry,
    entries_between,
    read_decoded,
    read_segment_decoded,
)
from aclog.snapshot import SNAPSHOT_SUFFIX, read_snapshot


def snapshot_batch(path: Path) -> DecodedBatch:
    """A snapshot's records as one batch at the snapshot's offset and epoch."""
    reader = read_snapshot(path)
    info = reader.info
    entries = tuple(
        Entry(
            info.last_offset,
            info.epoch,
            info.timestamp_ms,
            RECORD_TYPES[type(record)],
            info.schema_versions.get(type(record).__name__, 0),
            record,
            info.last_offset,
            None,
        )
        for record in reader.records()
    )
    return DecodedBatch.of_entries(
        info.last_offset, info.last_offset, info.epoch, info.timestamp_ms, entries, None
    )


def dump_entries(
    paths: Sequence[Path],
    kraft: Sequence[bool],
    from_offset: int,
    to_offset: int | None,
    on_warning: OnWarning,
) -> Iterator[Entry]:
    """The entries of each of ``paths`` (``kraft``: which are KRaft metadata) with offsets in
    ``[from_offset, to_offset)``; a data directory is read strictly (damage raises)."""
    for path, is_kraft in zip(paths, kraft, strict=True):
        if is_kraft:
            batches = kraft_decoded_batches(path, from_offset, to_offset, on_warning=on_warning)
        elif path.name.endswith(SNAPSHOT_SUFFIX):
            batches = iter([snapshot_batch(path)])
        elif path.is_dir():
            batches = read_decoded(path, from_offset, to_offset, strict=True)
        else:
            batches = read_segment_decoded(path)
        yield from entries_between(batches, from_offset, to_offset)
        if path.is_dir() and not is_kraft:
            for fenced in fenced_tails(path):
                on_warning(str(fenced))


def reporting_batches(
    entries: Iterator[Entry], on_offset: Callable[[int], None]
) -> Iterator[Entry]:
    """``entries``, telling ``on_offset`` the first offset of each new batch (an update per
    record would cost more than a dump's line for it)."""
    batch = -1
    for entry in entries:
        if entry.batch_base_offset != batch:
            batch = entry.batch_base_offset
            on_offset(entry.offset)
        yield entry
