"""The listener's log of connection events (refused, closed with a reason, logged in), bounded
per client address and overall, so that no client can fill the disk with the server's log.

Each address may have ``per_address`` events logged one by one in a window of ``interval``
seconds (all addresses together ``total``); the rest are counted by kind (the event with its
numbers and quoted names left out: ``closed: a frame of N bytes is outside N..N bytes``) and
said in one summary line per address when its window ends. An address that kept going past
its allowance gets only summaries until it has been quiet for a whole window. At most
``max_summaries`` addresses get a summary of their own per flush; the rest share one line. So
the log grows by at most ``per_address + 1`` lines per address and ``total + max_summaries +
1`` lines overall per window, each at most :data:`MAX_LINE` characters (a client's text, such
as a user name, is cut to fit). The first event from an address is logged at once, with its
reason.

A failed login is logged as the connection's close ("login of 'x' failed: the user is unknown
or the password is wrong"): the same text, hence the same kind, for a user that exists and
one that does not.

Thread-safe: one lock guards the counts; lines are emitted after it is released. Cost per
event: a clock read, a dict lookup and a regular expression over the reason (a few
microseconds); memory: at most ``max_addresses`` windows of at most :data:`MAX_KINDS` counts.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

MAX_LINE = 1000
"""The longest line this log writes, in characters."""
MAX_KINDS = 8
"""Distinct kinds counted per address and window; more are counted as ``other kinds``."""
OTHER_ADDRESSES = "other addresses"
"""Where events go once ``max_addresses`` addresses have windows open."""

_VARIABLE = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|(?<![\w-])-?\d+(?:\.\d+)?")


def event_kind(event: str) -> str:
    """What events are counted by: ``event`` with quoted text as ``'…'`` and numbers as ``N``
    (so a user name or a frame size makes no new kind), cut to 120 characters."""
    kind = _VARIABLE.sub(lambda m: "'…'" if m.group()[0] in "'\"" else "N", event)
    return _cut(kind, 120)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[: limit - 30]}… ({len(text) - limit + 30} more characters)"


@dataclass
class _Window:
    """One address's events since ``start``: how many were logged, and the others by kind."""

    start: float
    allowance: int
    logged: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    level: int = logging.NOTSET


class EventLog:
    """Logs connection events to ``logger`` within the bounds above; ``flush`` writes the
    summaries of windows that have ended (the listener calls it every second)."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        per_address: int = 20,
        interval: float = 60.0,
        total: int | None = None,
        max_summaries: int = 10,
        max_addresses: int = 10_000,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.logger = logger
        self.per_address = per_address
        self.interval = interval
        self.total = 10 * per_address if total is None else total
        self.max_summaries = max_summaries
        self.max_addresses = max_addresses
        self._clock = clock or time.monotonic  # looked up now, so freezegun can stand in
        self._lock = threading.Lock()
        self._windows: dict[str, _Window] = {}
        self._total_start = self._clock()
        self._total_logged = 0

    def note(
        self, address: str, level: int, line: str, event: str, *, exc_info: bool = False
    ) -> None:
        """Log ``line`` now if ``address`` (and the log as a whole) has allowance left, else
        count it under ``event``'s kind for the address's summary. ``exc_info``: with the
        exception being handled (logged lines only; a summary counts it)."""
        if not self.logger.isEnabledFor(level):
            return
        now = self._clock()
        with self._lock:
            ended = self._ended_window(address, now)
            window = self._window(address, now)
            logged = self._take_allowance(window, now)
            if not logged:
                self._count(window, event, level)
        if ended is not None:
            self._emit_summaries([ended], now)
        if logged:
            self.logger.log(level, "%s", _cut(line, MAX_LINE), exc_info=exc_info)

    def flush(self, *, final: bool = False) -> None:
        """Write the summary of every window that has ended (``final``: of every window)."""
        now = self._clock()
        with self._lock:
            due = []
            for address, window in list(self._windows.items()):
                if final or now - window.start >= self.interval:
                    del self._windows[address]
                    if window.counts:
                        due.append((address, window))
                        if not final:  # it kept going: summaries only until it is quiet
                            self._windows[address] = _Window(now, 0)
        self._emit_summaries(due, now)

    def _ended_window(self, address: str, now: float) -> tuple[str, _Window] | None:
        """The address's window if it has ended with counts to summarize (replaced by one
        without allowance), else ``None``; an ended window without counts is dropped."""
        window = self._windows.get(address)
        if window is None or now - window.start < self.interval:
            return None
        del self._windows[address]
        if not window.counts:
            return None
        self._windows[address] = _Window(now, 0)
        return address, window

    def _window(self, address: str, now: float) -> _Window:
        window = self._windows.get(address)
        if window is None:
            if len(self._windows) >= self.max_addresses:
                address = OTHER_ADDRESSES
                window = self._windows.get(address)
            if window is None:
                window = self._windows[address] = _Window(now, self.per_address)
        return window

    def _take_allowance(self, window: _Window, now: float) -> bool:
        if now - self._total_start >= self.interval:
            self._total_start, self._total_logged = now, 0
        if window.logged >= window.allowance or self._total_logged >= self.total:
            return False
        window.logged += 1
        self._total_logged += 1
        return True

    @staticmethod
    def _count(window: _Window, event: str, level: int) -> None:
        kind = event_kind(event)
        if kind not in window.counts and len(window.counts) >= MAX_KINDS:
            kind = "other kinds"
        window.counts[kind] += 1
        window.level = max(window.level, level)

    def _emit_summaries(self, due: list[tuple[str, _Window]], now: float) -> None:
        due.sort(key=lambda item: -sum(item[1].counts.values()))
        own, shared = due[: self.max_summaries], due[self.max_summaries :]
        for address, window in own:
            self._summarize(address, window, now)
        if shared:
            merged = _Window(min(w.start for _, w in shared), 0)
            for _, window in shared:
                merged.counts.update(window.counts)
                merged.level = max(merged.level, window.level)
            self._summarize(f"{len(shared)} more addresses", merged, now)

    def _summarize(self, source: str, window: _Window, now: float) -> None:
        counts = window.counts.most_common()
        parts = [f"{count} {kind}" for kind, count in counts[:MAX_KINDS]]
        if len(counts) > MAX_KINDS:
            parts.append(f"{sum(c for _, c in counts[MAX_KINDS:])} of other kinds")
        line = (
            f"{sum(window.counts.values())} more connection events from {source} in the last "
            f"{max(now - window.start, 0):.0f} s, not logged one by one: {'; '.join(parts)}"
        )
        self.logger.log(window.level, "%s", _cut(line, MAX_LINE))
