"""A KRaft data batch of ACL grants and removals kept as columns: :class:`KraftColumnBatch`,
what a replay reads in place of a :class:`~aclog.kraft.batch.KraftBatch` when the column decoder
(:func:`~aclog.kraft.acl_kinds.decode_acl_kinds`) takes the batch
(:func:`decode_batch_as_columns`). Its ``decoded`` is the neutral form aclog's own decoded
batches have (:class:`~aclog.records.decoded.DecodedRecords`), so the replay layer applies it to
the ACL table as it applies an aclog batch; :meth:`KraftColumnBatch.kraft_batch` gives the
records form for readers that want records.

Immutable values and pure functions; thread-safe. Cost: see :mod:`aclog.kraft.acl_kinds`;
:meth:`KraftColumnBatch.kraft_batch` builds a record per value.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aclog.kraft.acl_kinds import decode_acl_kinds
from aclog.kraft.batch import KraftBatch, decode_batch, kraft_records
from aclog.log.segment import RawBatch
from aclog.records.decoded import DecodedRecords

_NOT_PLAIN_DATA = 0x27
"""Attribute bits of a compressed (0x07) or control (0x20) batch: the column decoder reads
neither."""


@dataclass(frozen=True, slots=True)
class KraftColumnBatch:
    """One KRaft data batch, offsets ``base_offset..last_offset``, every record an ACL grant
    or removal, decoded as columns (``decoded``, row ``i`` at ``base_offset + i``), read from
    ``source`` at byte ``position``."""

    base_offset: int
    last_offset: int
    epoch: int
    timestamp_ms: int
    decoded: DecodedRecords
    source: Path
    position: int

    @property
    def count(self) -> int:
        """How many records the batch holds (all of them ACL records aclog tracks)."""
        return self.decoded.count

    def kraft_batch(self) -> KraftBatch:
        """The batch as :func:`~aclog.kraft.batch.decode_batch` gives it (records)."""
        offsets = range(self.base_offset, self.base_offset + self.count)
        records = kraft_records(offsets, self.epoch, self.timestamp_ms, self.decoded.records)
        return KraftBatch(
            self.base_offset,
            self.last_offset,
            self.epoch,
            self.timestamp_ms,
            records,
            source=self.source,
            position=self.position,
        )


def decode_batch_as_columns(raw: RawBatch, path: Path) -> KraftBatch | KraftColumnBatch:
    """One CRC-checked batch of the segment ``path``: as columns when the column decoder takes
    it, else as :func:`~aclog.kraft.batch.decode_batch` decodes it (or raises)."""
    header = raw.header
    if not raw.data[22] & _NOT_PLAIN_DATA:
        decoded = decode_acl_kinds(raw.data, header.record_count)
        if decoded is not None:
            return KraftColumnBatch(
                header.base_offset,
                header.last_offset,
                header.epoch,
                header.max_timestamp,
                decoded,
                path,
                raw.position,
            )
    return decode_batch(raw, path)
