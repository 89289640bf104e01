"""Where an image comes from: the last log offset, epoch and timestamp it contains.

Immutable; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True, slots=True)
class MetadataProvenance:
    """The position of an image in the log.

    ``last_offset`` is the offset of the last record the image includes, ``epoch`` the controller
    epoch of that record's batch, and ``timestamp_ms`` the batch's append time. ``EMPTY`` (all
    ``-1``) belongs to the image before any record.
    """

    last_offset: int
    epoch: int
    timestamp_ms: int

    EMPTY: ClassVar[MetadataProvenance]

    def to_dict(self) -> dict[str, int]:
        """The three fields as a JSON-ready dict."""
        return {
            "last_offset": self.last_offset,
            "epoch": self.epoch,
            "timestamp_ms": self.timestamp_ms,
        }


MetadataProvenance.EMPTY = MetadataProvenance(-1, -1, -1)
