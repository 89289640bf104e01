"""The collector pause: off inside, as it was after, frozen only on request and only on success,
and the put-off collection left to the caller's next allocation."""

from __future__ import annotations

import gc
from collections.abc import Iterator

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
