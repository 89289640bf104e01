"""Moments in a log as people write them and read them: epoch milliseconds (``1795609903621``,
the form ``dump --json`` prints) or ISO-8601 with any UTC offset (``2026-11-21T10:00:00Z``,
``2026-11-21T11:00:00+01:00``, ``2026-11-21``; no offset means UTC), shown back as UTC
ISO-8601 with milliseconds. One reading for the CLI's ``--at-time`` and the UI's ``at_time``.

Pure functions; thread-safe. Cost: O(length of the text).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from aclog.replay.diff import Point

_DIGITS = re.compile(r"[0-9]+")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
TIME_FORMATS = "epoch milliseconds (1795609903621) or ISO-8601 (2026-11-21T10:00:00Z, +01:00)"
"""What a time may be written as, for messages that refuse one."""


def time_ms(text: str) -> int:
    """``text`` as milliseconds since the epoch; ``ValueError`` naming :data:`TIME_FORMATS`
    when it is neither form."""
    stripped = text.strip()
    if _DIGITS.fullmatch(stripped):
        return int(stripped)
    try:
        moment = datetime.fromisoformat(stripped)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return (moment - _EPOCH) // timedelta(milliseconds=1)  # exact: no float rounding
    except (ValueError, OverflowError):
        raise ValueError(f"cannot read the time {text!r}; write {TIME_FORMATS}") from None


def time_text(timestamp_ms: int) -> str:
    """``2026-11-21T10:00:00.000Z``: a log timestamp as UTC ISO-8601 with milliseconds."""
    try:
        moment = datetime.fromtimestamp(timestamp_ms / 1000, UTC)
    except (ValueError, OverflowError, OSError):  # outside what datetime can show
        return f"{timestamp_ms} ms after the epoch"
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def range_point(text: str, option: str) -> Point:
    """A point of a range (``diff --from/--to``, the UI's Diff view): a bare number is an
    offset, anything else a time; ``ValueError`` naming ``option`` otherwise."""
    stripped = text.strip()
    if _DIGITS.fullmatch(stripped):
        return Point(offset=int(stripped))
    if stripped.startswith("-") and _DIGITS.fullmatch(stripped[1:]):
        raise ValueError(f"{option} {text!r}: offsets start at 0")
    return Point(time_ms=time_ms(text))


def backwards(start: Point, end: Point, start_offset: int, end_offset: int) -> bool:
    """Whether ``start`` comes after ``end``: compared as given when both are offsets or both
    times, else by the offsets they resolve to (``start_offset``, ``end_offset``)."""
    if start.offset is not None and end.offset is not None:
        return start.offset > end.offset
    if start.time_ms is not None and end.time_ms is not None:
        return start.time_ms > end.time_ms
    return start_offset > end_offset
