"""Points in a log as a person gives them (``--at-offset``, ``--at-time``, ``diff --from/--to``)
and what to tell them when the state shown is not quite the point they gave.

Times are epoch milliseconds (``1795609903621``, the form ``dump --json`` prints) or ISO-8601
with any UTC offset (``2026-11-21T10:00:00Z``, ``2026-11-21T11:00:00+01:00``, ``2026-11-21``;
no offset means UTC). In ``diff --from/--to`` a bare number is an offset, so a time there is
written in ISO-8601. A point names one place: ``--at-offset`` and ``--at-time`` together are
refused, and so is a range whose start comes after its end.

Thread-safe (no state). Cost: parsing is O(1); a note reads at most two batch headers' worth of
the log.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from aclog.kraft import KraftError
from aclog.log import LogError
from aclog.records import RecordDecodeError
from aclog.tools.console import EXIT_USAGE, fail, print_line

if TYPE_CHECKING:
    from aclog.replay import Point

# The replay and the KRaft reader are imported inside the functions that use them: they load
# numpy, pyarrow and kafka-python, which a command that only parses its options (a shell
# completing one) has no use for.


def parse_time(text: str) -> int:
    """``text`` as milliseconds since the epoch (:func:`aclog.replay.time_ms`); exit 2 when
    it is neither form."""
    from aclog.replay import time_ms  # noqa: PLC0415 (see the module note)

    try:
        return time_ms(text)
    except ValueError as error:
        fail(str(error), EXIT_USAGE)


def format_time(timestamp_ms: int) -> str:
    """``2026-11-21T10:00:00.000Z``: a log timestamp as UTC ISO-8601 with milliseconds."""
    from aclog.replay import time_text  # noqa: PLC0415 (see the module note)

    return time_text(timestamp_ms)


def parse_point(at_offset: int | None, at_time: str | None) -> tuple[int | None, int | None]:
    """``(offset, time_ms)`` of ``--at-offset``/``--at-time``: at most one of them."""
    if at_offset is not None and at_time is not None:
        fail("give --at-offset or --at-time, not both", EXIT_USAGE)
    return at_offset, None if at_time is None else parse_time(at_time)


def parse_range_end(text: str, option: str) -> Point:
    """A ``diff --from/--to`` point (:func:`aclog.replay.range_point`); exit 2 when it is
    neither an offset nor a time."""
    from aclog.replay import range_point  # noqa: PLC0415 (see the module note)

    try:
        return range_point(text, option)
    except ValueError as error:
        fail(str(error), EXIT_USAGE)


def check_range(start: Point, end: Point, start_offset: int, end_offset: int) -> None:
    """Exit 2 when ``start`` comes after ``end`` (:func:`aclog.replay.backwards`)."""
    from aclog.replay import backwards  # noqa: PLC0415 (see the module note)

    if backwards(start, end, start_offset, end_offset):
        fail("--from comes after --to; give the earlier point as --from", EXIT_USAGE)


def point_note(
    directory: Path,
    last_offset: int,
    *,
    at_offset: int | None,
    at_time_ms: int | None,
    kraft: bool = False,
) -> str | None:
    """What a person should know about the state (as of ``last_offset``) that they asked for
    at ``at_offset``/``at_time_ms``: the log starts after the time, the time is in the future,
    the offset is past its end, or the offset falls inside a batch (applied whole or not at
    all). ``None``: nothing."""
    try:
        if last_offset < 0 and (at_offset is not None or at_time_ms is not None):
            first = next(_batch_bounds(directory, 0, kraft), None)
            if first is None:
                return "the log is empty"
            if at_time_ms is not None and at_time_ms < first[2]:
                return (
                    f"the log starts at {format_time(first[2])} (offset {first[0]}); "
                    "before that there is nothing, so the state is empty"
                )
        if at_time_ms is not None and at_time_ms > time.time() * 1000:  # a mistyped year?
            return (
                f"{format_time(at_time_ms)} is in the future: this is the latest state, "
                f"as of offset {last_offset}"
            )
        if at_offset is not None and last_offset < at_offset:
            return _offset_note(directory, last_offset, at_offset, kraft)
    except (LogError, KraftError, RecordDecodeError, OSError):
        return None  # the rebuild read this log already; a note is not worth a second error
    return None


def show_point_note(
    directory: Path,
    last_offset: int,
    *,
    at_offset: int | None,
    at_time_ms: int | None,
    kraft: bool = False,
) -> None:
    """:func:`point_note`, if there is one, as ``aclog: note: ...`` on stderr."""
    note = point_note(
        directory, last_offset, at_offset=at_offset, at_time_ms=at_time_ms, kraft=kraft
    )
    if note is not None:
        print_line(f"aclog: note: {note}", stderr=True)


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
    from aclog.kraft import read_kraft  # noqa: PLC0415 (see the module note)
    from aclog.replay import read_decoded  # noqa: PLC0415 (see the module note)

    if kraft:  # no on_tail: the command's own read of the log already reported its tail
        for batch in read_kraft(directory, start):
            yield batch.base_offset, batch.last_offset, batch.timestamp_ms
    else:
        for decoded in read_decoded(directory, start):
            yield decoded.base_offset, decoded.last_offset, decoded.timestamp_ms


def state_header(last_offset: int, epoch: int, timestamp_ms: int) -> str:
    """Which state an answer is about: ``state at offset 41 (epoch 2, 2026-11-21T10:00:00.000Z)``,
    or ``the empty state (no record yet)`` before the log's first record."""
    if last_offset < 0:
        return "the empty state (no record yet)"
    return f"state at offset {last_offset} (epoch {epoch}, {format_time(timestamp_ms)})"
