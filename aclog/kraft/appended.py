"""What a KRaft follow reports for each aclog batch it writes.

Immutable; thread-safe. Cost: O(records) for :meth:`Appended.to_dict`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aclog.kraft.admission import Rejected
from aclog.kraft.position import BatchPosition, Position
from aclog.log import LogBatch
from aclog.records import Record


@dataclass(frozen=True)
class Appended:
    """One aclog batch a follow wrote: where it came from in KRaft and where it went."""

    position: Position
    result: LogBatch
    records: list[Record]
    rejected: list[Rejected] = field(default_factory=list)  # the source records kept out

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` line: KRaft source, aclog offsets, epoch, time and record counts."""
        out: dict[str, Any] = {}
        if isinstance(self.position, BatchPosition):
            out["kraft_offsets"] = [self.position.base_offset, self.position.last_offset]
        elif self.position.reconciled_from is not None:
            out["kraft_snapshot"] = self.position.name
            out["reconciled_from"] = self.position.reconciled_from
        else:
            out["kraft_snapshot"] = self.position.name
            out["snapshot_records"] = [self.position.first, self.position.last]
        types: dict[str, int] = {}
        for record in self.records:
            types[type(record).__name__] = types.get(type(record).__name__, 0) + 1
        return {
            **out,
            "epoch": self.result.epoch,
            "timestamp": self.result.timestamp_ms,
            "aclog_offsets": [self.result.base_offset, self.result.last_offset],
            "records": len(self.records),
            "records_by_type": dict(sorted(types.items())),
            "rejected": [r.to_dict() for r in self.rejected],
        }
