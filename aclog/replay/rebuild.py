"""Rebuilding the metadata image from a data directory: the newest usable snapshot, then each
batch after it, as the controller, brokers and tools start; time travel stops the walk early.

Only whole batches are applied: a point inside a batch gives the state before it (a batch is
atomic). :func:`aclog.snapshot.newest_valid_snapshot` picks the snapshot (newest at or below the
target; a corrupt one is reported through ``on_warning`` and an older one, or the log, used).

A KRaft metadata directory (``kraft=True``) is rebuilt the same way from its newest usable
``.checkpoint`` and the KRaft batches after it (:mod:`aclog.kraft`), which
``Rebuilt.kraft_checkpoint`` names (``Rebuilt.snapshot`` is ``None``).

Thread-safe (no shared state). Cost: one snapshot read plus O(records after it). A rebuild
makes many objects and frees few, so the cyclic collector's full passes would walk the growing
image again and again: callers pause it (:func:`aclog.records.collector.gc_paused`), as the CLI
and a broker's loader do; the library never touches the process-wide collector.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aclog.image import MetadataDelta, MetadataImage, MetadataProvenance
from aclog.log import LogBatch, read_batches
from aclog.log.check import check_batches
from aclog.log.segment import list_segments
from aclog.records.types import Record
from aclog.records.warning import OnWarning, ignore_warning
from aclog.replay.batches import ReplayBatch, Replayed, replay_batches
from aclog.replay.runs import decoded_runs
from aclog.replay.stream import DecodedBatch, decode_batch
from aclog.snapshot import (
    NoUsableSnapshotError,
    SnapshotContents,
    SnapshotInfo,
    newest_valid_contents,
    read_snapshot,
)

if TYPE_CHECKING:
    from aclog.kraft import CheckpointInfo


class RebuildError(Exception):
    """The data directory cannot produce the requested state; the message says why."""


@dataclass(frozen=True)
class Rebuilt:
    """An image, the snapshot (or checkpoint) it started from, and what was replayed after."""

    image: MetadataImage
    snapshot: SnapshotInfo | None
    records_replayed: int
    kraft_checkpoint: CheckpointInfo | None = None
    batches_replayed: int = 0

    @property
    def next_offset(self) -> int:
        """The first offset the image does not include."""
        return self.image.provenance.last_offset + 1


def rebuild_image(
    directory: Path,
    *,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    use_snapshots: bool = True,
    on_warning: OnWarning = ignore_warning,
    on_batch: Callable[[DecodedBatch], None] | None = None,
    kraft: bool = False,
) -> Rebuilt:
    """The state after every whole batch at or below ``at_offset`` and at or before
    ``at_time_ms`` (both ``None``: the whole log); ``kraft=True`` reads a KRaft metadata
    directory (``__cluster_metadata-0``) instead of an aclog data directory.

    >>> import tempfile, uuid
    >>> from aclog.log import SegmentedLog
    >>> from aclog.records import (AccessControlEntryRecord, AclOperation, AclPermissionType,
    ...     PatternType, RemoveAccessControlEntryRecord, ResourceType, encode)
    >>> acl = AccessControlEntryRecord(uuid.UUID(int=1), ResourceType.TOPIC, "orders",
    ...     PatternType.LITERAL, "User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with SegmentedLog(tmp, fsync=False) as log:
    ...         _ = log.append([encode(acl)], epoch=1, timestamp_ms=1000)
    ...         _ = log.append([encode(RemoveAccessControlEntryRecord(acl.id))], epoch=1)
    ...     now, then = rebuild_image(Path(tmp)), rebuild_image(Path(tmp), at_offset=0)
    >>> len(now.image.acls), now.next_offset, len(then.image.acls), then.next_offset
    (0, 2, 1, 1)
    """
    if kraft:
        return _rebuild_from_kraft(
            directory, at_offset, at_time_ms, use_snapshots, on_warning, on_batch
        )
    return _rebuild_from_log(directory, at_offset, at_time_ms, use_snapshots, on_warning, on_batch)


def _rebuild_from_log(
    directory: Path,
    at_offset: int | None,
    at_time_ms: int | None,
    use_snapshots: bool,
    on_warning: OnWarning,
    on_batch: Callable[[DecodedBatch], None] | None,
) -> Rebuilt:
    segments = list_segments(directory)
    log_start = segments[0][0] if segments else 0
    found = None
    if use_snapshots:
        try:
            found = newest_valid_contents(
                directory,
                at_or_below=at_offset,
                at_time_ms=at_time_ms,
                on_warning=on_warning,
                log_start_offset=log_start,
            )
        except NoUsableSnapshotError as error:
            raise RebuildError(str(error)) from None
    image, start = MetadataImage.EMPTY, 0
    if found is not None:
        info, contents = found
        image = _restated_contents(info, contents)
        start = info.last_offset + 1
    elif _log_bytes(segments) < SMALL_LOG_BYTES:
        image = MetadataImage.SMALL
    _check_log_reaches(directory, start)
    check_batches(directory, 0, start)  # damage a snapshot covers is damage all the same
    tail = _replayed_tail(directory, image, start, at_offset, at_time_ms, on_batch)
    if at_offset is not None or at_time_ms is not None:
        check_batches(directory, tail.image.provenance.last_offset + 1)  # and damage after
    snapshot = found[0] if found else None
    return Rebuilt(tail.image, snapshot, tail.records, batches_replayed=tail.batches)


SMALL_LOG_BYTES = 256 * 1024
"""A log of fewer segment bytes (and no snapshot) is replayed from
:attr:`~aclog.image.MetadataImage.SMALL`, record by record into a mapping as a writer's commits
are, so that a small ``acls list`` loads no numpy or pyarrow; the image holds a table once it
holds :data:`~aclog.image.acls_image.TABLE_MIN` ACLs."""


def _log_bytes(segments: list[tuple[int, Path]]) -> int:
    """The bytes of ``segments`` (one that vanished since it was listed counts none)."""
    total = 0
    for _, path in segments:
        with contextlib.suppress(FileNotFoundError):
            total += path.stat().st_size
    return total


def restated(
    records: list[Record], last_offset: int, epoch: int, timestamp_ms: int
) -> MetadataImage:
    """The image a snapshot's ``records`` restate, at its last covered offset."""
    delta = MetadataDelta(MetadataImage.EMPTY, snapshot=True)
    delta.replay_restated(records, last_offset)
    return delta.apply(MetadataProvenance(last_offset, epoch, timestamp_ms))


def _restated_contents(info: SnapshotInfo, contents: SnapshotContents) -> MetadataImage:
    """The image a snapshot restates, its ACLs a table made from its columns (no record per
    ACL); one stating an id or binding twice goes through its records, which name the error."""
    from aclog.image.acl_column_rows import of_chunks, of_records  # noqa: PLC0415  # numpy
    from aclog.image.acl_table import AclTable  # noqa: PLC0415

    chunks = of_chunks(list(contents.chunks))
    table = AclTable.build([chunks, of_records(list(contents.acl_rows))])
    if table is None:
        records = read_snapshot(info.path).read_all()
        return restated(records, info.last_offset, info.epoch, info.timestamp_ms)
    delta = MetadataDelta(MetadataImage.EMPTY, snapshot=True)
    delta.restate_table(table, contents.others, info.last_offset)
    return delta.apply(MetadataProvenance(info.last_offset, info.epoch, info.timestamp_ms))


def _check_log_reaches(directory: Path, start: int) -> None:
    segments = list_segments(directory)
    if segments and segments[0][0] > start:
        raise RebuildError(
            f"the log in {directory} starts at offset {segments[0][0]}, but the state needs "
            f"offsets from {start}: the segments below were deleted and no valid snapshot "
            "covers them; restore a snapshot or pick a later point"
        )


def replay_tail(
    directory: Path,
    image: MetadataImage,
    start: int,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    on_batch: Callable[[DecodedBatch], None] | None = None,
) -> tuple[MetadataImage, int]:
    """``image`` with the log's records from ``start`` replayed as one delta (whole batches at
    or below ``at_offset`` and at or before ``at_time_ms``), and how many were replayed.
    Without ``on_batch``, runs of small batches decode together
    (:func:`~aclog.replay.runs.decoded_runs`); ``on_batch`` hears of each batch once replayed."""
    replayed = _replayed_tail(directory, image, start, at_offset, at_time_ms, on_batch)
    return replayed.image, replayed.records


def _replayed_tail(
    directory: Path,
    image: MetadataImage,
    start: int,
    at_offset: int | None,
    at_time_ms: int | None,
    on_batch: Callable[[DecodedBatch], None] | None,
) -> Replayed:
    """:func:`replay_tail`, with the whole :class:`~aclog.replay.batches.Replayed`."""
    raw: Iterable[LogBatch] = read_batches(directory, start)
    if at_offset is not None or at_time_ms is not None:
        raw = _within(raw, at_offset, at_time_ms)  # (not a step a batch when replaying all)
    batches: Iterable[ReplayBatch]
    if on_batch is None:
        batches = decoded_runs(raw, start)
    else:
        batches = _told(map(decode_batch, raw), on_batch)
    return replay_batches(image, batches, start=start)  # a batch may straddle the start


def _within(
    batches: Iterable[LogBatch], at_offset: int | None, at_time_ms: int | None
) -> Iterator[LogBatch]:
    """The whole batches at or below ``at_offset`` and at or before ``at_time_ms``. The first
    batch past them is decoded, not replayed: damage in it is refused as in a replay of
    everything (the point must not hide a record that does not decode right after it)."""
    for batch in batches:
        if (at_offset is not None and batch.last_offset > at_offset) or (
            at_time_ms is not None and batch.timestamp_ms > at_time_ms
        ):
            decode_batch(batch)
            return
        yield batch


def _told(
    batches: Iterable[DecodedBatch], on_batch: Callable[[DecodedBatch], None]
) -> Iterator[DecodedBatch]:
    """``batches``, ``on_batch`` hearing of each once it was replayed."""
    for batch in batches:
        yield batch
        on_batch(batch)  # resumed: the consumer has replayed the batch


def _rebuild_from_kraft(
    directory: Path,
    at_offset: int | None,
    at_time_ms: int | None,
    use_snapshots: bool,
    on_warning: OnWarning,
    on_batch: Callable[[DecodedBatch], None] | None,
) -> Rebuilt:
    # Imported here: the KRaft readers load kafka-python's protocol classes, which a rebuild
    # of an aclog data directory (every small `acls list`) need not pay for at start.
    from aclog.kraft import KraftError, kraft_replay_source  # noqa: PLC0415
    from aclog.replay.kraft_batches import KraftTail  # noqa: PLC0415

    try:
        source = kraft_replay_source(
            directory,
            at_offset,
            at_time_ms,
            use_snapshots=use_snapshots,
            on_warning=on_warning,
            acl_columns=True,
        )
        image, start, info = MetadataImage.EMPTY, 0, source.checkpoint
        if info is not None:
            image = _restated_checkpoint(info, source.restated_parts or [])
            start = info.end_offset
        tail = KraftTail(source.batches, on_batch)
        replayed = replay_batches(image, tail, start=start)
    except KraftError as error:
        raise RebuildError(f"cannot replay the KRaft metadata in {directory}: {error}") from None
    return Rebuilt(replayed.image, None, tail.records, info, replayed.batches)


def _restated_checkpoint(info: CheckpointInfo, parts: list[Any]) -> MetadataImage:
    """The image a KRaft checkpoint restates, its ACLs made a table straight from the columns
    it was read as (:func:`~aclog.kraft.read_checkpoint_parts`). One that a table refuses (an
    id or a binding twice, or an ACL removal) is restated from its records instead, which
    raises the error naming it."""
    from aclog.kraft import read_checkpoint_info  # noqa: PLC0415  (see _rebuild_from_kraft)
    from aclog.replay.kraft_restate import restated_kraft_table  # noqa: PLC0415

    found = restated_kraft_table(parts)
    if found is None:
        _, records = read_checkpoint_info(info.path)
        return restated(records, info.last_offset, info.epoch, info.timestamp_ms)
    table, others = found
    delta = MetadataDelta(MetadataImage.EMPTY, snapshot=True)
    delta.restate_table(table, others, info.last_offset)
    return delta.apply(MetadataProvenance(info.last_offset, info.epoch, info.timestamp_ms))
