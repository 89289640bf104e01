"""The listener's connection-event log stays within its bounds per address and overall, and its
summaries still say what happened (issue 35.4). Time is frozen with freezegun."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator

import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory

from aclog.wire.event_log import MAX_LINE, EventLog, event_kind

FAILED = (
    "closed: SASL/SCRAM-SHA-256 login of {!r} failed: the user is unknown or the password is wrong"
)


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def lines() -> Iterator[_Lines]:
    logger = logging.getLogger("tests.event_log")
    logger.setLevel(logging.INFO)
    handler = _Lines()
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


@pytest.fixture
def clock() -> Iterator[FrozenDateTimeFactory]:
    with freeze_time("2026-12-07 12:00:00") as frozen:
        yield frozen


def _log(per_address: int = 5, **options: int) -> EventLog:
    return EventLog(logging.getLogger("tests.event_log"), per_address=per_address, **options)


def _close(events: EventLog, address: str, reason: str, n: int = 1) -> None:
    for i in range(n):
        event = f"closed: {reason}"
        events.note(address, logging.WARNING, f"connection c{i} from {address} {event}", event)


def _summarized(lines: list[str]) -> int:
    """How many events the summary lines count."""
    found = (re.match(r"^(\d+) more connection", line) for line in lines)
    return sum(int(m.group(1)) for m in found if m)


def test_a_single_bad_connection_is_logged_at_once_with_its_reason(
    lines: _Lines, clock: FrozenDateTimeFactory
) -> None:
    events = _log()
    _close(events, "10.0.0.1", "a frame of 70000 bytes is outside 1..65536 bytes")
    assert lines.lines == [
        "connection c0 from 10.0.0.1 closed: a frame of 70000 bytes is outside 1..65536 bytes"
    ]
    clock.tick(61)
    events.flush()
    assert len(lines.lines) == 1  # nothing was held back, so there is nothing to summarize


def test_a_flood_from_one_address_is_summarized_once_per_interval(
    lines: _Lines, clock: FrozenDateTimeFactory
) -> None:
    events = _log(per_address=5, max_summaries=3)
    for minute in range(10):
        _close(events, "127.0.0.1", f"a frame of {minute} bytes is outside 1..65536 bytes", 1000)
        _close(events, "127.0.0.1", "no SASL login within 30 s of connecting", 10)
        clock.tick(30)
        events.flush()
        clock.tick(30)
        events.flush()
    events.flush(final=True)
    individual = [line for line in lines.lines if line.startswith("connection ")]
    summaries = [line for line in lines.lines if not line.startswith("connection ")]
    assert len(individual) == 5  # it kept flooding: only summaries after its first window
    assert len(summaries) <= 10 + 1
    assert len(individual) + _summarized(summaries) == 10 * 1010  # every event is accounted for
    assert "1005 more connection events from 127.0.0.1 in the last 60 s" in summaries[0]
    assert "995 closed: a frame of N bytes is outside N..N bytes" in summaries[0]
    assert "10 closed: no SASL login within N s of connecting" in summaries[0]


def test_an_address_gets_lines_of_its_own_again_after_a_quiet_interval(
    lines: _Lines, clock: FrozenDateTimeFactory
) -> None:
    events = _log(per_address=2)
    _close(events, "10.0.0.1", "idle", 10)
    clock.tick(61)
    events.flush()  # the summary; then a window without lines of its own
    clock.tick(61)
    events.flush()  # quiet for a whole window: the allowance is back
    _close(events, "10.0.0.1", "idle again")
    assert lines.lines[-1] == "connection c0 from 10.0.0.1 closed: idle again"


def test_many_addresses_stay_within_the_overall_bound(
    lines: _Lines, clock: FrozenDateTimeFactory
) -> None:
    events = _log(per_address=5, total=20, max_summaries=4)
    for host in range(200):
        _close(events, f"10.0.{host // 250}.{host % 250}", "idle", 3)
    clock.tick(61)
    events.flush()
    assert len(lines.lines) <= 20 + 4 + 1
    assert _summarized(lines.lines) + sum(ln.startswith("connection") for ln in lines.lines) == 600
    assert "more addresses in the last 61 s" in lines.lines[-1]


def test_failed_logins_of_known_and_unknown_users_are_one_kind(
    lines: _Lines, clock: FrozenDateTimeFactory
) -> None:
    assert event_kind(FAILED.format("admin")) == event_kind(FAILED.format("no-such-user"))
    events = _log(per_address=1)
    for user in ("admin", "nobody", "admin", "x" * 100_000):
        event = FAILED.format(user)
        events.note("10.0.0.9", logging.WARNING, f"connection c1 from 10.0.0.9 {event}", event)
    events.flush(final=True)
    assert len(lines.lines) == 2
    assert "3 closed: SASL/SCRAM-SHA-256 login of '…' failed" in lines.lines[1]
    assert "admin" not in lines.lines[1] and "nobody" not in lines.lines[1]


def test_every_line_is_bounded(lines: _Lines, clock: FrozenDateTimeFactory) -> None:
    events = _log(per_address=1)
    for i in range(50):
        _close(events, "10.0.0.1", f"unsupported mechanism {'m' * 5000}{i}")
        _close(events, "10.0.0.1", f"kind {i} {'k' * (5000 + i)}")
    events.flush(final=True)
    assert all(len(line) <= MAX_LINE for line in lines.lines)
    assert len(lines.lines) == 2


def test_events_below_the_log_level_cost_no_line(
    lines: _Lines, clock: FrozenDateTimeFactory
) -> None:
    events = _log(per_address=1)
    for _ in range(100):
        events.note("10.0.0.1", logging.DEBUG, "connection c1 from 10.0.0.1 opened", "opened")
    events.flush(final=True)
    assert lines.lines == []


def test_threads_noting_at_once_lose_no_count(lines: _Lines, clock: FrozenDateTimeFactory) -> None:
    events = _log(per_address=3)

    def flood(host: str) -> None:
        _close(events, host, "idle", 500)

    threads = [threading.Thread(target=flood, args=(f"10.0.0.{i % 2}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    events.flush(final=True)
    individual = sum(line.startswith("connection") for line in lines.lines)
    assert individual == 6 and individual + _summarized(lines.lines) == 2000


def test_kinds_leave_out_numbers_and_names_but_keep_words() -> None:
    assert event_kind("closed: a frame of -7 bytes is outside 1..524288 bytes") == (
        "closed: a frame of N bytes is outside N..N bytes"
    )
    assert event_kind('logged in as User:"o\'brien" (SCRAM-SHA-512)') == (
        "logged in as User:'…' (SCRAM-SHA-512)"
    )
    assert event_kind("closed: idle for 0.5 s") == "closed: idle for N s"
