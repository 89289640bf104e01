"""Writing Kafka's own KRaft metadata format: framed metadata record values (spec section 12),
data and control batches (section 13), log segments and ``.checkpoint`` snapshots (13.1).

For fixtures: a KRaft metadata directory that ``aclog replay --format kraft``, ``dump``,
``explain`` and ``import --from-kraft`` read, made without a Kafka cluster (tests, benchmarks,
a user trying the importer). Only the record types KRaft shares with aclog are written
(AccessControlEntryRecord 18, RemoveAccessControlEntryRecord 19, UserScramCredentialRecord 11,
RemoveUserScramCredentialRecord 22 and NoOpRecord 20, all version 0), plus the control records
Kafka's raft layer writes (LeaderChangeMessage, SnapshotHeaderRecord, KRaftVersionRecord,
SnapshotFooterRecord). A broker needs the rest of a cluster's metadata (topics, brokers,
features) too: this does not make a directory Kafka itself would start from.

Bodies are encoded by hand from Kafka's message schemas (:mod:`aclog.kraft.encoding`),
independently of the reader (:mod:`aclog.kraft.codec` decodes with kafka-python's schema
codec), so the two check each other. Batches are built by kafka-python's
``DefaultRecordBatchBuilder`` and patched the way Kafka's raft layer assigns base offset and
leader epoch; control batches get the control flag and their CRC-32C again.

>>> import tempfile, uuid
>>> from aclog.kraft import read_checkpoint, read_kraft
>>> from aclog.records import (AccessControlEntryRecord, AclOperation, AclPermissionType,
...     PatternType, RemoveAccessControlEntryRecord, ResourceType)
>>> acl = AccessControlEntryRecord(uuid.UUID(int=1), ResourceType.TOPIC, "orders",
...     PatternType.LITERAL, "User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)
>>> with tempfile.TemporaryDirectory() as tmp:
...     directory = Path(tmp) / "__cluster_metadata-0"
...     log = LogBuilder(directory)
...     offsets = [log.leader_change(leader_id=1, epoch=1, timestamp_ms=1000),
...                log.records([acl], epoch=1, timestamp_ms=1000),
...                log.records([RemoveAccessControlEntryRecord(acl.id)], 1, 2000)]
...     _ = log.flush()
...     checkpoint = write_checkpoint(directory, 2, 1, [encode_record(acl)], 1000)
...     logged = [len(batch.records) for batch in read_kraft(directory)]
...     snapshot = read_checkpoint(checkpoint)
>>> offsets, logged, checkpoint.name, snapshot.records == [acl]
([0, 1, 2], [1, 1, 1], '00000000000000000002-0000000001.checkpoint', True)

Thread-safety: the functions are pure; a :class:`LogBuilder` belongs to one thread. Cost:
O(bytes written), plus kafka-python's work per record of a batch.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable, Sequence
from pathlib import Path

from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.util import calc_crc32c

from aclog.kraft.codec import LEADER_CHANGE, SNAPSHOT_FOOTER, SNAPSHOT_HEADER
from aclog.kraft.encoding import (
    encode_record,
    kraft_version_value,
    leader_change_value,
    snapshot_footer_value,
    snapshot_header_value,
)
from aclog.records import Record

KRAFT_VERSION = 5
"""The control type of KRaftVersionRecord (a snapshot header batch holds one since Kafka 3.9)."""
_CONTROL_FLAG = 0x20


def _build(
    entries: Sequence[tuple[bytes | None, bytes]],
    base_offset: int,
    epoch: int,
    timestamp_ms: int,
    compression_type: int = 0,
) -> bytearray:
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=compression_type,
        is_transactional=False,
        producer_id=-1,
        producer_epoch=-1,
        base_sequence=-1,
        batch_size=1 << 30,
    )
    for delta, (key, value) in enumerate(entries):
        builder.append(delta, timestamp_ms, key, value, [])
    buffer: bytearray = builder.build()
    # Outside the CRC (which starts at the attributes): set as the raft layer assigns them.
    struct.pack_into(">q", buffer, 0, base_offset)
    struct.pack_into(">i", buffer, 12, epoch)
    return buffer


def data_batch(
    values: Sequence[bytes],
    base_offset: int,
    epoch: int,
    timestamp_ms: int,
    compression_type: int = 0,
) -> bytes:
    """A KRaft data batch of framed ``values``: null keys, no headers, one timestamp,
    producer id/epoch/sequence -1 (``compression_type`` 1 is gzip; KRaft never compresses)."""
    entries = [(None, v) for v in values]
    return bytes(_build(entries, base_offset, epoch, timestamp_ms, compression_type))


def control_batch(
    records: Sequence[tuple[int, bytes]], base_offset: int, epoch: int, timestamp_ms: int
) -> bytes:
    """A control batch of (ControlRecordType, message) records with 4-byte control keys."""
    entries = [(struct.pack(">hh", 0, kind), value) for kind, value in records]
    buffer = _build(entries, base_offset, epoch, timestamp_ms)
    (attributes,) = struct.unpack_from(">h", buffer, 21)
    struct.pack_into(">h", buffer, 21, attributes | _CONTROL_FLAG)
    struct.pack_into(">I", buffer, 17, calc_crc32c(memoryview(buffer)[21:]))
    return bytes(buffer)


class LogBuilder:
    """Represents a KRaft metadata log directory being written batch by batch: the current
    segment is held in memory and written by :meth:`flush` (or :meth:`roll`, which then starts
    the next segment at the next offset). ``batches`` lists (base offset, last offset, epoch,
    timestamp) of every batch added. Not thread-safe."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.next_offset = 0
        self.segment_base = 0
        self._segment = bytearray()
        self.batches: list[tuple[int, int, int, int]] = []

    def start_at(self, offset: int) -> None:
        """Begin the log at ``offset`` (as after Kafka deleted the segments below a snapshot);
        only before the first batch."""
        if self._segment or self.next_offset != self.segment_base:
            raise ValueError("start_at() must come before the first batch of a segment")
        self.next_offset = self.segment_base = offset

    def data(self, values: Sequence[bytes], epoch: int, timestamp_ms: int) -> int:
        """Add a data batch of framed ``values``; its base offset."""
        return self._add(data_batch(values, self.next_offset, epoch, timestamp_ms), len(values))

    def records(self, records: Iterable[Record], epoch: int, timestamp_ms: int) -> int:
        """Add a data batch of ``records`` (see :func:`encode_record`); its base offset."""
        return self.data([encode_record(r) for r in records], epoch, timestamp_ms)

    def control(self, records: Sequence[tuple[int, bytes]], epoch: int, timestamp_ms: int) -> int:
        """Add a control batch of (control type, message) records; its base offset."""
        return self._add(
            control_batch(records, self.next_offset, epoch, timestamp_ms), len(records)
        )

    def leader_change(self, leader_id: int, epoch: int, timestamp_ms: int) -> int:
        """Add the LeaderChangeMessage a new leader of ``epoch`` writes first; its offset."""
        return self.control([(LEADER_CHANGE, leader_change_value(leader_id))], epoch, timestamp_ms)

    def _add(self, batch: bytes, count: int) -> int:
        base = self.next_offset
        (epoch,) = struct.unpack_from(">i", batch, 12)
        (timestamp,) = struct.unpack_from(">q", batch, 35)
        self.batches.append((base, base + count - 1, epoch, timestamp))
        self._segment += batch
        self.next_offset += count
        return base

    def roll(self) -> None:
        """Write the current segment and start the next one at the next offset."""
        self.flush()
        self._segment = bytearray()
        self.segment_base = self.next_offset

    def flush(self) -> Path:
        """Write the current segment (``{base offset:020d}.log``) as it is so far; its path."""
        path = self.directory / f"{self.segment_base:020d}.log"
        path.write_bytes(bytes(self._segment))
        return path


def write_checkpoint(
    directory: Path,
    end_offset: int,
    epoch: int,
    values: Sequence[bytes],
    timestamp_ms: int,
    *,
    batch_size: int = 3,
    footer: bool = True,
    kraft_version: bool = True,
    fsync: bool = False,
) -> Path:
    """Write the snapshot ``{end_offset:020d}-{epoch:010d}.checkpoint`` of the framed
    ``values`` (the state after every offset below ``end_offset``); its path.

    As Kafka lays it out: a control batch with the SnapshotHeaderRecord (and, with
    ``kraft_version``, a KRaftVersionRecord), data batches of ``batch_size`` values at
    snapshot-internal offsets, and a control batch with the SnapshotFooterRecord
    (``footer=False`` leaves it out: an incomplete snapshot, for fixtures of damage). Written
    as ``.checkpoint.part`` and renamed, as Kafka freezes a snapshot (``fsync``: flushed first).
    """
    header: list[tuple[int, bytes]] = [(SNAPSHOT_HEADER, snapshot_header_value(timestamp_ms))]
    if kraft_version:
        header.append((KRAFT_VERSION, kraft_version_value()))
    content = bytearray(control_batch(header, 0, epoch, timestamp_ms + 5))
    offset = len(header)
    for start in range(0, len(values), batch_size):
        chunk = values[start : start + batch_size]
        content += data_batch(chunk, offset, epoch, timestamp_ms + 5)
        offset += len(chunk)
    if footer:
        content += control_batch(
            [(SNAPSHOT_FOOTER, snapshot_footer_value())], offset, epoch, timestamp_ms + 5
        )
    path = directory / f"{end_offset:020d}-{epoch:010d}.checkpoint"
    part = path.with_name(path.name + ".part")
    with open(part, "wb") as file:
        file.write(content)
        if fsync:
            file.flush()
            os.fsync(file.fileno())
    os.replace(part, path)
    return path
