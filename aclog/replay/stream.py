"""The decoded record stream of a log: what every tool and replayer reads.

Each committed batch decodes to a :class:`DecodedBatch`: its records in offset order plus the
batch's author, taken from its leading :class:`RequestContextRecord` when it has one, and, on
demand, :class:`Entry` values (offset, epoch, timestamp, type, version, record). There is
exactly one decoder for many records (:mod:`aclog.records.column_records`: the columnar
decoder's Arrow columns, built into records a type at a time); this module only walks batches.

Thread-safe (each call opens its own files). Cost: O(records) decodes; replay takes the
records a type at a time and never pays for putting them in order, nor for the entries.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from aclog.log import LogBatch, read_batches, read_segment_file
from aclog.log.batch import HEADER_SIZE, parse_header
from aclog.log.files import open_reader
from aclog.log.segment import segment_base_offset
from aclog.records import RecordType, RequestContextRecord, record_to_dict
from aclog.records.codec import DecodedKind
from aclog.records.decoded import DecodedRecords
from aclog.records.small_batch import decode_batch_records
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


@dataclass(frozen=True)
class DecodedBatch:
    """The decoded records of one batch, committed atomically with one epoch.

    ``records`` are in offset order from ``base_offset``; ``kinds`` holds the (type, version)
    each was written with. A batch read from a segment also keeps its records a type at a
    time (``decoded``, see :class:`~aclog.records.decoded.DecodedRecords`): replay takes them
    so, and ``records`` and ``kinds`` are put in row order only when read. Immutable;
    thread-safe (``records``, ``kinds`` and ``entries`` are built once, on first use; two
    threads racing build equal tuples). Cost: O(1) until one of those is read.
    """

    base_offset: int
    last_offset: int
    epoch: int
    timestamp_ms: int
    author: RequestContextRecord | None
    decoded: DecodedRecords | None = field(default=None, compare=False, repr=False)

    def __eq__(self, other: object) -> bool:
        """Equal batches hold the same records at the same place, however they were decoded."""
        if not isinstance(other, DecodedBatch):
            return NotImplemented
        return self._place() == other._place() and (self.records, self.kinds) == (
            other.records,
            other.kinds,
        )

    def __hash__(self) -> int:
        return hash(self._place())

    def _place(self) -> tuple[int, int, int, int, RequestContextRecord | None]:
        return self.base_offset, self.last_offset, self.epoch, self.timestamp_ms, self.author

    @cached_property
    def records(self) -> tuple[Record, ...]:
        """Every record, in offset order."""
        return tuple(self.decoded.records) if self.decoded is not None else ()

    @cached_property
    def kinds(self) -> tuple[DecodedKind, ...]:
        """The (type, version) each record was written with, in offset order."""
        return tuple(self.decoded.kinds()) if self.decoded is not None else ()

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        """Each record with where it sits in the log: one :class:`Entry` per record."""
        base, epoch, timestamp, author = (
            self.base_offset,
            self.epoch,
            self.timestamp_ms,
            self.author,
        )
        return tuple(
            Entry(base + i, epoch, timestamp, kind[0], kind[1], record, base, author)
            for i, (kind, record) in enumerate(zip(self.kinds, self.records, strict=True))
        )

    @classmethod
    def of_entries(
        cls,
        base_offset: int,
        last_offset: int,
        epoch: int,
        timestamp_ms: int,
        entries: tuple[Entry, ...],
        author: RequestContextRecord | None,
    ) -> DecodedBatch:
        """A batch whose entries are given (their offsets need not follow ``base_offset``)."""
        batch = cls(base_offset, last_offset, epoch, timestamp_ms, author)
        batch.__dict__["records"] = tuple(entry.record for entry in entries)
        batch.__dict__["kinds"] = tuple((entry.record_type, entry.version) for entry in entries)
        batch.__dict__["entries"] = entries
        return batch


def decode_batch(batch: LogBatch) -> DecodedBatch:
    """Decode every record of ``batch``; raises ``RecordDecodeError`` naming the offset."""
    decoded = decode_batch_records(batch.values, batch.base_offset)
    first = decoded.leading_other()  # builds no ACL record
    author = first if isinstance(first, RequestContextRecord) else None
    return DecodedBatch(
        batch.base_offset, batch.last_offset, batch.epoch, batch.timestamp_ms, author, decoded
    )


def read_decoded(
    directory: Path, from_offset: int = 0, to_offset: int | None = None, *, strict: bool = False
) -> Iterator[DecodedBatch]:
    """The decoded batches of a data directory holding offsets in ``[from_offset, to_offset)``
    (``strict``: a torn tail raises, as :func:`aclog.log.read_batches` says)."""
    for batch in read_batches(directory, from_offset, to_offset, strict=strict):
        yield decode_batch(batch)


def read_segment_decoded(path: Path) -> Iterator[DecodedBatch]:
    """The decoded batches of one segment file read on its own."""
    base = segment_base_offset(path)
    if base is None:
        base = _first_base_offset(path)
    for batch in read_segment_file(path, base):
        yield decode_batch(batch)


def _first_base_offset(path: Path) -> int:
    with open_reader(path) as file:  # the seam: a link is refused, a read error names the file
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
