"""What an import asks before a KRaft record enters an aclog log, and what it reports back.

An import writes records the controller never decided, so each must still pass the
controller's rules (Kafka's, then aclog's) against the state it applies to. This layer cannot
import the controller, so the import takes an :class:`Admission` (the controller's
:class:`~aclog.controller.admission.RecordAdmission`) and keeps the records it admits; each
one kept out is a :class:`Rejected`, reported with its KRaft offset and never written.

Immutable values; thread-safe. Cost: nothing here beyond what an :class:`Admission` costs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from aclog.records import Record, record_to_dict


@dataclass(frozen=True)
class Rejected:
    """A source record kept out of the log: where it was (``offset`` in KRaft; for a snapshot's
    records, ``snapshot`` names the ``.checkpoint`` and ``index`` the record's place in it),
    the record, and why (the error name and message the controller would answer with)."""

    offset: int
    record: Record
    error: str
    reason: str
    snapshot: str | None = None
    index: int | None = None

    def where(self) -> str:
        """The record's place, for a message: ``KRaft offset 42`` or a snapshot record."""
        if self.snapshot is not None:
            return f"KRaft snapshot {self.snapshot} record {self.index}"
        return f"KRaft offset {self.offset}"

    def describe(self) -> str:
        """One line for stderr (salts and keys redacted)."""
        return f"kept out {type(self.record).__name__} at {self.where()}: {self.why()}"

    def why(self) -> str:
        """The error, the reason and the record (salts and keys redacted)."""
        return f"{self.error}: {self.reason} ({record_to_dict(self.record)})"

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` form (salts and keys redacted)."""
        return {
            "offset": self.offset,
            "snapshot": self.snapshot,
            "index": self.index,
            "type": type(self.record).__name__,
            "error": self.error,
            "reason": self.reason,
            "record": record_to_dict(self.record),
        }


@dataclass(frozen=True)
class Admitted:
    """One batch's verdict: the records to write, in order, and those kept out."""

    kept: list[Record]
    rejected: list[Rejected]


class Admission(Protocol):
    """Checks the records of one source batch against the state the log holds so far (plus
    what it admitted earlier), remembers what it admits, and returns the verdict.

    ``records`` are ``(offset, record)`` in commit order; ``atomic`` says they were one
    request's records, so a user's SCRAM changes among them stand or fall together.
    ``snapshot`` names the snapshot they restate, if any (offsets then repeat; the index in
    the snapshot, ``first_index`` onwards, says where each was).
    """

    def admit(
        self,
        records: Sequence[tuple[int, Record]],
        *,
        atomic: bool,
        snapshot: str | None = None,
        first_index: int = 0,
    ) -> Admitted: ...
