"""Points in the log (``--at-offset``, ``--at-time``, ``diff --from/--to``) name one place, in
the forms people have at hand, and a state that is not quite the point asked for says so."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.replay.stream import read_decoded
from tests.tools.harness import run_main, tree_digest

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
EXPLAIN = (
    "--principal",
    "User:ledger",
    "--host",
    "10.0.0.1",
    "--operation",
    "Read",
    "--topic",
    "t",
)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("points") / "data"
    assert run_main("demo", "--data-dir", str(directory), "--no-show").code == 0
    return directory


def _times(data_dir: Path) -> list[tuple[int, int, int]]:
    """(base offset, last offset, time) of each batch."""
    return [(b.base_offset, b.last_offset, b.timestamp_ms) for b in read_decoded(data_dir)]


def _iso(ms: int, offset_minutes: int = 0) -> str:
    """``ms`` as ISO-8601 in a zone ``offset_minutes`` east of UTC (exact: no float)."""
    zone = timezone(timedelta(minutes=offset_minutes))
    return (EPOCH + timedelta(milliseconds=ms)).astimezone(zone).isoformat()


@pytest.mark.parametrize(
    "command", [("replay",), ("acls", "list"), ("explain", *EXPLAIN)], ids=lambda c: c[0]
)
def test_an_offset_and_a_time_together_are_refused(
    data_dir: Path, command: tuple[str, ...]
) -> None:
    result = run_main(
        *command, "--data-dir", str(data_dir), "--at-offset", "9", "--at-time", "2020-01-01"
    )
    assert result.code == 2
    assert "give --at-offset or --at-time, not both" in result.stderr


def test_a_reversed_diff_is_refused(data_dir: Path) -> None:
    first, last = _times(data_dir)[1][2], _times(data_dir)[-1][2]
    for start, end in (("17", "0"), (_iso(last), _iso(first)), ("17", _iso(first - 1))):
        result = run_main("diff", "--data-dir", str(data_dir), "--from", start, "--to", end)
        assert result.code == 2, (start, end, result.stderr)
        assert "--from comes after --to" in result.stderr and result.stdout == ""
    forward = run_main("diff", "--data-dir", str(data_dir), "--from", "0", "--to", "17", "--json")
    assert forward.code == 0 and json.loads(forward.stdout)["acls"]


def test_a_time_before_the_first_record_says_when_the_log_starts(data_dir: Path) -> None:
    first = _times(data_dir)[0][2]
    result = run_main("replay", "--data-dir", str(data_dir), "--at-time", str(first - 1), "--json")
    assert result.code == 0
    assert json.loads(result.stdout)["offset"] == -1
    started = datetime.fromtimestamp(first / 1000, UTC).isoformat(timespec="milliseconds")
    assert f"the log starts at {started.replace('+00:00', 'Z')} (offset 0)" in result.stderr


def test_an_offset_past_the_end_says_where_the_log_ends(data_dir: Path) -> None:
    result = run_main("acls", "list", "--data-dir", str(data_dir), "--at-offset", "99999")
    assert result.code == 0
    assert "offset 99999 is past the end of the log, which ends at offset 17" in result.stderr


def test_an_offset_inside_a_batch_says_the_batch_applies_whole(data_dir: Path) -> None:
    base, last, _ = _times(data_dir)[1]
    assert base < last
    result = run_main("replay", "--data-dir", str(data_dir), "--at-offset", str(base + 1))
    assert result.code == 0
    assert f"inside the batch of offsets {base}..{last}" in result.stderr
    assert result.stdout.startswith(f"state at offset {base - 1} ")


def test_an_offset_at_a_batch_end_needs_no_note(data_dir: Path) -> None:
    _, last, _ = _times(data_dir)[1]
    result = run_main("replay", "--data-dir", str(data_dir), "--at-offset", str(last))
    assert result.code == 0 and result.stderr == ""


@pytest.mark.parametrize("text", ["[/bold]", "yesterday", "2026-13-01", "1.5", "-5", "\u00b2"])
def test_an_unreadable_time_is_a_usage_error_naming_the_forms(data_dir: Path, text: str) -> None:
    result = run_main("replay", "--data-dir", str(data_dir), "--at-time", text)
    assert result.code == 2
    assert "epoch milliseconds" in result.stderr and "ISO-8601" in result.stderr


@settings(max_examples=40)
@given(st.data())
def test_epoch_milliseconds_and_iso_8601_at_any_offset_name_the_same_state(
    data_dir: Path, data: st.DataObject
) -> None:
    times = [t for _, _, t in _times(data_dir)]
    ms = data.draw(st.integers(times[0] - 2000, times[-1] + 2000))
    minutes = data.draw(st.integers(-14 * 60, 14 * 60))
    by_ms = run_main("replay", "--data-dir", str(data_dir), "--at-time", str(ms), "--json")
    by_iso = run_main(
        "replay", "--data-dir", str(data_dir), "--at-time", _iso(ms, minutes), "--json"
    )
    assert by_ms.code == by_iso.code == 0
    assert json.loads(by_ms.stdout) == json.loads(by_iso.stdout)
    expected = max((last for _, last, t in _times(data_dir) if t <= ms), default=-1)
    assert json.loads(by_ms.stdout)["offset"] == expected


def test_a_reversed_dump_range_is_refused(data_dir: Path) -> None:
    before = tree_digest(data_dir)
    result = run_main("dump", str(data_dir), "--from-offset", "9", "--to-offset", "3")
    assert result.code == 2 and "--to-offset comes before --from-offset" in result.stderr
    assert tree_digest(data_dir) == before


def test_a_time_in_the_future_says_the_state_is_the_latest(data_dir: Path) -> None:
    # a mistyped year (2926 for 2026) answered with the latest state and no word of it
    result = run_main("replay", "--data-dir", str(data_dir), "--at-time", "2926-01-01")
    assert result.code == 0
    assert (
        "aclog: note: 2926-01-01T00:00:00.000Z is in the future: this is the latest state, "
        "as of offset 17" in result.stderr
    )
    assert result.stdout == run_main("replay", "--data-dir", str(data_dir)).stdout


def test_answers_about_a_past_point_say_which_state_first(tmp_path: Path) -> None:
    data = ("--data-dir", str(tmp_path / "d"))
    added = run_main("acls", "add", *data, "--allow-principal", "User:a", "--operation", "Read",
                     "--topic", "t")  # fmt: skip
    assert added.code == 0, added.stderr
    at_start = ("--at-offset", "0")
    asks = [
        ("explain", "--principal", "User:a", "--host", "1.1.1.1", "--operation", "Read",
         "--topic", "t"),
        ("who-can", "--operation", "Read", "--topic", "t"),
        ("reach", "--principal", "User:a"),
    ]  # fmt: skip
    for ask in asks:
        past = run_main(*ask, *data, *at_start).stdout.splitlines()
        assert past[0].startswith("as of state at offset 0 (epoch 1, "), (ask, past)
        now = run_main(*ask, *data).stdout
        assert not now.startswith("as of"), (ask, now)
    empty = tmp_path / "empty"
    empty.mkdir()
    shown = run_main("replay", "--data-dir", str(empty)).stdout
    assert shown.startswith("the empty state (no record yet)"), shown
