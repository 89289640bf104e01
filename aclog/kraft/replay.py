"""What a replayer needs from a KRaft metadata directory: the newest usable snapshot, then the
log batches after it, up to a point.

:func:`kraft_replay_source` picks the newest ``.checkpoint`` at or below the target (by offset,
and by its header timestamp for a point in time), reads it whole and checks it, and falls back
to an older one when it is damaged (reported through ``on_warning``), as long as the log still
reaches back to it: the rule of :func:`aclog.snapshot.choose_for_point`, as for aclog's own
snapshots. It gives the snapshot's records as one list (as aclog's own snapshot reader does: a
replayer restates them in one go) and every log batch from ``end_offset`` on;
:func:`kraft_replay_batches` gives the snapshot as ONE :class:`KraftBatch` with
``from_checkpoint=True`` placed at its last covered offset (``end_offset - 1``) before them.
Like aclog's own replay, only whole batches are returned: a target offset or time inside a batch
gives the state before that batch.

Read-only; thread-safe (each call opens its own files). Cost: one snapshot read plus O(bytes of
log after it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from aclog.kraft.acl_batch import AclColumns
from aclog.kraft.batch import KraftBatch
from aclog.kraft.checkpoint import (
    CheckpointFile,
    CheckpointInfo,
    checkpoint_timestamp,
    list_checkpoints,
    read_checkpoint_info,
    read_checkpoint_parts,
    snapshot_as_batch,
)
from aclog.kraft.column_batch import KraftColumnBatch
from aclog.kraft.errors import KraftError, KraftLayoutError
from aclog.kraft.reader import read_kraft, read_kraft_columns
from aclog.kraft.tail_report import tail_warner
from aclog.log.segment import list_segments
from aclog.records import Record
from aclog.records.warning import OnWarning, ignore_warning
from aclog.snapshot import choose_for_point


class KraftReplaySource(NamedTuple):
    """Where a replay of a KRaft directory starts: the snapshot used (``None``: the log from
    offset 0), the records it restates (replay them as a snapshot at its last covered offset,
    ``end_offset - 1``), and the log batches after it, read lazily. Read with
    ``acl_columns=True``, ``restated`` is empty, ``restated_parts`` holds the snapshot's
    records in order with its batches of grants as :class:`AclColumns` blocks in their place
    (:func:`~aclog.kraft.checkpoint.read_checkpoint_parts`), and each log batch of ACL records
    the column decoder takes is a :class:`KraftColumnBatch` (else every batch is a
    :class:`KraftBatch`)."""

    checkpoint: CheckpointInfo | None
    restated: list[Record]
    batches: Iterator[KraftBatch | KraftColumnBatch]
    restated_parts: list[Record | AclColumns] | None = None


def kraft_replay_source(
    directory: Path | str,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    *,
    use_snapshots: bool = True,
    on_warning: OnWarning = ignore_warning,
    acl_columns: bool = False,
) -> KraftReplaySource:
    """The snapshot, its records and the log batches after it for the state after every whole
    batch at or below ``at_offset`` and at or before ``at_time_ms``; ``use_snapshots=False``
    reads the whole log from offset 0 instead; ``acl_columns=True`` gives the snapshot as
    ``restated_parts`` and batches of ACL records as columns (see :class:`KraftReplaySource`).

    Raises :class:`KraftLayoutError` when the log starts above offset 0 (Kafka deleted the
    segments below a snapshot) and no readable snapshot covers the missing offsets. Errors in
    the log batches are raised while iterating.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise KraftLayoutError(f"no KRaft metadata directory at {directory}")
    segments = list_segments(directory)
    log_start = segments[0][0] if segments else None
    info: CheckpointInfo | None = None
    records: list[Record | AclColumns] = []
    problems: list[str] = []

    def warn(message: str) -> None:
        problems.append(message)
        on_warning(message)

    if use_snapshots:
        found = _choose_snapshot(directory, log_start, at_offset, at_time_ms, warn, acl_columns)
        info, records = found
    start = 0 if info is None else info.end_offset
    if log_start is not None and log_start > start:
        message = _gap_message(directory, log_start, start, at_offset, use_snapshots)
        raise KraftLayoutError("; ".join([message, *problems]))
    read = read_kraft_columns if acl_columns else read_kraft
    batches = _log_batches(
        read(directory, start, on_tail=tail_warner(on_warning)), start, at_offset, at_time_ms
    )
    if acl_columns:
        return KraftReplaySource(info, [], batches, records)
    return KraftReplaySource(info, records, batches)  # type: ignore[arg-type]


def kraft_replay_batches(
    directory: Path | str,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    *,
    use_snapshots: bool = True,
    on_warning: OnWarning = ignore_warning,
) -> tuple[CheckpointInfo | None, Iterator[KraftBatch]]:
    """(the snapshot used or ``None``, its batch then the log batches after it): what
    :func:`kraft_replay_source` gives, the snapshot's records as ONE batch at its last covered
    offset (``from_checkpoint=True``). Raises as :func:`kraft_replay_source`.
    """
    source = kraft_replay_source(
        directory, at_offset, at_time_ms, use_snapshots=use_snapshots, on_warning=on_warning
    )
    return source.checkpoint, _with_snapshot(source)


def _with_snapshot(source: KraftReplaySource) -> Iterator[KraftBatch]:
    if source.checkpoint is not None:
        yield snapshot_as_batch(source.checkpoint, source.restated)
    for batch in source.batches:  # all records (read without acl_columns)
        yield batch if isinstance(batch, KraftBatch) else batch.kraft_batch()


def _choose_snapshot(
    directory: Path,
    log_start: int | None,
    at_offset: int | None,
    at_time_ms: int | None,
    on_warning: OnWarning,
    acl_columns: bool,
) -> tuple[CheckpointInfo | None, list[Record | AclColumns]]:
    """The checkpoint to start from, by the one rule (:func:`aclog.snapshot.choose_for_point`);
    ``acl_columns``: read as :func:`~aclog.kraft.checkpoint.read_checkpoint_parts`."""
    read = read_checkpoint_parts if acl_columns else read_checkpoint_info

    def skip(candidate: CheckpointFile, error: Exception) -> None:
        if isinstance(error, FileNotFoundError):
            on_warning(f"snapshot {candidate.path.name} was deleted while being read; skipped")
        else:
            on_warning(f"snapshot {candidate.path.name} is unusable, trying an older one: {error}")

    found = choose_for_point(
        list_checkpoints(directory),
        lambda candidate: read(candidate.path),
        unusable=(KraftError, OSError),
        on_skip=skip,
        at_offset=at_offset,
        at_time_ms=at_time_ms,
        taken_at=lambda candidate: checkpoint_timestamp(candidate.path),
        log_start_offset=0 if log_start is None else log_start,
    )
    chosen: tuple[CheckpointInfo, list[Record | AclColumns]] | None
    chosen = None if found is None else found[1]  # type: ignore[assignment]
    return (None, []) if chosen is None else chosen


def _gap_message(
    directory: Path, log_start: int, start: int, at_offset: int | None, use_snapshots: bool
) -> str:
    target = "the end of the log" if at_offset is None else f"offset {at_offset}"
    why = (
        "no readable .checkpoint at or below the target covers them; pick a later point"
        if use_snapshots
        else "a full replay without snapshots cannot cover them"
    )
    return (
        f"the KRaft log in {directory} starts at offset {log_start}, but the state at {target} "
        f"needs offsets from {start}: Kafka deleted the segments below its snapshots and {why}"
    )


def _log_batches(
    batches: Iterator[KraftBatch | KraftColumnBatch],
    start: int,
    at_offset: int | None,
    at_time_ms: int | None,
) -> Iterator[KraftBatch | KraftColumnBatch]:
    for batch in batches:
        if at_offset is not None and batch.last_offset > at_offset:
            return
        if at_time_ms is not None and batch.timestamp_ms > at_time_ms:
            return
        if batch.base_offset < start:  # straddles the snapshot: keep only what follows it
            whole = batch if isinstance(batch, KraftBatch) else batch.kraft_batch()
            yield replace(whole, records=tuple(r for r in whole.records if r.offset >= start))
        else:
            yield batch
