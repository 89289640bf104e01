"""A KRaft metadata directory that grows the way a live controller's does: batches appended to
the active segment (whole, or a part at a time), segments rolled and deleted, snapshots
written, and the active segment truncated; plus the ACLs these tests put in it."""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Sequence
from pathlib import Path

from aclog.kraft.codec import LEADER_CHANGE
from aclog.kraft.encoding import encode_record, leader_change_value
from aclog.kraft.writer import control_batch, data_batch, write_checkpoint
from aclog.records import (
    AccessControlEntryRecord,
    LeaderChangeRecord,
    Record,
    RemoveAccessControlEntryRecord,
)
from tests.kraft import layout
from tests.kraft.fakes import topic_record

T0 = 1_700_000_000_000


def remove(record: AccessControlEntryRecord) -> RemoveAccessControlEntryRecord:
    return RemoveAccessControlEntryRecord(record.id)


class LiveKraft:
    """``__cluster_metadata-0`` written batch by batch with appends, as Kafka writes it."""

    def __init__(self, parent: Path, epoch: int = 1) -> None:
        self.directory = parent / "__cluster_metadata-0"
        self.directory.mkdir(parents=True)
        self.next_offset = 0
        self.epoch = epoch
        self.clock = T0
        self.segment = self._new_segment()
        # (offset, record) of every aclog record appended, in order
        self.records: list[tuple[int, Record]] = []
        self.leader_change(1)

    def _new_segment(self) -> Path:
        path = self.directory / f"{self.next_offset:020d}.log"
        path.touch()
        return path

    def _tick(self) -> int:
        self.clock += 1000
        return self.clock

    def batch(self, records: Sequence[Record], *, other: int = 0) -> bytes:
        """The next data batch (not yet written): ``records``, then ``other`` TopicRecords."""
        values = [encode_record(r) for r in records]
        values += [topic_record(f"t{i}", uuid.UUID(int=i + 1)) for i in range(other)]
        return data_batch(values, self.next_offset, self.epoch, self._tick())

    def append(self, records: Sequence[Record], *, other: int = 0) -> tuple[int, int]:
        """Append one data batch; its (base, last) offsets."""
        raw = self.batch(records, other=other)
        return self.write(raw, records, len(records) + other)

    def write(self, raw: bytes, records: Sequence[Record], count: int) -> tuple[int, int]:
        """Append a built batch of ``count`` records whose aclog ones are ``records``."""
        base = self.next_offset
        with open(self.segment, "ab") as file:
            file.write(raw)
        self.records += [(base + i, r) for i, r in enumerate(records)]
        self.next_offset += count
        return base, self.next_offset - 1

    def leader_change(self, leader: int) -> None:
        raw = control_batch(
            [(LEADER_CHANGE, leader_change_value(leader))],
            self.next_offset,
            self.epoch,
            self._tick(),
        )
        self.write(raw, [LeaderChangeRecord(leader, self.epoch)], 1)

    def append_bytes(self, raw: bytes) -> None:
        """Append raw bytes (part of a batch) without counting offsets."""
        with open(self.segment, "ab") as file:
            file.write(raw)

    def roll(self) -> None:
        self.segment = self._new_segment()

    def checkpoint(self, records: Sequence[Record]) -> Path:
        """A snapshot at the current end offset holding ``records`` (the state there)."""
        values = [encode_record(r) for r in records]
        return write_checkpoint(self.directory, self.next_offset, self.epoch, values, self.clock)

    def delete_segments_below(self, offset: int) -> None:
        for path in sorted(self.directory.glob("*.log")):
            if int(path.name[:20]) < offset:
                path.unlink()

    def truncate_segment(self, size: int) -> None:
        os.truncate(self.segment, size)

    def fingerprint(self) -> dict[str, str]:
        """Every file of the directory and a hash of its bytes (read-only checks)."""
        return {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(self.directory.iterdir())
        }


def acl(n: int, name: str = "orders", principal: str | None = None) -> AccessControlEntryRecord:
    """ACL ``n`` with a binding of its own (``User:alice-n`` unless given): Kafka never commits
    one binding under two ids, and an import keeps such a duplicate out."""
    return layout.acl(n, name, principal or f"User:alice-{n}")
