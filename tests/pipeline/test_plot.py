"""The ``history --plot`` picture, checked through matplotlib's objects (no pixels): UTC time
axes, counts from 0, additions and removals apart, credentials on their own axes, the final
state as a plateau, a title naming the data and the time range, legends of drawn series only."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import matplotlib.dates as mdates
import pytest

from aclog.pipeline.plot import history_figure, plot_history

T0 = 1_795_619_074_547  # 2026-11-25T15:04:34.547Z
SMALL = [
    ("acl", T0 + 2, 7, 7, 0),
    ("scram_credential", T0 + 10, 2, 2, 0),
    ("acl", T0 + 30, 6, 0, 1),
]
AUTHORS = [("User:admin", "acl", 8), ("User:admin", "scram_credential", 2), ("User:ops", "acl", 1)]


def _axes(figure: object) -> dict[str, object]:
    return {ax.get_title(): ax for ax in figure.axes}  # type: ignore[attr-defined]


def _legend(ax: object) -> list[str]:
    legend = ax.get_legend()  # type: ignore[attr-defined]
    return [] if legend is None else [t.get_text() for t in legend.get_texts()]


def test_the_picture_of_a_small_log() -> None:
    figure = history_figure(SMALL, AUTHORS, "aclog-data")
    axes = _axes(figure)
    acls, credentials = axes["ACLs over time"], axes["SCRAM credentials over time"]
    added = axes["ACLs added (up) and removed (down)"]
    assert figure.get_suptitle() == (
        "aclog history of aclog-data: 2026-11-25 15:04:34.549 to 2026-11-25 15:04:34.577 UTC"
    )
    for ax in (acls, credentials, added):
        assert ax.get_xlabel() == "time (UTC)"
        assert isinstance(ax.xaxis.get_major_formatter(), mdates.ConciseDateFormatter)
    assert acls.get_ylim()[0] == 0 and credentials.get_ylim()[0] == 0
    assert _legend(acls) == ["ACLs"] and _legend(credentials) == ["SCRAM credentials"]
    assert _legend(added) == ["added", "removed"]
    heights = sorted(bar.get_height() for bar in added.patches)
    assert heights == [-1, 7]  # removals below the axis, additions above
    assert _legend(axes["SCRAM credentials added (up) and removed (down)"]) == ["added"]
    # The final state runs on to the right edge as a plateau, and says its value.
    line = acls.get_lines()[0]
    xs, ys = line.get_xdata(), line.get_ydata()
    assert ys[0] == 0 and ys[-1] == ys[-2] == 6
    assert mdates.date2num(xs[-1]) == pytest.approx(acls.get_xlim()[1])
    assert any(t.get_text() == "6 at the end" for t in acls.texts)
    assert _legend(axes["changes per author (top 2 of 2)"]) == ["ACLs", "SCRAM credentials"]


def test_a_kind_without_data_has_no_legend_and_says_so() -> None:
    figure = history_figure([p for p in SMALL if p[0] == "acl"], AUTHORS[:1], "d")
    axes = _axes(figure)
    credentials = axes["SCRAM credentials over time"]
    assert _legend(credentials) == [] and credentials.get_lines() == []
    assert [t.get_text() for t in credentials.texts] == ["no SCRAM credentials in this log"]
    assert _legend(axes["changes per author (top 1 of 1)"]) == ["ACLs"]


def test_a_year_long_log_is_labelled_in_months(tmp_path: Path) -> None:
    start = int(datetime(2025, 1, 1, tzinfo=UTC).timestamp() * 1000)
    day = 86_400_000
    points = [("acl", start + i * day, i + 1, 1, 0) for i in range(365)]
    figure = history_figure(points, [], "/srv/data")
    acls = _axes(figure)["ACLs over time"]
    figure.canvas.draw()
    labels = [t.get_text() for t in acls.get_xticklabels()]
    assert "Mar" in labels or "Apr" in labels
    assert "2025-01-01 00:00:00 to 2025-12-31 00:00:00 UTC" in figure.get_suptitle()
    picture = plot_history(points, [], tmp_path / "h.png", "/srv/data")
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
