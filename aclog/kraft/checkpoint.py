"""KRaft snapshots: ``{end_offset:020d}-{epoch:010d}.checkpoint`` files in the metadata log
directory (spec section 13.1).

``end_offset`` is exclusive: the snapshot holds the state after every record below it. The file
is a plain concatenation of v2 batches whose offsets restart at 0: a control batch whose first
record is the SnapshotHeaderRecord (LastContainedLogTimestamp), data batches of framed metadata
records, and a final control batch holding the SnapshotFooterRecord. A snapshot is written as
``.checkpoint.part`` and renamed when frozen; ``.checkpoint.deleted`` files are on their way out.
Both are ignored here, and a ``.checkpoint`` is immutable, so any damage in one (including a
missing footer) is an error rather than a torn tail.

Read-only; thread-safe (each call opens its own file). Cost: O(snapshot bytes).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from aclog.kraft.acl_batch import AclColumns, decode_acl_columns
from aclog.kraft.batch import (
    KraftBatch,
    control_records,
    decode_batch,
    kraft_records,
    snapshot_data_records,
)
from aclog.kraft.codec import SNAPSHOT_FOOTER, SNAPSHOT_HEADER, snapshot_header_timestamp
from aclog.kraft.errors import KraftCorruptError, KraftError
from aclog.kraft.paths import CHECKPOINT_SUFFIX as CHECKPOINT_SUFFIX  # noqa: PLC0414 (re-export)
from aclog.kraft.schemas import record_name
from aclog.log.segment import RawBatch, SegmentScan
from aclog.records import Record

_RECORD = itemgetter(3)  # KraftRecord.record, without a Python call per record
_CHECKPOINT_NAME = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")


@dataclass(frozen=True, slots=True, order=True)
class CheckpointFile:
    """A snapshot file as its name describes it; sorts by (end_offset, epoch)."""

    end_offset: int
    epoch: int
    path: Path

    @property
    def last_offset(self) -> int:
        """The offset of the last record the snapshot covers (``end_offset - 1``)."""
        return self.end_offset - 1


class KraftSnapshot(NamedTuple):
    """What :func:`read_checkpoint` returns: the snapshot's position and its aclog records."""

    end_offset: int
    epoch: int
    timestamp_ms: int
    records: list[Record]


@dataclass(frozen=True, slots=True)
class CheckpointInfo:
    """A snapshot that was read whole: where it is, what it covers and what it held."""

    path: Path
    end_offset: int
    epoch: int
    timestamp_ms: int
    record_count: int
    skipped: Mapping[int, int] = field(default_factory=dict)

    @property
    def last_offset(self) -> int:
        """The offset of the last record the snapshot covers (``end_offset - 1``)."""
        return self.end_offset - 1

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: path, end_offset, epoch, timestamp, records, and skipped: the count of
        each other KRaft record type by name (``{"TopicRecord": 3}``, as the import report's
        ``skipped``; a type this build does not name is ``"api key N"``)."""
        return {
            "path": str(self.path),
            "end_offset": self.end_offset,
            "epoch": self.epoch,
            "timestamp": self.timestamp_ms,
            "records": self.record_count,
            "skipped": dict(sorted((record_name(k), v) for k, v in self.skipped.items())),
        }


def parse_checkpoint_name(name: str) -> tuple[int, int] | None:
    """(end_offset, epoch) of a ``.checkpoint`` file name, or ``None`` for any other name."""
    match = _CHECKPOINT_NAME.match(name)
    return (int(match.group(1)), int(match.group(2))) if match else None


def list_checkpoints(directory: Path | str) -> list[CheckpointFile]:
    """Every frozen snapshot in ``directory``, oldest first (``.part``/``.deleted`` ignored)."""
    found = []
    for entry in os.scandir(directory):
        parsed = parse_checkpoint_name(entry.name)
        if parsed is not None and entry.is_file():
            found.append(CheckpointFile(parsed[0], parsed[1], Path(entry.path)))
    return sorted(found)


def newest_checkpoint(
    directory: Path | str, at_or_below: int | None = None
) -> CheckpointFile | None:
    """The newest snapshot whose last covered offset (``end_offset - 1``) is at or below
    ``at_or_below`` (``None``: any), by name only; ``None`` when there is none."""
    fitting = [
        c
        for c in list_checkpoints(directory)
        if at_or_below is None or c.last_offset <= at_or_below
    ]
    return fitting[-1] if fitting else None


def checkpoint_id(path: Path | str) -> CheckpointFile:
    """The (end offset, epoch) a snapshot's name gives; raise :class:`KraftError` otherwise."""
    path = Path(path)
    parsed = parse_checkpoint_name(path.name)
    if parsed is None:
        raise KraftError(
            f"{path} is not named like a KRaft snapshot "
            "({end offset, 20 digits}-{epoch, 10 digits}.checkpoint); the name gives its offset"
        )
    return CheckpointFile(parsed[0], parsed[1], path)


def read_checkpoint_batches(path: Path | str) -> Iterator[KraftBatch]:
    """Every batch of a snapshot with its snapshot-internal offsets, checked as it goes: the
    header must come first and the footer last (checked when the iteration ends)."""
    path = Path(path)
    for raw, control in _checked_batches(path):
        yield decode_batch(raw, path, in_snapshot=True) if control is None else control


def _checked_batches(path: Path) -> Iterator[tuple[RawBatch, KraftBatch | None]]:
    """Every raw batch of a snapshot, control batches also decoded (the footer is in one),
    with the checks of :func:`read_checkpoint_batches`."""
    scan = SegmentScan(path, position=0, next_offset=0)
    footer_seen = False
    for raw in scan:
        if footer_seen:
            raise KraftCorruptError(path, raw.position, "a batch follows the snapshot footer")
        if raw.position == 0:
            _check_header(raw, path)
        control = decode_batch(raw, path, in_snapshot=True) if raw.header.is_control else None
        footer_seen = control is not None and SNAPSHOT_FOOTER in control.skipped_control
        yield raw, control
    if scan.problem is not None:
        raise KraftCorruptError(path, scan.problem.position, scan.problem.reason)
    if scan.end_position == 0:
        raise KraftCorruptError(path, None, "the snapshot is empty (no header batch)")
    if not footer_seen:
        raise KraftCorruptError(
            path, None, "no SnapshotFooterRecord at the end: the snapshot is incomplete"
        )


def _check_header(raw: RawBatch, path: Path) -> int:
    """The LastContainedLogTimestamp of the snapshot header that must open the file."""
    if not raw.header.is_control:
        raise KraftCorruptError(
            path, 0, "the first batch is not a control batch with the SnapshotHeaderRecord"
        )
    offset, control_type, value = control_records(raw, path)[0]
    if control_type != SNAPSHOT_HEADER:
        raise KraftCorruptError(
            path, 0, f"the first control record has type {control_type}, not the snapshot header"
        )
    return snapshot_header_timestamp(value, path=path, offset=offset)


def checkpoint_timestamp(path: Path | str) -> int:
    """The LastContainedLogTimestamp in a snapshot's header (reads only the first batch)."""
    path = Path(path)
    scan = SegmentScan(path, position=0, next_offset=0)
    for raw in scan:
        return _check_header(raw, path)
    reason = scan.problem.reason if scan.problem else "the snapshot is empty"
    raise KraftCorruptError(path, 0, reason)


def read_checkpoint(path: Path | str) -> KraftSnapshot:
    """The whole snapshot: (end_offset, epoch, timestamp_ms, records), read and checked.

    ``timestamp_ms`` is the header's LastContainedLogTimestamp; ``records`` are the aclog
    records the snapshot restates (ACLs and SCRAM credentials), in file order.
    """
    snapshot, _ = _read_whole(path)
    return snapshot


def read_checkpoint_info(path: Path | str) -> tuple[CheckpointInfo, list[Record]]:
    """Like :func:`read_checkpoint`, with the skipped-record counts."""
    snapshot, skipped = _read_whole(path)
    info = CheckpointInfo(
        Path(path),
        snapshot.end_offset,
        snapshot.epoch,
        snapshot.timestamp_ms,
        len(snapshot.records),
        skipped,
    )
    return info, snapshot.records


def read_checkpoint_parts(path: Path | str) -> tuple[CheckpointInfo, list[Record | AclColumns]]:
    """Like :func:`read_checkpoint_info`, with the same checks and errors, but each data batch
    of ACL grants alone that :func:`~aclog.kraft.acl_batch.decode_acl_columns` takes stays
    columns (one :class:`AclColumns` in place of its records; no record object per ACL):
    what a replayer that builds its ACLs from columns reads. ``CheckpointInfo.records``
    counts the ACLs of the columns too."""
    snapshot, skipped = _read_whole(path, columns=True)
    parts: list[Record | AclColumns] = snapshot.records  # type: ignore[assignment]
    count = sum(len(p) if type(p) is AclColumns else 1 for p in parts)
    info = CheckpointInfo(
        Path(path), snapshot.end_offset, snapshot.epoch, snapshot.timestamp_ms, count, skipped
    )
    return info, parts


def _read_whole(path: Path | str, *, columns: bool = False) -> tuple[KraftSnapshot, dict[int, int]]:
    """The snapshot and its skipped counts; ``columns``: batches of grants stay columns."""
    ident = checkpoint_id(path)
    timestamp = checkpoint_timestamp(ident.path)
    records: list[Any] = []
    skipped: Counter[int] = Counter()
    for raw, control in _checked_batches(ident.path):
        grants = _grant_columns(raw) if columns and control is None else None
        if grants is not None:
            records.append(grants)
        elif control is None:  # a data batch: its records, without offsets nobody keeps
            found, skipped_here = snapshot_data_records(raw, ident.path)
            records += found
            skipped.update(skipped_here)
        else:
            records.extend(map(_RECORD, control.records))
    return KraftSnapshot(ident.end_offset, ident.epoch, timestamp, records), dict(skipped)


def _grant_columns(raw: RawBatch) -> AclColumns | None:
    """The columns of an uncompressed data batch of grants alone (else ``None``)."""
    if raw.data[22] & 0x27:  # compressed or a control batch: the general path
        return None
    return decode_acl_columns(raw.data, raw.header.record_count)


def checkpoint_batch(path: Path | str) -> KraftBatch:
    """A whole snapshot as one batch at its last covered offset (``end_offset - 1``), with the
    snapshot's epoch and header timestamp: snapshot records restate the state as of that offset
    and have no log offsets of their own (the same convention as aclog's own snapshots)."""
    info, records = read_checkpoint_info(path)
    return snapshot_as_batch(info, records)


def snapshot_as_batch(info: CheckpointInfo, records: list[Record]) -> KraftBatch:
    """The records of a read checkpoint as one batch at its last covered offset."""
    at = info.last_offset
    return KraftBatch(
        at,
        at,
        info.epoch,
        info.timestamp_ms,
        kraft_records(repeat(at), info.epoch, info.timestamp_ms, records),
        dict(info.skipped),
        {},
        False,
        info.path,
        0,
        True,
    )
