"""The ``diff`` job: what changed between two points of a log, and who changed it when, as
``aclog diff`` answers it (:func:`aclog.replay.diff.diff`) but with Spark.

The states at both points are the ``state`` job's (:func:`~aclog.pipeline.state.state` over one
read of the records); ACLs added or removed are anti joins on the id, credentials added,
removed or changed are a full outer join on (user, mechanism). The batch behind each change is
the newest record of that ACL id (or credential) after the first point and up to the second;
its author is the batch's request context (the context is stamped with the batch's time). An ACL
added and removed again between the points does not appear, as in-process.

Collected as the in-process ``Diff.to_dict()``: ``{"from", "to", "acls", "credentials"}``, the
changes ordered by offset. Thread-safe; runs a few Spark jobs.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from aclog.pipeline.schema import (
    ACL_FIELDS,
    ACL_TYPE,
    REMOVE_ACL_TYPE,
    REMOVE_SCRAM_TYPE,
    SCRAM_TYPE,
    SOURCE_LOG,
)
from aclog.pipeline.state import State, state
from aclog.pipeline.state_json import MECHANISM_ORDER, acl_json
from aclog.replay.diff import Point

_EVENT = ("offset", "timestamp_ms", "author_principal", "author_address", "author_client_id",
          "author_api")  # fmt: skip


def diff_job(records: DataFrame, start: Point, end: Point) -> dict[str, Any]:
    """The changes from ``start`` to ``end`` over ``records`` (every record both states need:
    :func:`~aclog.pipeline.load.records_for_history`). ``ValueError`` when ``end`` comes before
    ``start``."""
    before = state(records, start.offset, start.time_ms)
    after = state(records, end.offset, end.time_ms)
    try:
        low, high = before.survey.offset, after.survey.offset
        if high < low:
            raise ValueError("the end point comes before the start point; give the earlier first")
        between = records.filter(
            (F.col("source") == SOURCE_LOG)
            & (F.col("offset") > F.lit(low))
            & (F.col("offset") <= F.lit(high))
        )
        result = {
            "from": _provenance(before),
            "to": _provenance(after),
            "acls": _acl_changes(before, after, between),
            "credentials": _credential_changes(before, after, between),
        }
    finally:
        before.unpersist()
        after.unpersist()
    return result


def _provenance(found: State) -> dict[str, int]:
    survey = found.survey
    return {"last_offset": survey.offset, "epoch": survey.epoch, "timestamp_ms": survey.timestamp}


def _newest(between: DataFrame, keys: list[str], types: tuple[str, str]) -> DataFrame:
    """Per key, the newest record of ``types`` between the points (its event columns)."""
    return (
        between.filter(F.col("type").isin(*types))
        .groupBy(*keys)
        .agg(F.max_by(F.struct(*_EVENT), F.col("offset")).alias("event"))
    )


def _event(row: Any) -> dict[str, Any]:
    event = row["event"]
    if event is None:
        return {"offset": None, "timestamp": None, "author": None}
    author = None
    if event["author_principal"] is not None:
        author = {
            "principal": event["author_principal"],
            "client_address": event["author_address"],
            "client_id": event["author_client_id"],
            "timestamp_ms": event["timestamp_ms"],
            "api": event["author_api"],
        }
    return {"offset": event["offset"], "timestamp": event["timestamp_ms"], "author": author}


def _acl_changes(before: State, after: State, between: DataFrame) -> list[dict[str, Any]]:
    events = _newest(between, ["acl_id"], (ACL_TYPE, REMOVE_ACL_TYPE))
    columns = ("acl_id", *ACL_FIELDS)
    old, new = before.acls.select(*columns), after.acls.select(*columns)
    rows = [
        (kind, row)
        for kind, found in (
            ("added", new.join(old.select("acl_id"), "acl_id", "left_anti")),
            ("removed", old.join(new.select("acl_id"), "acl_id", "left_anti")),
        )
        for row in found.join(events, "acl_id", "left").collect()
    ]
    changes = [{"change": kind, **acl_json(row.asDict()), **_event(row)} for kind, row in rows]
    return sorted(changes, key=lambda c: (c["offset"] is None, c["offset"] or 0))


def _credential_changes(before: State, after: State, between: DataFrame) -> list[dict[str, Any]]:
    keys = ["user", "mechanism"]
    events = _newest(between, keys, (SCRAM_TYPE, REMOVE_SCRAM_TYPE))
    old = before.users.select(*keys, F.col("iterations").alias("old_iterations"))
    new = after.users.select(*keys, F.col("iterations").alias("new_iterations"))
    joined = old.join(new, keys, "full_outer").join(events, keys, "left").collect()
    changes = []
    for row in sorted(joined, key=lambda r: (r["user"], MECHANISM_ORDER.get(r["mechanism"], 99))):
        subject = {"name": row["user"], "mechanism": row["mechanism"]}
        if row["old_iterations"] is None:
            changes.append({"change": "added", **subject, "iterations": row["new_iterations"]})
        elif row["new_iterations"] is None:
            changes.append({"change": "removed", **subject})
        elif row["event"] is not None:
            changes.append({"change": "changed", **subject, "iterations": row["new_iterations"]})
        else:
            continue
        changes[-1].update(_event(row))
    return sorted(changes, key=lambda c: (c["offset"] is None, c["offset"] or 0))
