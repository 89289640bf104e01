"""What the Changes list and the Timeline chart know of one committed batch, without its records.

Immutable and thread-safe. Cost: one pass over the batch's records, made once per batch.
"""

from __future__ import annotations

from dataclasses import dataclass

from aclog.records import (
    AccessControlEntryRecord,
    RemoveAccessControlEntryRecord,
    RequestContextRecord,
)
from aclog.replay import DecodedBatch


@dataclass(frozen=True)
class BatchSummary:
    """One committed batch as the Changes list and the Timeline chart show it: where it sits,
    when, who asked, and how many ACLs it added and removed and SCRAM records it held."""

    base_offset: int
    last_offset: int
    timestamp_ms: int
    author: RequestContextRecord | None
    added: int
    removed: int
    other: int


def summarize(batch: DecodedBatch) -> BatchSummary:
    """The summary of one decoded batch."""
    added = removed = other = 0
    for record in batch.records:
        if isinstance(record, AccessControlEntryRecord):
            added += 1
        elif isinstance(record, RemoveAccessControlEntryRecord):
            removed += 1
        elif not isinstance(record, RequestContextRecord):
            other += 1
    return BatchSummary(
        batch.base_offset,
        batch.last_offset,
        batch.timestamp_ms,
        batch.author,
        added,
        removed,
        other,
    )
