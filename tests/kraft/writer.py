"""A KRaft-format WRITER for tests: framed metadata records (spec section 12), data and control
batches (section 13), segments and ``.checkpoint`` snapshots (13.1).

Record bodies are encoded by hand from the spec, independently of the reader (which decodes
with kafka-python's schema codec), so the two check each other. Batches are built with
kafka-python's ``DefaultRecordBatchBuilder`` and patched the way Kafka's broker assigns offsets;
control batches get the control flag and a recomputed CRC (wire-clients.md section 4).
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path

from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.util import calc_crc32c

from aclog.records import (
    AccessControlEntryRecord,
    NoOpRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)

LEADER_CHANGE = 2
SNAPSHOT_HEADER = 3
SNAPSHOT_FOOTER = 4
KRAFT_VERSION = 5


def uvarint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def compact_string(text: str) -> bytes:
    raw = text.encode("utf-8")
    return uvarint(len(raw) + 1) + raw


def compact_bytes(raw: bytes) -> bytes:
    return uvarint(len(raw) + 1) + raw


def int8(value: int) -> bytes:
    return struct.pack(">b", value)


def frame(api_key: int, version: int = 0) -> bytes:
    return uvarint(1) + uvarint(api_key) + uvarint(version)


NO_TAGS = b"\x00"


def encode_body(record: Record) -> tuple[int, bytes]:
    """(api key, version-0 body) of one of the five record types KRaft shares with aclog."""
    if isinstance(record, AccessControlEntryRecord):
        return 18, (
            record.id.bytes
            + int8(record.resource_type)
            + compact_string(record.resource_name)
            + int8(record.pattern_type)
            + compact_string(record.principal)
            + compact_string(record.host)
            + int8(record.operation)
            + int8(record.permission_type)
            + NO_TAGS
        )
    if isinstance(record, RemoveAccessControlEntryRecord):
        return 19, record.id.bytes + NO_TAGS
    if isinstance(record, UserScramCredentialRecord):
        return 11, (
            compact_string(record.name)
            + int8(record.mechanism)
            + compact_bytes(record.salt)
            + compact_bytes(record.stored_key)
            + compact_bytes(record.server_key)
            + struct.pack(">i", record.iterations)
            + NO_TAGS
        )
    if isinstance(record, RemoveUserScramCredentialRecord):
        return 22, compact_string(record.name) + int8(record.mechanism) + NO_TAGS
    if isinstance(record, NoOpRecord):
        return 20, NO_TAGS
    raise TypeError(f"KRaft has no metadata record for {type(record).__name__}")


def encode_record(record: Record) -> bytes:
    """The framed KRaft value of ``record`` at version 0."""
    api_key, body = encode_body(record)
    return frame(api_key) + body


def other_record(api_key: int, body: bytes = b"\x00", version: int = 0) -> bytes:
    """A framed record of a type aclog skips, with an arbitrary body."""
    return frame(api_key, version) + body


def topic_record(name: str, topic_id: uuid.UUID) -> bytes:
    return other_record(2, compact_string(name) + topic_id.bytes + NO_TAGS)


def feature_level_record(name: str, level: int) -> bytes:
    return other_record(12, compact_string(name) + struct.pack(">h", level) + NO_TAGS)


def register_broker_record(broker_id: int) -> bytes:
    # Not the real layout beyond the first fields; the reader skips it by its frame.
    return other_record(
        0, struct.pack(">i", broker_id) + b"\x11" * 16 + struct.pack(">q", 7) + NO_TAGS, version=3
    )


def leader_change_value(leader_id: int, voters: Sequence[int] = ()) -> bytes:
    """LeaderChangeMessage v0: Version, LeaderId, Voters, GrantingVoters, no tags."""
    array = uvarint(len(voters) + 1) + b"".join(struct.pack(">i", v) + NO_TAGS for v in voters)
    return struct.pack(">hi", 0, leader_id) + array + array + NO_TAGS


def snapshot_header_value(timestamp_ms: int) -> bytes:
    return struct.pack(">hq", 0, timestamp_ms) + NO_TAGS


def snapshot_footer_value() -> bytes:
    return struct.pack(">h", 0) + NO_TAGS


def kraft_version_value(level: int = 1) -> bytes:
    return struct.pack(">hh", 0, level) + NO_TAGS


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
    """A KRaft data batch: null keys, no headers, CreateTime, producer id/epoch/sequence -1
    (``compression_type`` 1 is gzip; KRaft itself never compresses)."""
    entries = [(None, v) for v in values]
    return bytes(_build(entries, base_offset, epoch, timestamp_ms, compression_type))


def control_batch(
    records: Sequence[tuple[int, bytes]], base_offset: int, epoch: int, timestamp_ms: int
) -> bytes:
    """A control batch of (ControlRecordType, message) records with 4-byte control keys."""
    entries = [(struct.pack(">hh", 0, kind), value) for kind, value in records]
    buffer = _build(entries, base_offset, epoch, timestamp_ms)
    (attributes,) = struct.unpack_from(">h", buffer, 21)
    struct.pack_into(">h", buffer, 21, attributes | 0x20)
    struct.pack_into(">I", buffer, 17, calc_crc32c(memoryview(buffer)[21:]))
    return bytes(buffer)


class LogBuilder:
    """Builds a KRaft metadata log directory batch by batch, rolling segments on request."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.next_offset = 0
        self.segment_base = 0
        self._segment: bytearray = bytearray()
        self.batches: list[tuple[int, int, int, int]] = []  # (base, last, epoch, timestamp)

    def start_at(self, offset: int) -> None:
        """Begin the log at ``offset`` (as after Kafka deleted the segments below a snapshot)."""
        assert not self._segment and self.next_offset == self.segment_base
        self.next_offset = self.segment_base = offset

    def data(self, values: Sequence[bytes], epoch: int, timestamp_ms: int) -> int:
        return self._add(data_batch(values, self.next_offset, epoch, timestamp_ms), len(values))

    def records(self, records: Iterable[Record], epoch: int, timestamp_ms: int) -> int:
        return self.data([encode_record(r) for r in records], epoch, timestamp_ms)

    def control(self, records: Sequence[tuple[int, bytes]], epoch: int, timestamp_ms: int) -> int:
        return self._add(
            control_batch(records, self.next_offset, epoch, timestamp_ms), len(records)
        )

    def leader_change(self, leader_id: int, epoch: int, timestamp_ms: int) -> int:
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
        self.flush()
        self._segment = bytearray()
        self.segment_base = self.next_offset

    def flush(self) -> Path:
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
) -> Path:
    """A ``.checkpoint`` snapshot: header control batch, data batches, footer control batch."""
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
    path.write_bytes(bytes(content))
    return path
