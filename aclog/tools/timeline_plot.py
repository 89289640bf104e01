"""The ``timeline --plot`` picture: one request's decisions over time.

One horizontal band per host class (each host an ACL on the resource named at some point, then
"any other host"; with ``--host``, that host alone), green where the request is allowed and red
where it is denied, from the start point to the end point. A dashed line marks each flip,
labelled with its offset, its author and the ACLs it added (+) and removed (-). Times are UTC,
labelled as precisely as the span needs, as in the ``history --plot`` picture
(:mod:`aclog.pipeline.plot`); the title names the request, the data and the time range.

Drawn with matplotlib's Agg backend (no display needed). Not thread-safe (pyplot state); call
from one thread. Cost: linear in the flips times the host classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aclog.authorizer import Decision
from aclog.questions import ADDED, ANY_HOST, Flip, HostAnswer, Timeline, describe_pattern
from aclog.records import PatternType

COLORS = {Decision.ALLOWED: "tab:green", Decision.DENIED: "tab:red"}
MAX_LABELLED = 25  # flips labelled in full; past that the lines alone would still read


def plot_timeline(result: Timeline, path: Path, source: str) -> Path:
    """Write the picture of :func:`timeline_figure` as a PNG at ``path``; returns ``path``."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - after timeline_figure chose the backend

    figure = timeline_figure(result, source)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def timeline_figure(result: Timeline, source: str) -> Any:
    """The matplotlib figure (see the module docstring); ``source`` names the data."""
    import matplotlib  # noqa: PLC0415 - the backend must be chosen before pyplot loads

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415
    from matplotlib.patches import Patch  # noqa: PLC0415

    mdates = _dates()
    hosts = _hosts(result)
    figure, ax = plt.subplots(figsize=(13, 2.6 + 0.55 * len(hosts)), layout="constrained")
    left, right = _edges(result)
    states = [(left, result.initial)] + [(_moment(f.timestamp_ms), f.after) for f in result.flips]
    for row, host in enumerate(hosts):
        for i, (since, answers) in enumerate(states):
            until = states[i + 1][0] if i + 1 < len(states) else right
            width = mdates.date2num(until) - mdates.date2num(since)
            color = COLORS[_decision(answers, host)]
            ax.broken_barh([(mdates.date2num(since), width)], (row - 0.35, 0.7), color=color)
    for number, flip in enumerate(result.flips):
        _mark(ax, flip, len(hosts) + 0.28 * (number % 3), labelled=number < MAX_LABELLED)
    ax.set_yticks(range(len(hosts)), [_row_label(host, len(hosts)) for host in hosts])
    ax.set_ylim(-0.6, len(hosts) + 1.5)
    ax.set_xlim(mdates.date2num(left), mdates.date2num(right))
    locator = mdates.AutoDateLocator(tz=UTC)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, tz=UTC))
    ax.set_xlabel("time (UTC)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(
        handles=[
            Patch(color=COLORS[d], label=d.value) for d in (Decision.ALLOWED, Decision.DENIED)
        ],
        loc="upper left",
        ncols=2,
    )
    resource = describe_pattern(result.resource_type, PatternType.LITERAL, result.resource_name)
    flips = f"{len(result.flips)} flip{'s' if len(result.flips) != 1 else ''}"
    ax.set_title(
        f"{result.principal} {result.operation.name} on {resource} in {source}: {flips}, "
        f"{_span(left, right)}"
    )
    return figure


def _hosts(result: Timeline) -> list[str]:
    """Every host class any state names, the named hosts sorted, ``*`` (or the asked host)
    last."""
    every = [result.initial, *(flip.after for flip in result.flips)]
    named = sorted({a.host for answers in every for a in answers[:-1]})
    return [*named, result.initial[-1].host]


def _decision(answers: Sequence[HostAnswer], host: str) -> Decision:
    """The decision from ``host`` in a folded answer: its own row, else any other host's."""
    for answer in answers:
        if answer.host == host:
            return answer.decision
    return answers[-1].decision


def _row_label(host: str, rows: int) -> str:
    if host != ANY_HOST:
        return f"from {host}"
    return "any other host" if rows > 1 else "any host"


def _moment(timestamp_ms: int) -> datetime:
    return datetime.fromtimestamp(timestamp_ms / 1000, UTC)


def _edges(result: Timeline) -> tuple[datetime, datetime]:
    """The start and end of the picture: the points' commit times where they have one, padded
    so that a flip at either end stays visible."""
    times = [f.timestamp_ms for f in result.flips]
    times += [t for t in (result.start.timestamp_ms, result.end.timestamp_ms) if t >= 0]
    if not times:
        now = datetime.now(UTC)
        return now - timedelta(minutes=1), now
    first, last = _moment(min(times)), _moment(max(times))
    pad = max((last - first) * 0.06, timedelta(milliseconds=5))
    return first - pad, last + pad


def _mark(ax: Any, flip: Flip, height: float, *, labelled: bool) -> None:
    """A dashed line at the flip, labelled at ``height`` (staggered, so that neighbours do not
    overlap) with its offset, author and ACL changes."""
    at = _dates().date2num(_moment(flip.timestamp_ms))
    ax.axvline(at, color="black", linestyle="--", linewidth=0.8)
    if not labelled:
        return
    added = sum(1 for change in flip.changes if change.change == ADDED)
    removed = len(flip.changes) - added
    who = "no author" if flip.author is None else flip.author.principal
    label = f"{flip.direction} @{flip.last_offset}\n{who} +{added}/-{removed}"
    ax.annotate(label, (at, height - 0.45), rotation=0, fontsize=8, ha="left", va="bottom",
                xytext=(3, 0), textcoords="offset points")  # fmt: skip


def _dates() -> Any:
    """``matplotlib.dates`` (typed ``Any``: its functions carry no annotations)."""
    import matplotlib.dates  # noqa: PLC0415

    return matplotlib.dates


def _span(start: datetime, end: datetime) -> str:
    precision = "milliseconds" if end - start < timedelta(minutes=1) else "seconds"
    first = start.replace(tzinfo=None).isoformat(sep=" ", timespec=precision)
    last = end.replace(tzinfo=None).isoformat(sep=" ", timespec=precision)
    return f"{first} to {last} UTC"
