"""What each view answers, as data: the JSON a view serves (``/api/<view>``) and the context its
page renders. Each asks the same library functions as the CLI: ``acls list``'s filter and
``replay``'s image for State, ``dump --json``'s rows for Changes, ``explain``'s authorizer and
:meth:`~aclog.authorizer.Explanation.to_dict` for Explain.

Thread-safe (state lives in the :class:`~aclog.ui.source.LogSource`). Cost: State reads one
page of the image's ACLs (:func:`aclog.image.acl_page`: numpy passes over the table's
columns, records made only for the page shown); Changes decodes only the batches shown.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from aclog.authorizer import Authorizer
from aclog.image import MetadataImage, acl_page
from aclog.questions import ChangeSplit
from aclog.records import call_paused, record_to_dict
from aclog.replay import dump_row, entries_between, time_text, with_removed
from aclog.text import visible
from aclog.ui.effects import MAX_EFFECT_ACLS, batch_effects
from aclog.ui.queries import BadQuery, Moment, explain_query, state_filter, whole
from aclog.ui.source import LogProblem, LogSource
from aclog.ui.summary import BatchSummary

PAGE_ROWS = 100
"""Bindings on one State page: a page renders fast whatever the size of the state."""

PAGE_BATCHES = 20
"""Batches on one Changes page, at most."""

PAGE_RECORDS = 500
"""Records on one Changes page, at most: a page of bulk imports (10k records a batch) would
otherwise render hundreds of thousands of rows. A larger batch shows its first ones."""


def checked_state(source: LogSource, at: Moment) -> MetadataImage:
    """The state as of ``at``; a moment before the log's first batch or an offset past its
    end is a :class:`LogProblem` (404) saying where the log starts or ends."""
    image = source.state(at.offset, at.time_ms)
    if at.is_now:
        return image
    summaries = source.summaries()
    if not summaries:
        raise LogProblem("the log is empty: there is no moment to show yet", 404)
    first, last = summaries[0], summaries[-1]
    if at.offset is not None and at.offset > last.last_offset:
        raise LogProblem(
            f"offset {at.offset} is past the end of the log, which ends at offset "
            f"{last.last_offset} ({time_text(last.timestamp_ms)})",
            404,
        )
    if image.provenance.last_offset < first.base_offset:
        raise LogProblem(
            f"that moment is before the log starts, at {time_text(first.timestamp_ms)} "
            f"(offset {first.base_offset}); pick a later one",
            404,
        )
    return image


def state_data(image: MetadataImage, params: Mapping[str, str]) -> dict[str, Any]:
    """The State view: the provenance, one page of the bindings ``acls list`` would list
    for the filter (in its order), and the SCRAM users (names, mechanisms, iterations)."""
    acl_filter = state_filter(params)
    page = whole(params, "page", 1) or 1
    found = acl_page(image.acls, acl_filter, (page - 1) * PAGE_ROWS, PAGE_ROWS)
    pages = max(1, -(-found.total // PAGE_ROWS))
    if page > pages:
        raise BadQuery(f"page {page} is past the last page, {pages}")
    return {
        "offset": image.provenance.last_offset,
        "epoch": image.provenance.epoch,
        "timestamp": image.provenance.timestamp_ms,
        "acls": [record_to_dict(acl) for acl in found.acls],
        "users": image.scram.to_dict(),
        "total": found.total,
        "page": page,
        "pages": pages,
    }


def changes_data(source: LogSource, at: Moment, params: Mapping[str, str]) -> dict[str, Any]:
    """The Changes view: the committed batches that fit on a page (:func:`_fitting`), from
    ``start`` (an offset) on, or the last ones ending before ``before`` (an offset: the
    "older" link) or up to the moment; each with its request context, its records as ``dump
    --json`` prints them for the same offsets (redacted) and its effect on access
    (:func:`aclog.ui.effects.batch_effects`)."""
    summaries = source.summaries()
    start, ending = whole(params, "start"), whole(params, "before")
    if start is not None:
        later = (i for i, s in enumerate(summaries) if s.last_offset >= start)
        shown = _fitting(summaries[next(later, len(summaries)) :])
    else:
        end = ending - 1 if ending is not None else _moment_end(source, at)
        upto = [s for s in summaries if s.last_offset <= end]
        shown = _fitting(upto[::-1])[::-1]
    rows: list[dict[str, Any]] = []
    effects: dict[int, Any] = {}
    if shown:
        first = shown[0].base_offset
        stop = min(shown[-1].last_offset + 1, first + PAGE_RECORDS)
        batches = source.batches(first, stop)
        entries = entries_between(batches, first, stop)
        rows = [dump_row(entry, removed) for entry, removed in with_removed(entries)]
        if any(s.added + s.removed <= MAX_EFFECT_ACLS for s in shown):
            before = _state_before(source, first)
            effects = call_paused(batch_effects, before, batches)
    older = shown and shown[0] is not summaries[0]
    newer = shown and shown[-1] is not summaries[-1]
    return {
        "batches": [_batch_dict(s, rows, effects.get(s.base_offset)) for s in shown],
        "older_before": shown[0].base_offset if older else None,
        "newer_start": shown[-1].last_offset + 1 if newer else None,
    }


def _moment_end(source: LogSource, at: Moment) -> int:
    """The last offset of the state as of ``at`` (an offset needs no state built)."""
    if at.offset is not None:
        return at.offset
    return source.state(at.offset, at.time_ms).provenance.last_offset


def _fitting(summaries: list[BatchSummary]) -> list[BatchSummary]:
    """The first of ``summaries`` that fit on a page: up to :data:`PAGE_BATCHES` batches and
    :data:`PAGE_RECORDS` records, and always one batch (whose records past the budget are
    left off the page)."""
    fitting: list[BatchSummary] = []
    records = 0
    for summary in summaries[:PAGE_BATCHES]:
        records += summary.last_offset - summary.base_offset + 1
        if fitting and records > PAGE_RECORDS:
            break
        fitting.append(summary)
    return fitting


def _state_before(source: LogSource, offset: int) -> MetadataImage:
    """The state just before the batch at ``offset`` (empty before offset 0)."""
    return source.state(offset - 1) if offset > 0 else MetadataImage.EMPTY


def _batch_dict(summary: BatchSummary, rows: list[dict[str, Any]], effect: Any) -> dict[str, Any]:
    author = summary.author
    records = [r for r in rows if r["batch_base_offset"] == summary.base_offset]
    return {
        "base_offset": summary.base_offset,
        "last_offset": summary.last_offset,
        "timestamp": summary.timestamp_ms,
        "author": None if author is None else record_to_dict(author),
        "added": summary.added,
        "removed": summary.removed,
        "records": records,
        "records_left_off": summary.last_offset + 1 - summary.base_offset - len(records),
        "effect": effect,
    }


class Authorizers:
    """The authorizer loaded with the ACLs of the last image explained (Explain, Who can and
    Reach ask it; the Changes view's effect on access needs none): explaining again at the
    same moment does not load it again. One: at 1M ACLs an authorizer holds hundreds of MB.
    Thread-safe (a lock)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: tuple[MetadataImage, Authorizer] | None = None

    def for_image(self, image: MetadataImage) -> Authorizer:
        with self._lock:
            if self._last is not None and self._last[0] is image:
                return self._last[1]
            authorizer = Authorizer()
            call_paused(authorizer.load, image.acls)
            self._last = (image, authorizer)
            return authorizer


def explain_data(
    image: MetadataImage, authorizers: Authorizers, params: Mapping[str, str]
) -> dict[str, Any] | None:
    """``explain --json`` for the request the URL names (no super users, Kafka's default
    for allow-everyone), or ``None`` when the form is empty."""
    query = explain_query(params)
    if query is None:
        return None
    authorizer = authorizers.for_image(image)
    return authorizer.explain(
        query.principal, query.host, query.operation, query.resource_type, query.resource_name
    ).to_dict()


def timeline_data(source: LogSource, params: Mapping[str, str]) -> dict[str, Any]:
    """The Timeline chart's series, one point per batch: time (epoch ms), offset, ACLs
    added and removed, and the bindings held after it (counted from the first batch read);
    with ``by`` (``principal`` or ``resource``), also ``split``: the additions and removals
    of the keys with the most changes (:meth:`LogSource.split`), one value per point."""
    by = params.get("by", "").strip()
    if by not in ("", "principal", "resource"):
        raise BadQuery(f"by {by!r} is not one of: principal, resource (or empty)")
    held = 0
    points = []
    for s in source.summaries():
        held += s.added - s.removed
        points.append(
            {
                "offset": s.last_offset,
                "timestamp": s.timestamp_ms,
                "added": s.added,
                "removed": s.removed,
                "bindings": held,
            }
        )
    data: dict[str, Any] = {"points": points}
    if by:
        split = source.split("principal" if by == "principal" else "resource")
        data["split"] = _aligned(split, [p["offset"] for p in points])
    return data


def _aligned(split: ChangeSplit, offsets: list[int]) -> dict[str, Any]:
    """``split`` with one value per point at ``offsets`` (0 where the split, read at another
    moment of a growing log, has no batch), each key with its label as the CLI shows it."""
    where = {offset: i for i, offset in enumerate(split.offsets)}
    at = [where.get(offset) for offset in offsets]

    def pick(values: list[int]) -> list[int]:
        return [0 if i is None else values[i] for i in at]

    series = [
        {"key": s.key, "label": visible(s.key), "added": pick(s.added), "removed": pick(s.removed)}
        for s in split.series
    ]
    return {"by": split.by, "series": series}
