"""The cyclic garbage collector paused while a large batch allocates: the one definition of
that rule, for the process edges that decide about the process-wide collector (a broker
loader's start and its thread, the CLI commands that rebuild or build an authorizer, the
benchmarks). Library calls (rebuilds, replays, authorizer builds, a loader's catch-up and polls)
never touch the collector: a program that embeds aclog decides, and pauses around them with
:func:`gc_paused`.

A decode of a 10,000-record batch allocates two collector-tracked objects per ACL (the record
and its ``UUID``) and frees none of them before it returns, so the collector starts a young
collection every 700 of them and, every hundred of those, a full one that walks every object
in the process: with 200,000 records alive elsewhere, more than a third of a read's time (and
about 40% of a 1M-ACL authorizer load). The records, images and indexes hold no reference
cycles, so pausing the collector loses nothing: the objects are counted as usual and collected
once, at the next allocation after the pause.

A build whose result lives as long as the process (``freeze=True``) also ends by handing the
heap pages it freed back to the system (:func:`release_freed_heap`): a bulk load frees its
temporary arrays in the middle of the C heap, which ``free`` would keep resident.

Thread-safe in the sense that matters: the collector's switch is process-wide, and a pause
only turns it back on when it found it on, so overlapping pauses (in any threads) end with the
collector on if it was on before the first of them. Cost: three C calls and one small object
per pause; with ``freeze``, one pass over the C heap's free chunks.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import cache
from types import TracebackType
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def gc_paused(*, freeze: bool = False) -> AbstractContextManager[None]:
    """A ``with`` block that runs with the cyclic garbage collector paused; reference counting
    goes on, and the collector ends as enabled or disabled as it was.

    ``freeze=True`` also moves everything alive at a normal exit into the permanent generation
    (``gc.freeze()``). The one collection after a pause still walks every object the block
    made (they are all in the youngest generation), and the older generations walk them again
    later: about a second per million ACLs. ``freeze`` is for a build whose result lives as
    long as the process (a broker's catch-up): frozen objects are never walked again, and
    reference counting still frees them when they are replaced; only reference cycles among
    them would never be freed, and the image and index have none. It then returns the pages
    the build freed to the system (:func:`release_freed_heap`). An error skips both.

    A class rather than a generator-based context manager: leaving one of those allocates
    (its ``StopIteration``) right after the collector is back on, so the young collection the
    pause put off would run at once, over every object the block made, even when its caller is
    about to drop them all. Here it runs at the caller's next allocation, when the objects it no
    longer holds are gone.
    """
    return _Pause(freeze)


def release_freed_heap() -> None:
    """Hand the C heap's free pages back to the system: glibc's ``malloc_trim(0)``. ``free``
    returns only the top of the heap, so the temporary arrays of a bulk build, freed below
    the objects it keeps, stay resident (the ``java`` suite's ``memory (RSS)`` rows). Does
    nothing without glibc. For process edges, like :func:`gc_paused`. Cost: O(free chunks of
    the heap), once."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # noqa: PLC0415  # only where a heap is trimmed, not at every start

    trim: Callable[[int], int] | None = getattr(ctypes.CDLL(None), "malloc_trim", None)
    return trim


def call_paused(function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``function(*args, **kwargs)`` inside :func:`gc_paused`."""
    with gc_paused():
        return function(*args, **kwargs)


class _Pause:
    __slots__ = ("_enabled", "_freeze")

    def __init__(self, freeze: bool) -> None:
        self._freeze = freeze
        self._enabled = False

    def __enter__(self) -> None:
        self._enabled = gc.isenabled()
        gc.disable()

    def __exit__(
        self,
        error_type: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if self._freeze and error_type is None:
                gc.freeze()
                release_freed_heap()
        finally:
            if self._enabled:
                gc.enable()
