"""The one way committed batches become an image: :func:`replay_batches`.

Every path from batches to an image goes through it: the broker's loader (batches read from
the log, or handed over in memory by a controller in the same process), the controller
catching up or rebuilding, its group commit, the tools' time travel. All the batches go into
ONE delta, applied once with the provenance of the last batch, so replaying n records costs
O(n) and readers of the result see whole batches only. A batch that straddles ``start`` (the
first offset the image does not hold yet) has only its records from ``start`` replayed.

Thread-safe (no shared state; the image is immutable). Cost: O(records replayed) plus one
``apply``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from aclog.image import MetadataDelta, MetadataImage, MetadataProvenance
from aclog.records.types import Record
from aclog.replay.runs import BatchRun
from aclog.replay.stream import DecodedBatch


class ReplayBatch(Protocol):
    """What replay needs of a committed batch, however it arrived (decoded from a segment,
    :class:`~aclog.replay.stream.DecodedBatch`; handed over from memory,
    :class:`CommittedBatch`): its records in offset order from ``base_offset`` to
    ``last_offset``, all committed with one epoch at one time."""

    @property
    def base_offset(self) -> int: ...

    @property
    def last_offset(self) -> int: ...

    @property
    def epoch(self) -> int: ...

    @property
    def timestamp_ms(self) -> int: ...

    @property
    def records(self) -> Sequence[Record]: ...


@dataclass(frozen=True, slots=True)
class CommittedBatch:
    """One batch a controller has made durable, as it wrote it: the records (led by the
    request's context record, if any) at offsets ``base_offset`` onwards, with one epoch and
    timestamp. Handed to commit listeners so that a broker in the same process can replay the
    commit without reading it back from disk (as KRaft's leader hands committed batches to its
    listeners from memory). Immutable."""

    base_offset: int
    epoch: int
    timestamp_ms: int
    records: tuple[Record, ...]

    @property
    def last_offset(self) -> int:
        return self.base_offset + len(self.records) - 1


@dataclass(frozen=True, slots=True)
class Replayed:
    """The image after a replay, the delta that made it (``None`` when there were no
    batches: the image is then the one replay started from), and how many batches (those a
    :class:`~aclog.replay.runs.BatchRun` joined counted each) and records went in."""

    image: MetadataImage
    delta: MetadataDelta | None
    batches: int
    records: int


def replay_batches(
    image: MetadataImage, batches: Iterable[ReplayBatch], *, start: int | None = None
) -> Replayed:
    """``image`` with ``batches`` (in log order, following it) replayed as one delta.

    ``start``: skip the records of the first batches below this offset (a batch that straddles
    it replays only its records from ``start``). Raises :class:`~aclog.image.ReplayError` for a
    record the image cannot take; nothing is applied then.

    >>> import uuid
    >>> from aclog.records import (AccessControlEntryRecord, AclOperation, AclPermissionType,
    ...                            PatternType, RemoveAccessControlEntryRecord, ResourceType)
    >>> acl = AccessControlEntryRecord(uuid.UUID(int=1), ResourceType.TOPIC, "orders",
    ...     PatternType.LITERAL, "User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)
    >>> added = CommittedBatch(base_offset=0, epoch=1, timestamp_ms=1000, records=(acl,))
    >>> replayed = replay_batches(MetadataImage.EMPTY, [added])
    >>> len(replayed.image.acls), replayed.image.provenance.last_offset
    (1, 0)
    >>> removed = CommittedBatch(1, 1, 2000, (RemoveAccessControlEntryRecord(acl.id),))
    >>> len(replay_batches(replayed.image, [removed]).image.acls)
    0
    """
    delta = MetadataDelta(image, backlog=True)
    last: ReplayBatch | None = None
    count = records = 0
    try:
        for batch in batches:
            records += _replay_one(delta, batch, start)
            count += batch.batches if isinstance(batch, BatchRun) else 1
            last = batch
    except Exception:
        delta.settle()  # an ACL record queued before whatever failed raises its error first
        raise
    if last is None:
        return Replayed(image, None, 0, 0)
    provenance = MetadataProvenance(last.last_offset, last.epoch, last.timestamp_ms)
    return Replayed(delta.apply(provenance), delta, count, records)


def _replay_one(delta: MetadataDelta, batch: ReplayBatch, start: int | None) -> int:
    """Replay ``batch`` (from ``start`` on) into ``delta``; how many records went in."""
    skip = 0 if start is None else max(start - batch.base_offset, 0)
    decoded = batch.decoded if isinstance(batch, DecodedBatch) else None
    if skip:
        delta.replay_records(batch.records[skip:], batch.base_offset + skip)
    elif decoded is not None:  # read from a segment: its records a type at a time
        delta.replay_decoded(decoded, batch.base_offset)
    else:
        delta.replay_records(batch.records, batch.base_offset)
    size = decoded.count if decoded is not None else len(batch.records)
    return max(size - skip, 0)
