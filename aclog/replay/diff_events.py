"""The ACL records a diff reads, kept as bytes: what :mod:`aclog.replay.diff` asks of them
to say which batch last changed an ACL.

:class:`AclEvents` remembers, for every ACL record of the batches a diff reads, its id's 16
bytes, its offset and its *place* (the batch's time and author): 28 bytes a record, no object
kept per record and no numpy (a small diff loads none). The reference reads them back as a
dict (:meth:`AclEvents.last_by_id`); a diff between table-held images looks its ids up among
them as columns (:func:`aclog.replay.diff_rows.last_of`).

Not thread-safe while :meth:`AclEvents.add` is called; read-only after. Cost: per batch, one
join of its ACL ids' bytes.
"""

from __future__ import annotations

import uuid
from array import array
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Change:
    """One difference between the two states, with the batch that made it."""

    kind: str  # "added", "removed" or "changed"
    subject: dict[str, Any]
    offset: int | None
    timestamp_ms: int | None
    author: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "change": self.kind,
            **self.subject,
            "offset": self.offset,
            "timestamp": self.timestamp_ms,
            "author": self.author,
        }


Place = tuple[int, dict[str, Any] | None]
"""A batch's time (ms) and author (its request context as JSON, one dict per batch)."""


class AclEvents:
    """The ACL records of some batches, in log order: id bytes, offset, place (see the
    module), 28 bytes a record and no numpy (a small diff loads none). Not thread-safe
    while :meth:`add` is called."""

    def __init__(self) -> None:
        self.runs: list[tuple[bytes, array[int], int]] = []
        """Per :meth:`add`: the ids' bytes (16 each, back to back), offsets, place index."""
        self.places: list[Place] = []

    def add(self, acl_ids: list[uuid.UUID], offsets: list[int], place: Place) -> None:
        """The ACL records ``acl_ids`` at ``offsets`` (increasing), made at ``place``."""
        if acl_ids:
            blob = b"".join([acl_id.bytes for acl_id in acl_ids])
            self.runs.append((blob, array("q", offsets), len(self.places)))
            self.places.append(place)

    def last_by_id(self) -> dict[uuid.UUID, tuple[int, int]]:
        """Each id's last record (the highest offset: a batch's runs, one per author, may
        interleave): (its offset, its place's index into :attr:`places`).
        The reference's lookup (an object per id)."""
        found: dict[uuid.UUID, tuple[int, int]] = {}
        for blob, offsets, place in self.runs:
            for at, offset in enumerate(offsets):
                acl_id = uuid.UUID(bytes=blob[16 * at : 16 * at + 16])
                if found.get(acl_id, (-1, -1))[0] < offset:
                    found[acl_id] = (offset, place)
        return found
