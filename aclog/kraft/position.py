"""Where an imported aclog batch came from in a KRaft metadata log: its position, kept in the
batch's own :class:`~aclog.records.RequestContextRecord`, so the aclog log itself is the
importer's durable position.

Every batch ``aclog import --from-kraft`` writes (one-shot or ``--follow``) starts with a
request context naming the requester ``unknown`` (KRaft does not record who asked), the KRaft
directory as the client address, ``aclog-import-kraft`` as the client id, the KRaft batch's
timestamp, and in ``api`` what it holds, in one of two forms::

    KRaft batch 13..14 epoch 2
    KRaft snapshot 00000000000000000013-0000000002.checkpoint records 0..99999 of 250000

A follow that ``--reconcile`` lets go on after a roll writes one batch holding the net effect
of the offsets it could no longer read, up to a snapshot (``KRaft snapshot
00000000000000000900-0000000003.checkpoint reconciled from offset 412``).

A follow also writes a *position mark*, a batch holding only the request context, when the
KRaft batches it read since its last write held no ACL or SCRAM change and it moves to a new
segment or stops (``KRaft batch 20..24 epoch 2 read; no ACL or SCRAM change since the previous
batch``): the segment its last write came from may be deleted once a newer snapshot passes it,
and the mark lets a restart resume after it anyway.

The context is written in the same atomic, fsynced batch as the changes, so after a crash the
position and the changes it covers are both present or both absent: a restart resumes after
the last batch the log holds, with no duplicate and no gap. The epoch lets a resume check that
the KRaft batch it stopped after is still there: by Raft's log-matching property, a batch with
the same last offset and epoch is the same batch, and a different epoch there means a new
leader truncated the log.

Immutable values; thread-safe. Cost: a regular expression per parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from aclog.records import RecordDecodeError, RequestContextRecord, decode

IMPORT_CLIENT_ID = "aclog-import-kraft"
"""The client id of every batch imported from KRaft."""
UNKNOWN_REQUESTER = "unknown"
"""The principal of an imported change: KRaft does not record who asked for it."""

_MARK = " read; no ACL or SCRAM change since the previous batch"
_BATCH = re.compile(rf"^KRaft batch (\d+)\.\.(\d+) epoch (\d+)({re.escape(_MARK)})?$")
_SNAPSHOT = re.compile(r"^KRaft snapshot (\S+\.checkpoint) records (\d+)\.\.(\d+) of (\d+)$")
_RECONCILED = re.compile(r"^KRaft snapshot (\S+\.checkpoint) reconciled from offset (\d+)$")


@dataclass(frozen=True, slots=True)
class BatchPosition:
    """An aclog batch holding the aclog records of KRaft batch ``base..last`` (one epoch), or
    only marking (``mark``) that everything up to it was read: the next KRaft offset to import
    is ``last + 1``."""

    base_offset: int
    last_offset: int
    epoch: int
    mark: bool = False

    def describe(self) -> str:
        """The ``api`` text of the request context."""
        text = f"KRaft batch {self.base_offset}..{self.last_offset} epoch {self.epoch}"
        return text + _MARK if self.mark else text


@dataclass(frozen=True, slots=True)
class SnapshotPosition:
    """An aclog batch holding records ``first..last`` (0-based, inclusive) of the ``total``
    aclog records of the KRaft snapshot file ``name``; a snapshot larger than one aclog batch
    is written in several, and an import interrupted between them resumes inside it."""

    name: str
    first: int
    last: int
    total: int
    reconciled_from: int | None = None

    @classmethod
    def reconciled(cls, name: str, from_offset: int) -> SnapshotPosition:
        """The batch taking the state at ``from_offset - 1`` to the snapshot ``name``'s."""
        return cls(name, 0, 0, 1, from_offset)

    @property
    def complete(self) -> bool:
        """Whether this is the snapshot's last part."""
        return self.last + 1 >= self.total

    def describe(self) -> str:
        """The ``api`` text of the request context."""
        if self.reconciled_from is not None:
            return f"KRaft snapshot {self.name} reconciled from offset {self.reconciled_from}"
        return f"KRaft snapshot {self.name} records {self.first}..{self.last} of {self.total}"


Position = BatchPosition | SnapshotPosition


def import_context(source: Path, timestamp_ms: int, position: Position) -> RequestContextRecord:
    """The request context opening an imported batch: requester unknown, from ``source``."""
    return RequestContextRecord(
        UNKNOWN_REQUESTER, str(source), IMPORT_CLIENT_ID, timestamp_ms, position.describe()
    )


def position_of(context: RequestContextRecord | None) -> Position | None:
    """The KRaft position a batch's request context records, or ``None`` when the batch was
    not imported from KRaft (another client, or no context).

    >>> position_of(import_context(Path("/k"), 5, BatchPosition(13, 14, 2)))
    BatchPosition(base_offset=13, last_offset=14, epoch=2, mark=False)
    >>> position_of(None) is None
    True
    """
    if context is None or context.client_id != IMPORT_CLIENT_ID or context.api is None:
        return None
    batch = _BATCH.match(context.api)
    if batch is not None:
        base, last, epoch, mark = batch.groups()
        return BatchPosition(int(base), int(last), int(epoch), mark is not None)
    snapshot = _SNAPSHOT.match(context.api)
    if snapshot is not None:
        name, first, last, total = snapshot.groups()
        return SnapshotPosition(name, int(first), int(last), int(total))
    reconciled = _RECONCILED.match(context.api)
    if reconciled is not None:
        return SnapshotPosition.reconciled(reconciled.group(1), int(reconciled.group(2)))
    return None


def opening_context(value: bytes) -> RequestContextRecord | None:
    """The request context a batch opens with (its first record ``value``), if it is one."""
    try:
        record = decode(value)
    except RecordDecodeError:
        return None
    return record if isinstance(record, RequestContextRecord) else None
