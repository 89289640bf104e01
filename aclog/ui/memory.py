"""Handing the pages malloc keeps free back to the system after a request that built much.

A state rebuilt, a diff, the lint findings or an authorizer at 1M ACLs make and drop hundreds
of MB of temporaries; glibc's malloc keeps the freed pages in its arenas (one per thread that
allocated: the server's warm thread and each worker of its pool), so the process's resident
size stays at each build's peak and the next build's peak stacks on it.
:func:`release_free_memory` asks malloc to return them (``malloc_trim``); where the C
library has no such call (not glibc) it does nothing.

Thread-safe (malloc locks its arenas). Cost: one walk of malloc's free lists, O(heap pages),
a few ms at a GB; called after a slow request only (:data:`SLOW_S`).
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

SLOW_S = 0.05
"""A request that ran this long built something; a fast one freed little."""


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        function: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # no C library to ask, or not glibc's
        return None
    return function


_TRIM = _malloc_trim()


def release_free_memory() -> None:
    """Returns the free pages of every malloc arena to the system (see the module)."""
    if _TRIM is not None:
        _TRIM(0)


@contextmanager
def released_when_slow() -> Iterator[None]:
    """A block after which, when it ran :data:`SLOW_S` or longer (it built something and
    dropped its temporaries), :func:`release_free_memory` runs, however the block ended."""
    started = time.perf_counter()
    try:
        yield
    finally:
        if time.perf_counter() - started >= SLOW_S:
            release_free_memory()
