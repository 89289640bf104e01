"""Moments in a log as people write them and read them: epoch milliseconds (``1795609903621``,
the form ``dump --json`` prints) or ISO-8601 with any UTC offset (``2026-11-21T10:00:00Z``,
``2026-11-21T11:00:00+01:00``, ``2026-11-21``; no offset means UTC), shown back as UTC
ISO-8601 with milliseconds. One reading for the CLI's ``--at-time`` and the UI's ``at_time``.

Pure functions; thread-safe. Cost: O(length of the text).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

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
