"""The ``history --plot`` picture: how many ACLs and SCRAM credentials existed over time, what was
added and removed when, and who made the changes.

Drawn with matplotlib's Agg backend (no display needed) from the small collected results of
:func:`aclog.pipeline.history.timeline` and :func:`~aclog.pipeline.history.changes_by_author`.
ACLs on the left and SCRAM credentials on the right (each its own axes: a few users beside
thousands of ACLs would be a flat line): above, a step line of the count that runs on past the
last change, so the final state shows as a plateau labelled with its value; below, the additions
(up) and removals (down) per time bucket. At the bottom, the changes of the most active
authors. Times are UTC, labelled as
precisely as the span needs (years to milliseconds); counts start at 0; the legend lists only
series with data; the title names the data and the time range.

Not thread-safe (matplotlib's pyplot state); call from one thread. Cost: linear in the points.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aclog.pipeline.history import KIND_ACL, KIND_CREDENTIAL

TimelinePoint = tuple[str, int, int, int, int]
"""(kind, time in ms, count after the change, added, removed)."""
AuthorChanges = tuple[str, str, int]
"""(author, kind, changes)."""

LABELS = {KIND_ACL: "ACLs", KIND_CREDENTIAL: "SCRAM credentials"}
COLORS = {
    KIND_ACL: ("tab:blue", "tab:green", "tab:red"),
    KIND_CREDENTIAL: ("tab:purple", "tab:olive", "tab:orange"),
}
MAX_AUTHORS = 15
BUCKETS = 60
_CHANGES = "changes of "


def plot_history(
    points: Sequence[TimelinePoint], authors: Sequence[AuthorChanges], path: Path, source: str
) -> Path:
    """Write the picture of :func:`history_figure` as a PNG at ``path``; returns ``path``."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - after history_figure chose the backend

    figure = history_figure(points, authors, source)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def history_figure(
    points: Sequence[TimelinePoint], authors: Sequence[AuthorChanges], source: str
) -> Any:
    """The matplotlib figure (see the module docstring); ``source`` names the data."""
    import matplotlib  # noqa: PLC0415 - the backend must be chosen before pyplot loads

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    figure, axes = plt.subplot_mosaic(
        [
            [KIND_ACL, KIND_CREDENTIAL],
            [_CHANGES + KIND_ACL, _CHANGES + KIND_CREDENTIAL],
            ["authors", "authors"],
        ],
        figsize=(14, 11),
        height_ratios=(3, 2, 3),
        layout="constrained",
    )
    times = [datetime.fromtimestamp(p[1] / 1000, UTC) for p in points]
    start, end = (min(times), max(times)) if times else (datetime.now(UTC),) * 2
    edge = end + max((end - start) * 0.08, timedelta(milliseconds=1))
    for kind in LABELS:
        ours = [p for p in points if p[0] == kind]
        _counts(axes[kind], ours, kind, (start - (edge - end), edge))
        _changes(axes[_CHANGES + kind], ours, kind, start, edge)
        for ax in (axes[kind], axes[_CHANGES + kind]):
            ax.set_xlim(*_dates().date2num([start - (edge - end), edge]))  # pads both ends
            _utc_axis(ax)
    _authors(axes["authors"], authors)
    figure.suptitle(f"aclog history of {source}: {_span(start, end) if times else 'no changes'}")
    return figure


def _span(start: datetime, end: datetime) -> str:
    """``start to end UTC``, to the millisecond when the span is under a minute."""
    precision = "milliseconds" if end - start < timedelta(minutes=1) else "seconds"
    first = start.replace(tzinfo=None).isoformat(sep=" ", timespec=precision)
    last = end.replace(tzinfo=None).isoformat(sep=" ", timespec=precision)
    return f"{first} to {last} UTC"


def _counts(
    ax: Any, points: Sequence[TimelinePoint], kind: str, edges: tuple[datetime, datetime]
) -> None:
    """The count of ``kind`` as a step line from the left edge (the count before its first
    change), held to the right edge as the final plateau."""
    left, edge = edges
    ax.set_title(f"{LABELS[kind]} over time")
    ax.set_ylabel(LABELS[kind])
    ax.grid(alpha=0.3)
    series = sorted((p[1], p[2]) for p in points)
    if not series:
        ax.text(0.5, 0.5, f"no {LABELS[kind]} in this log", ha="center", transform=ax.transAxes)
        ax.set_ylim(0, 1)
        return
    first = min(points, key=lambda p: p[1])
    before = first[2] - first[3] + first[4]  # the count before the first change drawn
    times = [left] + [datetime.fromtimestamp(t / 1000, UTC) for t, _ in series] + [edge]
    counts = [before] + [c for _, c in series] + [series[-1][1]]
    ax.step(times, counts, where="post", color=COLORS[kind][0], label=LABELS[kind])
    final = counts[-1]
    ax.annotate(f"{final:,} at the end", (edge, final), ha="right", va="bottom")
    ax.set_ylim(0, max(1, *counts) * 1.15)
    ax.yaxis.set_major_locator(_ticker().MaxNLocator(integer=True))
    ax.legend(loc="upper left")


def _changes(
    ax: Any, points: Sequence[TimelinePoint], kind: str, start: datetime, edge: datetime
) -> None:
    """Additions of ``kind`` above the axis and removals below it, per time bucket."""
    mdates = _dates()
    ax.yaxis.set_major_locator(_ticker().MaxNLocator(integer=True))
    ax.set_title(f"{LABELS[kind]} added (up) and removed (down)")
    ax.set_ylabel("per time bucket")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.grid(alpha=0.3)
    low, high = mdates.date2num(start), mdates.date2num(edge)
    width = (high - low) / BUCKETS
    added, removed = _bucketed(points, low, width)
    for sign, sums, color, verb in ((1, added, 1, "added"), (-1, removed, 2, "removed")):
        if sums:
            centres = [low + (b + 0.5) * width for b in sums]
            heights = [sign * n for n in sums.values()]
            ax.bar(centres, heights, width * 0.8, color=COLORS[kind][color], label=verb)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left")
    else:
        ax.text(0.5, 0.5, "no changes", ha="center", transform=ax.transAxes)


def _bucketed(
    points: Sequence[TimelinePoint], low: float, width: float
) -> tuple[dict[int, int], dict[int, int]]:
    """(additions, removals) summed per bucket index; empty buckets left out."""
    mdates = _dates()
    added: dict[int, int] = {}
    removed: dict[int, int] = {}
    for _, time, _, plus, minus in points:
        moment = mdates.date2num(datetime.fromtimestamp(time / 1000, UTC))
        bucket = min(int((moment - low) / width), BUCKETS - 1) if width > 0 else 0
        if plus:
            added[bucket] = added.get(bucket, 0) + plus
        if minus:
            removed[bucket] = removed.get(bucket, 0) + minus
    return added, removed


def _dates() -> Any:
    """``matplotlib.dates`` (typed ``Any``: its functions carry no annotations)."""
    import matplotlib.dates  # noqa: PLC0415

    return matplotlib.dates


def _ticker() -> Any:
    """``matplotlib.ticker`` (typed ``Any``, as :func:`_dates`)."""
    import matplotlib.ticker  # noqa: PLC0415

    return matplotlib.ticker


def _utc_axis(ax: Any) -> None:
    mdates = _dates()
    locator = mdates.AutoDateLocator(tz=UTC)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, tz=UTC))
    ax.set_xlabel("time (UTC)")


def _authors(ax: Any, authors: Sequence[AuthorChanges]) -> None:
    """Stacked bars of the most active authors' changes, one colour per kind with any."""
    totals: dict[str, int] = {}
    for author, _, changes in authors:
        totals[author] = totals.get(author, 0) + changes
    top = sorted(totals, key=lambda a: (-totals[a], a))[:MAX_AUTHORS]
    ax.set_title(f"changes per author (top {len(top)} of {len(totals)})")
    ax.set_ylabel("records")
    bottom = [0] * len(top)
    for kind, label in LABELS.items():
        counts = {a: c for a, k, c in authors if k == kind}
        heights = [counts.get(a, 0) for a in top]
        if any(heights):
            ax.bar(top, heights, bottom=bottom, label=label, color=COLORS[kind][0])
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.tick_params(axis="x", labelrotation=30)
    if top:
        ax.legend(loc="upper right")
    else:
        ax.text(0.5, 0.5, "no changes with an author", ha="center", transform=ax.transAxes)
