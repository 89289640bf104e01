"""The collector pause: off inside, as it was after, frozen only on request and only on success,
and the put-off collection left to the caller's next allocation."""

from __future__ import annotations

import ctypes
import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from aclog.records.collector import call_paused, gc_paused


@pytest.fixture(autouse=True)
def _restore_collector() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    gc.enable() if enabled else gc.disable()


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("freeze", [True, False])
def test_the_pause_restores_the_collector_and_freezes_on_request(
    enabled: bool, freeze: bool
) -> None:
    gc.unfreeze()
    gc.enable() if enabled else gc.disable()
    with gc_paused(freeze=freeze):
        assert not gc.isenabled()
    assert gc.isenabled() is enabled
    assert (gc.get_freeze_count() > 0) is freeze


@pytest.mark.parametrize("enabled", [True, False])
def test_an_error_restores_the_collector_and_skips_the_freeze(enabled: bool) -> None:
    gc.unfreeze()
    gc.enable() if enabled else gc.disable()
    with pytest.raises(KeyError), gc_paused(freeze=True):
        raise KeyError("x")
    assert gc.isenabled() is enabled
    assert gc.get_freeze_count() == 0
    with pytest.raises(KeyError):
        call_paused({}.__getitem__, "x")
    assert gc.isenabled() is enabled


def test_call_paused_calls_with_the_collector_off() -> None:
    gc.enable()
    assert call_paused(lambda a, *, b: (a, b, gc.isenabled()), 1, b=2) == (1, 2, False)
    assert gc.isenabled()


def test_leaving_the_pause_does_not_start_the_put_off_collection() -> None:
    """No allocation on the way out, so the collection the pause put off runs at the caller's
    next allocation, after it has dropped what it does not keep."""
    collections: list[str] = []

    def on_collection(phase: str, info: dict[str, int]) -> None:
        collections.append(phase)

    gc.enable()
    gc.callbacks.append(on_collection)
    try:
        with gc_paused():
            kept = [[i] for i in range(5_000)]  # far past the young generation's threshold
            before = len(collections)
        after = len(collections)
    finally:
        gc.callbacks.remove(on_collection)
    assert len(kept) == 5_000
    assert after == before


@pytest.mark.skipif(
    not Path("/proc/self/statm").exists() or not hasattr(ctypes.CDLL(None), "malloc_trim"),
    reason="no /proc to read RSS from, or no glibc",
)
def test_a_frozen_build_hands_the_heap_pages_it_freed_back() -> None:
    """A build's temporaries freed below what it keeps (here 48 MB of 96 KB blocks, each
    under a kept small one) stay resident after ``free``; the freeze at the end of a
    long-lived build returns them (glibc's ``malloc_trim``)."""
    page = os.sysconf("SC_PAGE_SIZE")

    def resident() -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * page

    with gc_paused():
        blocks = [(bytearray(96 * 1024), bytearray(1024)) for _ in range(512)]
        kept = [small for _, small in blocks]
        del blocks  # the big blocks freed; each kept small one pins the heap above them
        freed = resident()
    with gc_paused(freeze=True):
        pass
    assert len(kept) == 512
    assert freed - resident() > 32 * 2**20
