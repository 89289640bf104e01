"""A generated KRaft metadata directory: three segments, a snapshot, unrelated record types
interleaved, leader-change control batches, Kafka's side files, and a torn tail."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aclog.kraft import CheckpointInfo, KraftRecord, kraft_replay_batches
from aclog.kraft.encoding import encode_record
from aclog.kraft.writer import LogBuilder, data_batch, write_checkpoint
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    LeaderChangeRecord,
    NoOpRecord,
    PatternType,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
)
from tests.kraft.fakes import feature_level_record, register_broker_record, topic_record


def acl(n: int, name: str = "orders", principal: str = "User:alice") -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        uuid.UUID(int=n),
        ResourceType.TOPIC,
        name,
        PatternType.LITERAL,
        principal,
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def scram(name: str, iterations: int = 4096) -> UserScramCredentialRecord:
    return UserScramCredentialRecord(
        name,
        ScramMechanism.SCRAM_SHA_256,
        b"salt-" + name.encode(),
        b"k" * 32,
        b"s" * 32,
        iterations,
    )


ACL_A, ACL_B, ACL_C, ACL_D = acl(1, "a"), acl(2, "b"), acl(3, "c"), acl(4, "d", "User:bob")
ALICE, BOB = scram("alice"), scram("bob", 8192)
TOPIC = topic_record("orders", uuid.UUID(int=77))
FEATURE = feature_level_record("metadata.version", 21)
BROKER = register_broker_record(1)
T0 = 1_700_000_000_000


@dataclass
class Layout:
    directory: Path
    # (offset, epoch, timestamp, record) of every aclog record in the log, in order
    log_records: list[tuple[int, int, int, Record]] = field(default_factory=list)
    checkpoint: Path | None = None
    checkpoint_records: list[Record] = field(default_factory=list)
    checkpoint_end: int = 13
    checkpoint_epoch: int = 2
    checkpoint_timestamp: int = T0 + 11_500
    segments: list[Path] = field(default_factory=list)
    torn_bytes: int = 0


def build_layout(directory: Path, *, torn_tail: bool = True) -> Layout:
    """Offsets 0..17 in segments 0, 8 and 13, a snapshot at end offset 13 (epoch 2), and
    (unless ``torn_tail=False``) the first 40 bytes of one more batch at the end."""
    layout = Layout(directory)
    log = LogBuilder(directory)
    recs = layout.log_records

    def add(records: list[Record], epoch: int, ts: int, extra: dict[int, bytes] | None = None):
        values = [encode_record(r) for r in records]
        for position, value in sorted((extra or {}).items()):
            values.insert(position, value)
        base = log.data(values, epoch, ts)
        offset = base
        for value in values:
            if value[1] in (11, 18, 19, 20, 22):
                recs.append((offset, epoch, ts, records.pop(0)))
            offset += 1

    # segment 0: offsets 0..7, epoch 1
    log.leader_change(1, epoch=1, timestamp_ms=T0)
    recs.append((0, 1, T0, LeaderChangeRecord(1, 1)))
    log.data([FEATURE, BROKER, TOPIC], epoch=1, timestamp_ms=T0 + 1_000)  # 1..3
    add([ACL_A, ALICE], 1, T0 + 2_000, {1: TOPIC})  # 4..6: ACL, Topic, SCRAM
    add([NoOpRecord()], 1, T0 + 3_000)  # 7
    layout.segments.append(log.flush())
    log.roll()
    # segment 8: offsets 8..12, epoch 2
    log.leader_change(2, epoch=2, timestamp_ms=T0 + 10_000)
    recs.append((8, 2, T0 + 10_000, LeaderChangeRecord(2, 2)))
    add([RemoveAccessControlEntryRecord(ACL_A.id), ACL_B], 2, T0 + 11_000)  # 9..10
    remove_alice = RemoveUserScramCredentialRecord("alice", ScramMechanism.SCRAM_SHA_256)
    add([remove_alice], 2, T0 + 11_500, {1: FEATURE})  # 11..12: remove SCRAM, FeatureLevel
    layout.segments.append(log.flush())
    log.roll()
    # segment 13: offsets 13..17, epoch 2 then 3
    add([ACL_C, BOB], 2, T0 + 20_000)  # 13..14
    log.leader_change(3, epoch=3, timestamp_ms=T0 + 30_000)  # 15
    recs.append((15, 3, T0 + 30_000, LeaderChangeRecord(3, 3)))
    add([RemoveAccessControlEntryRecord(ACL_B.id), ACL_D], 3, T0 + 31_000)  # 16..17
    layout.segments.append(log.flush())

    # The snapshot holds the state after offset 12 (end offset 13): ACL_B only, no SCRAM.
    layout.checkpoint_records = [ACL_B]
    layout.checkpoint = write_checkpoint(
        directory,
        13,
        2,
        [FEATURE, TOPIC, encode_record(ACL_B), BROKER],
        layout.checkpoint_timestamp,
        batch_size=2,
    )
    # Kafka's side files and snapshots in flight: all ignored by the reader.
    (directory / f"{0:020d}.index").write_bytes(bytes(80))
    (directory / f"{0:020d}.timeindex").write_bytes(bytes(120))
    (directory / "leader-epoch-checkpoint").write_text("0\n3\n1 0\n2 8\n3 15\n")
    (directory / "partition.metadata").write_text("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n")
    (directory / "quorum-state").write_text("{}")
    (directory / f"{20:020d}-{3:010d}.checkpoint.part").write_bytes(b"half written")
    (directory / f"{5:020d}-{1:010d}.checkpoint.deleted").write_bytes(b"going away")
    (directory / f"{4:020d}.log.deleted").write_bytes(b"going away")
    if torn_tail:
        last = layout.segments[-1]
        partial = data_batch([encode_record(acl(9, "torn"))], log.next_offset, 3, T0 + 40_000)
        layout.torn_bytes = 40
        with open(last, "ab") as file:
            file.write(partial[:40])
    return layout


def kraft_records_for_replay(
    directory: Path | str,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    **options: Any,
) -> tuple[CheckpointInfo | None, Iterator[KraftRecord]]:
    """:func:`~aclog.kraft.kraft_replay_batches` flattened to (offset, epoch, timestamp_ms,
    record): the snapshot's records first, all at its last covered offset, then the log's."""
    info, batches = kraft_replay_batches(directory, at_offset, at_time_ms, **options)
    return info, (record for batch in batches for record in batch.records)
