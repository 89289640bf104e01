"""The decoded record stream of a log: what every tool and replayer reads.

Each committed batch decodes to a :class:`DecodedBatch` of :class:`Entry` values (offset, epoch,
timestamp, type, version, record) plus the batch's author, taken from its leading
:class:`RequestContextRecord` when it has one. There is exactly one decoder
(:mod:`aclog.records.codec`); this module only walks batches.

Thread-safe (each call opens its own files). Cost: O(records) decodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aclog.log import LogBatch, read_batches, read_segment_file
from aclog.log.batch import HEADER_SIZE, parse_header
from aclog.log.segment import segment_base_offset
from aclog.records import (
    RecordType,
    RequestContextRecord,
    decode_framed,
    record_to_dict,
)
from aclog.records.types import Record, record_type_name


@dataclass(frozen=True, slots=True)
class Entry:
    """One decoded record and where it sits in the log."""

    offset: int
    epoch: int
    timestamp_ms: int
    record_type: RecordType
    version: int
    record: Record
    batch_base_offset: int
    author: RequestContextRecord | None

    @property
    def type_name(self) -> str:
        return record_type_name(self.record_type)

    def to_dict(self, *, redact: bool = True) -> dict[str, Any]:
        """The JSON form ``aclog dump --json`` prints, one object per record."""
        out: dict[str, Any] = {
            "offset": self.offset,
            "epoch": self.epoch,
            "timestamp": self.timestamp_ms,
            "type": self.type_name,
            "version": self.version,
            "data": record_to_dict(self.record, redact=redact),
            "batch_base_offset": self.batch_base_offset,
        }
        if self.author is not None:
            out["author"] = record_to_dict(self.author)
        return out


@dataclass(frozen=True, slots=True)
class DecodedBatch:
    """The decoded records of one batch, committed atomically with one epoch."""

    base_offset: int
    last_offset: int
    epoch: int
    timestamp_ms: int
    entries: tuple[Entry, ...]
    author: RequestContextRecord | None


def decode_batch(batch: LogBatch) -> DecodedBatch:
    """Decode every record of ``batch``; raises ``RecordDecodeError`` naming the offset."""
    decoded = [decode_framed(value, batch.base_offset + i) for i, value in enumerate(batch.values)]
    first = decoded[0].record
    author = first if isinstance(first, RequestContextRecord) else None
    entries = tuple(
        Entry(
            batch.base_offset + i,
            batch.epoch,
            batch.timestamp_ms,
            d.record_type,
            d.version,
            d.record,
            batch.base_offset,
            author,
        )
        for i, d in enumerate(decoded)
    )
    return DecodedBatch(
        batch.base_offset, batch.last_offset, batch.epoch, batch.timestamp_ms, entries, author
    )


def read_decoded(
    directory: Path, from_offset: int = 0, to_offset: int | None = None
) -> Iterator[DecodedBatch]:
    """The decoded batches of a data directory holding offsets in ``[from_offset, to_offset)``."""
    for batch in read_batches(directory, from_offset, to_offset):
        yield decode_batch(batch)


def read_segment_decoded(path: Path) -> Iterator[DecodedBatch]:
    """The decoded batches of one segment file read on its own."""
    base = segment_base_offset(path)
    if base is None:
        base = _first_base_offset(path)
    for batch in read_segment_file(path, base):
        yield decode_batch(batch)


def _first_base_offset(path: Path) -> int:
    with open(path, "rb") as file:
        head = file.read(HEADER_SIZE)
    return parse_header(head).base_offset if len(head) == HEADER_SIZE else 0


def entries_between(
    batches: Iterable[DecodedBatch], from_offset: int = 0, to_offset: int | None = None
) -> Iterator[Entry]:
    """The entries of ``batches`` with offsets in ``[from_offset, to_offset)``."""
    for batch in batches:
        for entry in batch.entries:
            if entry.offset < from_offset:
                continue
            if to_offset is not None and entry.offset >= to_offset:
                return
            yield entry
