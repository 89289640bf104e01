"""Handing the pages malloc keeps free back to the system after a request that built much.

A state rebuilt, a diff, the lint findings or an authorizer at 1M ACLs make and drop hundreds
of MB of temporaries; glibc's malloc keeps the freed pages in its arenas (one per thread that
allocated: the server's warm thread and each worker of its pool), so the process's resident
size stays at each build's peak and the next build's peak stacks on it.
:func:`released_when_slow` asks malloc to return them after a slow block
(:func:`aclog.records.release_freed_heap`: ``malloc_trim``); without glibc it does nothing.

Thread-safe (malloc locks its arenas). Cost: one walk of malloc's free lists, O(heap pages);
called after a slow request only (:data:`SLOW_S`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from aclog.records import release_freed_heap

SLOW_S = 0.05
"""A request that ran this long built something; a fast one freed little."""


@contextmanager
def released_when_slow() -> Iterator[None]:
    """A block after which, when it ran :data:`SLOW_S` or longer (it built something and
    dropped its temporaries), :func:`~aclog.records.release_freed_heap` runs, however the
    block ended."""
    started = time.perf_counter()
    try:
        yield
    finally:
        if time.perf_counter() - started >= SLOW_S:
            release_freed_heap()
