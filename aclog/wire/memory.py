"""Giving memory back to the operating system after connections that held a lot of it leave.

Answers for clients that do not read wait in the connection's buffers. When such connections
close, CPython frees those buffers (see :meth:`~aclog.wire.intake.Intake.forget_error` for the
reference cycle that used to keep them), but glibc's allocator keeps the freed pages in its
heaps, one per thread that allocated them: after many slow readers the server's RSS stayed
above where it started. :class:`MemoryReturn` asks glibc to hand free pages back
(``malloc_trim``) a short while after connections closed, at most once per interval, so RSS
follows the load down (tests/wire/test_memory_return.py).

Where the C library is not glibc (musl, macOS) there is no ``malloc_trim`` and nothing is done.

Used from the event loop only. Cost: one ``malloc_trim(0)`` per interval in which connections
closed; it walks the allocator's free lists, O(heap).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import time
from collections.abc import Callable

TRIM_INTERVAL_SECONDS = 2.0
"""Shortest time between two trims: connection churn costs at most one trim per interval."""


def _glibc_trim() -> Callable[[], object] | None:
    """glibc's ``malloc_trim(0)``, or ``None`` where the C library has none."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)


class MemoryReturn:
    """Whether connections closed since the last trim, and the trim itself when one is due."""

    def __init__(
        self,
        interval: float = TRIM_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        trim: Callable[[], object] | None = None,
    ) -> None:
        self._interval = interval
        self._clock = clock
        self._trim = trim if trim is not None else _glibc_trim()
        self._closed_since_trim = 0
        self._last_trim = clock()
        self.trims = 0
        """How many trims ran (for tests and the status page)."""

    def connection_closed(self) -> None:
        """Note that a connection closed: its buffers are free now."""
        self._closed_since_trim += 1

    def maybe_trim(self) -> bool:
        """Trim when connections closed since the last trim and the interval has passed;
        True when it did."""
        now = self._clock()
        due = self._closed_since_trim and now - self._last_trim >= self._interval
        if self._trim is None or not due:
            return False
        self._trim()
        self._closed_since_trim = 0
        self._last_trim = now
        self.trims += 1
        return True
