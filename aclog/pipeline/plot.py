"""The ``history --plot`` picture: ACL and credential counts over time, and changes per author.

Drawn with matplotlib's Agg backend (no display needed) from the small collected results of
:func:`aclog.pipeline.history.timeline` and :func:`~aclog.pipeline.history.changes_by_author`.

Not thread-safe (matplotlib's pyplot state); call from one thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from aclog.pipeline.history import KIND_ACL, KIND_CREDENTIAL

TimelinePoint = tuple[str, int, int]
"""(kind, time in ms, count after the change)."""
AuthorChanges = tuple[str, str, int]
"""(author, kind, changes)."""

LABELS = {KIND_ACL: "ACLs", KIND_CREDENTIAL: "SCRAM credentials"}
MAX_AUTHORS = 15


def plot_history(
    points: Sequence[TimelinePoint], authors: Sequence[AuthorChanges], path: Path
) -> Path:
    """Write a PNG with two panels: counts over time (a step line per kind) and the changes of
    the most active authors (stacked bars per kind). Returns ``path``."""
    import matplotlib  # noqa: PLC0415 - the backend must be chosen before pyplot loads

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    figure, (over_time, by_author) = plt.subplots(2, 1, figsize=(10, 8))
    for kind, label in LABELS.items():
        series = sorted((time, count) for k, time, count in points if k == kind)
        if series:
            times = [datetime.fromtimestamp(t / 1000, UTC) for t, _ in series]
            over_time.step(times, [c for _, c in series], where="post", label=label)
    over_time.set_title("ACLs and SCRAM credentials over time")
    over_time.set_ylabel("count")
    over_time.legend(loc="upper left")
    over_time.grid(alpha=0.3)

    totals: dict[str, int] = {}
    for author, _, changes in authors:
        totals[author] = totals.get(author, 0) + changes
    top = sorted(totals, key=lambda a: (-totals[a], a))[:MAX_AUTHORS]
    bottom = [0] * len(top)
    for kind, label in LABELS.items():
        counts = {a: c for a, k, c in authors if k == kind}
        heights = [counts.get(a, 0) for a in top]
        by_author.bar(top, heights, bottom=bottom, label=label)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    by_author.set_title(f"changes per author (top {len(top)})")
    by_author.set_ylabel("records")
    by_author.tick_params(axis="x", labelrotation=30)
    by_author.legend(loc="upper right")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
