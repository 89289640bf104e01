"""When a snapshot is due (freezegun drives the clock), and which segments it covers."""

from __future__ import annotations

import time

import pytest
from freezegun import freeze_time

from aclog.snapshot import SnapshotPolicy, deletable_segments

MIB = 1024 * 1024


def test_defaults_are_kafkas() -> None:
    policy = SnapshotPolicy()
    assert policy.max_bytes_between == 20 * MIB
    assert policy.max_interval_seconds == 3600.0


def test_the_bytes_trigger_fires_at_the_threshold() -> None:
    with freeze_time("2025-01-01 00:00:00"):
        policy = SnapshotPolicy()
        now = time.time()
        assert not policy.due(20 * MIB - 1, now)
        assert policy.due(20 * MIB, now)
        assert "20971520 log bytes since the last snapshot" in str(policy.reason(20 * MIB, now))


def test_the_time_trigger_fires_after_the_interval() -> None:
    with freeze_time("2025-01-01 00:00:00") as frozen:
        policy = SnapshotPolicy()
        last = time.time()
        frozen.tick(3599)
        assert not policy.due(1, last)
        frozen.tick(1)
        assert policy.due(1, last)
        assert policy.reason(1, last) == "3600 s since the last snapshot (at least 3600 s)"


def test_nothing_new_means_no_snapshot_however_long_ago() -> None:
    with freeze_time("2025-01-01 00:00:00") as frozen:
        policy = SnapshotPolicy()
        last = time.time()
        frozen.tick(10 * 3600)
        assert not policy.due(0, last)


def test_interval_zero_disables_the_time_trigger() -> None:
    with freeze_time("2025-01-01 00:00:00") as frozen:
        policy = SnapshotPolicy(max_interval_seconds=0)
        last = time.time()
        frozen.tick(365 * 86400)
        assert not policy.due(20 * MIB - 1, last)
        assert policy.due(20 * MIB, last)


def test_both_thresholds_are_configurable_and_an_injected_clock_is_used() -> None:
    now = [1000.0]
    policy = SnapshotPolicy(max_bytes_between=100, max_interval_seconds=5, clock=lambda: now[0])
    assert not policy.due(99, 1000.0)
    assert policy.due(100, 1000.0)
    now[0] = 1005.0
    assert policy.due(1, 1000.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_bytes_between": 0}, "max_bytes_between must be > 0"),
        ({"max_interval_seconds": -1}, "max_interval_seconds must be >= 0"),
    ],
)
def test_nonsense_settings_are_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SnapshotPolicy(**kwargs)  # type: ignore[arg-type]


def test_negative_bytes_are_refused() -> None:
    with pytest.raises(ValueError, match="bytes_since_last must be >= 0"):
        SnapshotPolicy().due(-1, 0.0)


@pytest.mark.parametrize(
    ("bases", "last_offset", "expected"),
    [
        ([], 10, []),
        ([0], 10**6, []),  # the only segment is the active one
        ([0, 100, 200], 98, []),  # offset 99 is still needed
        ([0, 100, 200], 99, [0]),  # the next base is exactly last_offset + 1
        ([0, 100, 200], 150, [0]),
        ([0, 100, 200], 199, [0, 100]),
        ([0, 100, 200], 10**6, [0, 100]),  # never the active segment
        ([200, 0, 100], 199, [0, 100]),  # order of the input does not matter
        ([50, 100], 10, []),  # the snapshot is older than the log start
    ],
)
def test_deletable_segments(bases: list[int], last_offset: int, expected: list[int]) -> None:
    assert deletable_segments(bases, last_offset) == expected
