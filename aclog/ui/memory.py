"""Handing the pages malloc keeps free back to the system after a request that built much.

A state rebuilt, a diff, the lint findings or an authorizer at 1M ACLs make and drop hundreds
of MB of temporaries; glibc's malloc keeps the freed pages in its arenas (one per thread that
allocated: the server's warm thread and each worker of its pool), so the process's resident
size stays at each build's peak and the next build's peak stacks on it.
:func:`release_free_memory` asks malloc to return them (``malloc_trim``, through
:func:`aclog.records.release_freed_heap`); where the C library has no such call (not glibc) it
does nothing.

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


def release_free_memory() -> None:
    """Returns the free pages of every malloc arena to the system (see the module): the
    records layer's :func:`~aclog.records.release_freed_heap`, the one place that asks."""
    release_freed_heap()


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
