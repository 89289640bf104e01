"""Points in a log as a person gives them (``--at-offset``, ``--at-time``, ``diff --from/--to``)
and, on stderr, what to tell them when the state shown is not quite the point they gave
(:func:`aclog.replay.point_note` words it).

Times are epoch milliseconds (``1795609903621``, the form ``dump --json`` prints) or ISO-8601
with any UTC offset (``2026-11-21T10:00:00Z``, ``2026-11-21T11:00:00+01:00``, ``2026-11-21``;
no offset means UTC). In ``diff --from/--to`` a bare number is an offset, so a time there is
written in ISO-8601. A point names one place: ``--at-offset`` and ``--at-time`` together are
refused, and so is a range whose start comes after its end.

Thread-safe (no state). Cost: parsing is O(1); a note reads at most two batches of the log.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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


def show_point_note(
    directory: Path,
    last_offset: int,
    *,
    at_offset: int | None,
    at_time_ms: int | None,
    kraft: bool = False,
) -> None:
    """:func:`aclog.replay.point_note`, if there is one, as ``aclog: note: ...`` on stderr."""
    from aclog.replay import point_note  # noqa: PLC0415 (see the module note)

    note = point_note(
        directory, last_offset, at_offset=at_offset, at_time_ms=at_time_ms, kraft=kraft
    )
    if note is not None:
        print_line(f"aclog: note: {note}", stderr=True)


def state_header(last_offset: int, epoch: int, timestamp_ms: int) -> str:
    """Which state an answer is about: ``state at offset 41 (epoch 2, 2026-11-21T10:00:00.000Z)``,
    or ``the empty state (no record yet)`` before the log's first record."""
    if last_offset < 0:
        return "the empty state (no record yet)"
    return f"state at offset {last_offset} (epoch {epoch}, {format_time(timestamp_ms)})"
