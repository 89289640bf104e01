"""The snapshot for a point in the log, chosen by one rule (``choose_for_point``) for aclog's
snapshots and KRaft's checkpoints: newest first, at or below the offset, taken by the time,
continued by the log, readable; the ones that fail to read are reported and passed over."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aclog.snapshot import choose_for_point, newest_valid_snapshot
from tests.snapshot.helpers import acl, write


@dataclass(frozen=True)
class _Candidate:
    last_offset: int
    time_ms: int
    broken: bool = False


class _Unreadable(Exception):
    pass


def _read(candidate: _Candidate) -> str:
    if candidate.broken:
        raise _Unreadable(f"snapshot at {candidate.last_offset} is damaged")
    return f"state at {candidate.last_offset}"


def _choose(candidates: list[_Candidate], **point: int | None) -> tuple[object, list[int]]:
    skipped: list[int] = []
    found = choose_for_point(
        candidates,
        _read,
        unusable=(_Unreadable,),
        on_skip=lambda c, _error: skipped.append(c.last_offset),
        taken_at=lambda c: c.time_ms,
        **point,  # type: ignore[arg-type]
    )
    return (None if found is None else found[0].last_offset), skipped


_candidates = st.lists(
    st.tuples(st.integers(0, 40), st.booleans()), unique_by=lambda t: t[0], max_size=8
).map(lambda rows: [_Candidate(n, 1000 + 10 * n, broken) for n, broken in sorted(rows)])


@given(
    _candidates,
    st.none() | st.integers(-1, 45),
    st.none() | st.integers(990, 1460),
    st.integers(0, 45),
)
def test_the_choice_is_the_newest_that_serves_the_point(
    candidates: list[_Candidate], at_offset: int | None, at_time_ms: int | None, log_start: int
) -> None:
    """Against the rule written out the obvious way."""
    chosen, skipped = _choose(
        candidates, at_offset=at_offset, at_time_ms=at_time_ms, log_start_offset=log_start
    )
    serving = [
        c
        for c in candidates
        if (at_offset is None or c.last_offset <= at_offset)
        and (at_time_ms is None or c.time_ms <= at_time_ms)
        and c.last_offset + 1 >= log_start
    ]
    readable = [c for c in serving if not c.broken]
    expected = readable[-1].last_offset if readable else None
    assert chosen == expected
    newer_broken = [c.last_offset for c in reversed(serving) if c.broken]
    assert skipped == [n for n in newer_broken if expected is None or n > expected]


def test_a_point_in_time_needs_the_snapshots_time() -> None:
    with pytest.raises(ValueError, match="taken_at"):
        choose_for_point([], _read, unusable=(), on_skip=print, at_time_ms=5)


def test_an_aclog_snapshot_is_chosen_by_time(tmp_path: Path) -> None:
    """``newest_valid_snapshot`` for a point in time: the newest taken by then (the helper
    stamps each snapshot 1_700_000_000_000 + its offset), a damaged newer one reported."""
    first = write(tmp_path, [acl(1)], last_offset=10)
    second = write(tmp_path, [acl(1), acl(2)], last_offset=20)
    third = write(tmp_path, [acl(3)], last_offset=30)
    base = 1_700_000_000_000
    warnings: list[str] = []
    found = newest_valid_snapshot(tmp_path, at_time_ms=base + 25, on_warning=warnings.append)
    assert found is not None and found[0] == second and warnings == []
    found = newest_valid_snapshot(tmp_path, at_time_ms=base + 9, on_warning=warnings.append)
    assert found is None
    data = bytearray(third.path.read_bytes())
    data[-1] ^= 0x20
    third.path.write_bytes(data)
    found = newest_valid_snapshot(
        tmp_path, at_time_ms=base + 99, at_or_below=25, on_warning=warnings.append
    )
    assert found is not None and found[0] == second and warnings == []  # 30 is above 25
    found = newest_valid_snapshot(tmp_path, at_time_ms=base + 99, on_warning=warnings.append)
    assert found is not None and found[0] == second
    assert len(warnings) == 1 and third.path.name in warnings[0]
    assert first.last_offset == 10
