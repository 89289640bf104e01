"""When to take a snapshot, and which log segments a snapshot makes unnecessary.

:class:`SnapshotPolicy` follows Kafka's ``SnapshotGenerator``: snapshot once the log has grown
by ``max_bytes_between`` bytes since the last snapshot (Kafka's
``metadata.log.max.record.bytes.between.snapshots``, 20 MiB) or once ``max_interval_seconds``
have passed since it (``metadata.log.max.snapshot.interval.ms``, 1 hour; 0 turns the time
trigger off), and never when nothing was appended since, since the snapshot would repeat the
last one.

:class:`RetentionPolicy` says whether segments wholly below a snapshot may be deleted. The
default keeps them: as-of-offset and as-of-time queries replay history from the log.

Immutable; thread-safe if the clock is. Cost: O(1), and O(segments) for
:func:`deletable_segments`.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

DEFAULT_MAX_BYTES_BETWEEN = 20 * 1024 * 1024
DEFAULT_MAX_INTERVAL_SECONDS = 3600.0


def _wall_clock() -> float:
    # Looked up at call time, so a test's freezegun patch of time.time applies.
    return time.time()


@dataclass(frozen=True, slots=True)
class SnapshotPolicy:
    """Decides whether a snapshot is due; ``clock`` returns seconds since the epoch."""

    max_bytes_between: int = DEFAULT_MAX_BYTES_BETWEEN
    max_interval_seconds: float = DEFAULT_MAX_INTERVAL_SECONDS
    clock: Callable[[], float] = field(default=_wall_clock, compare=False)

    def __post_init__(self) -> None:
        if self.max_bytes_between <= 0:
            raise ValueError(f"max_bytes_between must be > 0, not {self.max_bytes_between}")
        if self.max_interval_seconds < 0:
            raise ValueError(
                "max_interval_seconds must be >= 0 (0 disables it), "
                f"not {self.max_interval_seconds}"
            )

    def due(self, bytes_since_last: int, last_snapshot_time: float) -> bool:
        """Whether to snapshot now, given the log bytes appended since the last snapshot and
        the time (``clock`` seconds) it was taken (or, before the first, the log was opened)."""
        return self.reason(bytes_since_last, last_snapshot_time) is not None

    def reason(self, bytes_since_last: int, last_snapshot_time: float) -> str | None:
        """Why a snapshot is due (for the log line), or ``None`` when it is not."""
        if bytes_since_last < 0:
            raise ValueError(f"bytes_since_last must be >= 0, not {bytes_since_last}")
        if bytes_since_last == 0:
            return None
        if bytes_since_last >= self.max_bytes_between:
            return (
                f"{bytes_since_last} log bytes since the last snapshot "
                f"(at least {self.max_bytes_between})"
            )
        elapsed = self.clock() - last_snapshot_time
        if self.max_interval_seconds > 0 and elapsed >= self.max_interval_seconds:
            return (
                f"{elapsed:.0f} s since the last snapshot (at least "
                f"{self.max_interval_seconds:g} s)"
            )
        return None


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    """Whether log segments wholly below a snapshot may be deleted (default: keep history)."""

    delete_log_below_snapshot: bool = False

    def delete_below(self, snapshot_last_offset: int) -> int | None:
        """The offset to pass to ``SegmentedLog.delete_segments_below`` after a snapshot with
        this last offset was written and verified, or ``None`` when history is kept."""
        return snapshot_last_offset + 1 if self.delete_log_below_snapshot else None


def deletable_segments(segment_bases: list[int], snapshot_last_offset: int) -> list[int]:
    """Base offsets of the segments whose records are all at or below ``snapshot_last_offset``.

    A segment ends where the next one begins, so it is wholly covered when the next segment's
    base is at most ``snapshot_last_offset + 1``. The last (active) segment is never returned.
    ``SegmentedLog.delete_segments_below(snapshot_last_offset + 1)`` deletes these (never more);
    replay then starts at ``snapshot_last_offset + 1``, which the log still holds. Delete only
    below a snapshot that was verified, and know that older snapshots become useless: the
    records after them are gone (pass the log's start offset to ``newest_valid_snapshot``).
    """
    bases = sorted(segment_bases)
    return [
        base
        for base, next_base in itertools.pairwise(bases)
        if next_base <= snapshot_last_offset + 1
    ]
