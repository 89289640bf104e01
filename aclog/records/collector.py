"""The cyclic garbage collector paused while a batch decode allocates its records.

A decode of a 10,000-record batch allocates two collector-tracked objects per ACL (the record
and its ``UUID``) and frees none of them before it returns, so the collector starts a young
collection every 700 of them and, every hundred of those, a full one that walks every object
in the process: with 200,000 records alive elsewhere, more than a third of a read's time. The
records hold no reference cycles, so pausing the collector for the decode loses nothing: the
objects are counted as usual and collected once, at the next allocation after it.

Thread-safe in the sense that matters: the collector's switch is process-wide, and a pause
only turns it back on when it found it on, so overlapping pauses (in any threads) end with the
collector on if it was on before the first of them. Cost: three C calls per pause.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def call_paused(function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``function(*args, **kwargs)`` with the cyclic garbage collector paused; reference
    counting goes on, and the collector ends as enabled or disabled as it was.

    A plain call rather than a ``with`` block: leaving a generator-based context manager
    allocates, and the first allocation after the pause runs the young collection the pause
    put off, over every object the call made, even when its caller is about to drop them all.
    Here it runs at the caller's next allocation, when the objects it no longer holds are gone.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return function(*args, **kwargs)
    finally:
        if enabled:
            gc.enable()
