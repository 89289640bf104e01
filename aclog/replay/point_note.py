"""What a person should know when the state shown is not quite the point they asked for
(``--at-offset``, ``--at-time``, ``diff --from/--to``): the log starts after the time, the time
is in the future, the offset is past the log's end, or the offset falls inside a batch (applied
whole or not at all). One wording for every command that answers as of a point.

Thread-safe (no state). Cost: at most two batches read from the log.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from aclog.kraft import KraftError
from aclog.log import LogError
from aclog.records import RecordDecodeError
from aclog.replay.stream import read_decoded


def point_note(
    directory: Path,
    last_offset: int,
    *,
    at_offset: int | None,
    at_time_ms: int | None,
    kraft: bool = False,
) -> str | None:
    """What to say about the state (as of ``last_offset``) asked for at ``at_offset`` or
    ``at_time_ms`` in ``directory`` (a KRaft one with ``kraft``); ``None``: nothing, or the log
    could not be read again (the rebuild read it already: a note is not worth a second error)."""
    try:
        if last_offset < 0 and (at_offset is not None or at_time_ms is not None):
            first = next(_batch_bounds(directory, 0, kraft), None)
            if first is None:
                return "the log is empty"
            if at_time_ms is not None and at_time_ms < first[2]:
                return (
                    f"the log starts at {_time(first[2])} (offset {first[0]}); "
                    "before that there is nothing, so the state is empty"
                )
        if at_time_ms is not None and at_time_ms > time.time() * 1000:  # a mistyped year?
            return (
                f"{_time(at_time_ms)} is in the future: this is the latest state, "
                f"as of offset {last_offset}"
            )
        if at_offset is not None and last_offset < at_offset:
            return _offset_note(directory, last_offset, at_offset, kraft)
    except (LogError, KraftError, RecordDecodeError, OSError):
        return None
    return None


def _time(timestamp_ms: int) -> str:
    # imported here: the moments module imports the diff, which loads numpy, and a command
    # that shows no note (acls list of a small data directory) has no use for it
    from aclog.replay.moments import time_text  # noqa: PLC0415

    return time_text(timestamp_ms)


def _offset_note(directory: Path, last_offset: int, at_offset: int, kraft: bool) -> str | None:
    following = next(_batch_bounds(directory, last_offset + 1, kraft), None)
    if following is None:
        return (
            f"offset {at_offset} is past the end of the log, which ends at offset "
            f"{last_offset}: this is the latest state"
        )
    base, last, _ = following
    if base <= at_offset:
        return (
            f"offset {at_offset} is inside the batch of offsets {base}..{last}, which applies "
            f"whole or not at all: this is the state before it, as of offset {last_offset}"
        )
    return None


def _batch_bounds(directory: Path, start: int, kraft: bool) -> Iterator[tuple[int, int, int]]:
    """(base offset, last offset, timestamp) of each batch holding an offset from ``start``."""
    if kraft:
        # imported here: the KRaft reader loads numpy, pyarrow and kafka-python, which a note on
        # an aclog log (acls list of a small data directory) has no use for
        from aclog.kraft import read_kraft  # noqa: PLC0415

        # no on_tail: the command's own read of the log already reported its tail
        for batch in read_kraft(directory, start):
            yield batch.base_offset, batch.last_offset, batch.timestamp_ms
    else:
        for decoded in read_decoded(directory, start):
            yield decoded.base_offset, decoded.last_offset, decoded.timestamp_ms
