"""The ``state`` job: the ACLs and SCRAM credentials as of a point, as DataFrames.

The same answer as ``aclog replay`` (:func:`aclog.controller.rebuild.rebuild_image`), computed as
last-record-wins: per ACL id, and per (user, mechanism), the newest record by ``(offset,
position)`` decides, and the key is present when that record is an addition. The newest record
is ``max(struct(offset, position, ...))`` after one shuffle by key: one sort per result, where a
``row_number()`` window sorted twice (before and after its shuffle) and kept every column of
every row until the filter. Times are built from ``timestamp_ms`` only for the rows kept, so the
job reads just :data:`STATE_INPUT_COLUMNS`.
:func:`cut` keeps whole batches only, stopping at the first batch past the point exactly as replay
stops (so a batch with an earlier timestamp after a later one is not taken).

Every function is DataFrame -> DataFrame and lazy; :func:`state_dict` collects (small results).
Thread-safe (no shared state).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from aclog.pipeline.schema import (
    ACL_FIELDS,
    ACL_TYPE,
    REMOVE_ACL_TYPE,
    REMOVE_SCRAM_TYPE,
    SCRAM_TYPE,
    SOURCE_LOG,
)

_ORDER = ("offset", "position")
ACL_COLUMNS = ("acl_id", *ACL_FIELDS)
"""The columns of an ACL in ``aclog``'s JSON shape, in order."""

MECHANISM_ORDER = {"UNKNOWN": 0, "SCRAM-SHA-256": 1, "SCRAM-SHA-512": 2}
"""Mechanism names by code: the order ``aclog replay`` lists a user's credentials in."""


def cut(
    records: DataFrame, at_offset: int | None = None, at_time_ms: int | None = None
) -> DataFrame:
    """The records replay applies for the state as of ``at_offset`` and ``at_time_ms``: snapshot
    rows, and the log up to (not including) the first batch that ends after ``at_offset`` or was
    appended after ``at_time_ms``."""
    if at_offset is None and at_time_ms is None:
        return records
    past = F.lit(False)
    if at_offset is not None:
        past = past | (F.col("batch_last_offset") > F.lit(at_offset))
    if at_time_ms is not None:
        past = past | (F.col("timestamp_ms") > F.lit(at_time_ms))
    stop = records.filter((F.col("source") == SOURCE_LOG) & past).agg(
        F.min("batch_base_offset").alias("_stop")
    )
    return (
        records.crossJoin(F.broadcast(stop))
        .filter(
            (F.col("source") != SOURCE_LOG)
            | F.col("_stop").isNull()
            | (F.col("offset") < F.col("_stop"))
        )
        .drop("_stop")
    )


def _newest(
    records: DataFrame, keys: list[str], types: tuple[str, str], columns: tuple[str, ...]
) -> DataFrame:
    """Per key, ``columns`` of the newest record of ``types`` (in a struct ``last``), for
    the keys whose newest record is ``types[0]`` (an addition)."""
    # Repartitioning by the key first leaves one sort: the aggregate's partial and final steps
    # then share it (a partial step before the shuffle would sort for nothing, as ids repeat
    # rarely).
    newest = F.max(F.struct(*_ORDER, "type", *columns)).alias("last")
    return (
        records.filter(F.col("type").isin(*types))
        .repartition(*keys)
        .groupBy(*keys)
        .agg(newest)
        .filter(F.col("last.type") == types[0])
    )


def _time(column: str) -> Column:
    return F.timestamp_millis(F.col(column))


def acl_state(records: DataFrame) -> DataFrame:
    """One row per ACL present after ``records``: its id and fields, plus when and by whom it
    was created (``created_offset``, ``created_time``, ``created_by``...). Sort by
    ``(created_offset, created_position)`` for commit order (the order ``aclog replay`` lists)."""
    provenance = ("timestamp_ms", "author_principal", "author_address", "source")
    newest = _newest(records, ["acl_id"], (ACL_TYPE, REMOVE_ACL_TYPE), (*ACL_FIELDS, *provenance))
    return newest.select(
        "acl_id",
        *(F.col(f"last.{name}").alias(name) for name in ACL_FIELDS),
        F.col("last.offset").alias("created_offset"),
        F.col("last.position").alias("created_position"),
        _time("last.timestamp_ms").alias("created_time"),
        F.col("last.author_principal").alias("created_by"),
        F.col("last.author_address").alias("created_from"),
        F.col("last.source").alias("created_source"),
    )


def user_state(records: DataFrame) -> DataFrame:
    """One row per SCRAM credential present after ``records``: ``user``, ``mechanism``,
    ``iterations`` and when it was last set (no salt or key exists in the input at all)."""
    types = (SCRAM_TYPE, REMOVE_SCRAM_TYPE)
    columns = ("iterations", "timestamp_ms", "author_principal")
    return _newest(records, ["user", "mechanism"], types, columns).select(
        "user",
        "mechanism",
        F.col("last.iterations").alias("iterations"),
        F.col("last.offset").alias("updated_offset"),
        _time("last.timestamp_ms").alias("updated_time"),
        F.col("last.author_principal").alias("updated_by"),
    )


def provenance(records: DataFrame) -> DataFrame:
    """One row: the ``offset``, ``epoch`` and ``timestamp`` (ms) of the last record applied,
    all -1 when there is none (``aclog replay``'s header)."""
    last = F.max(F.struct("offset", "position", "epoch", "timestamp_ms")).alias("last")
    return records.agg(last).select(
        F.coalesce(F.col("last.offset"), F.lit(-1)).alias("offset"),
        F.coalesce(F.col("last.epoch"), F.lit(-1)).alias("epoch"),
        F.coalesce(F.col("last.timestamp_ms"), F.lit(-1)).alias("timestamp"),
    )


def mechanism_code(column: Column) -> Column:
    """A mechanism name's code, for ordering credentials as ``aclog replay`` does."""
    expression = F.lit(99)
    for name, code in reversed(list(MECHANISM_ORDER.items())):
        expression = F.when(column == name, F.lit(code)).otherwise(expression)
    return expression


def acl_json(row: dict[str, Any]) -> dict[str, Any]:
    """An ACL row as ``aclog``'s ACL JSON: ``{"id", "resource_type", ..., "permission_type"}``."""
    return {"id": row["acl_id"], **{name: row[name] for name in ACL_FIELDS}}


@dataclass(frozen=True)
class State:
    """A state as three lazy DataFrames over one (persisted) cut of the records."""

    acls: DataFrame
    users: DataFrame
    provenance: DataFrame
    records: DataFrame

    def unpersist(self) -> None:
        """Release the cached records."""
        self.records.unpersist()

    def to_dict(self) -> dict[str, Any]:
        """Collect as ``aclog replay --json`` prints it (see :func:`state_dict`)."""
        return state_dict(self.acls, self.users, self.provenance)


def state(
    records: DataFrame,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    *,
    persist: bool = True,
) -> State:
    """The state as of the point: :func:`cut`, then :func:`acl_state`, :func:`user_state` and
    :func:`provenance` over it. ``persist`` caches the cut records (memory, spilling to disk),
    so the three results decode the log once instead of three times."""
    kept = cut(records, at_offset, at_time_ms).select(*_KEPT_COLUMNS)
    if persist:
        kept = kept.persist(StorageLevel.MEMORY_AND_DISK)
    return State(acl_state(kept), user_state(kept), provenance(kept), kept)


_KEPT_COLUMNS = (
    "offset",
    "position",
    "epoch",
    "timestamp_ms",
    "source",
    "type",
    "author_principal",
    "author_address",
    *ACL_COLUMNS,
    "user",
    "mechanism",
    "iterations",
)

STATE_INPUT_COLUMNS = (*_KEPT_COLUMNS, "batch_base_offset", "batch_last_offset")
"""The record columns :func:`state` reads (:func:`cut` needs the batch bounds): a source read
with just these (``read_records(..., columns=STATE_INPUT_COLUMNS)``) builds no others."""


def state_dict(acls: DataFrame, users: DataFrame, position: DataFrame) -> dict[str, Any]:
    """Collect a state as ``aclog replay --json`` prints it: ``{"offset", "epoch",
    "timestamp", "acls", "users"}``, ACLs in commit order, users by name. One Spark action."""
    acl_rows = acls.select(
        F.lit(0).alias("part"),
        F.col("created_offset").alias("k1"),
        F.col("created_position").alias("k2"),
        F.to_json(F.struct(F.col("acl_id").alias("id"), *ACL_FIELDS)).alias("text"),
        F.lit(None).cast("string").alias("name"),
        F.lit(None).cast("int").alias("n"),
    )
    credential_rows = users.select(
        F.lit(1).alias("part"),
        mechanism_code(F.col("mechanism")).cast("long").alias("k1"),
        F.lit(0).cast("long").alias("k2"),
        F.col("mechanism").alias("text"),
        F.col("user").alias("name"),
        F.col("iterations").alias("n"),
    )
    head_rows = position.select(
        F.lit(2).alias("part"),
        F.col("offset").alias("k1"),
        F.col("timestamp").alias("k2"),
        F.lit(None).cast("string").alias("text"),
        F.lit(None).cast("string").alias("name"),
        F.col("epoch").alias("n"),
    )
    rows = acl_rows.unionByName(credential_rows).unionByName(head_rows).collect()
    acl_list = sorted((r for r in rows if r["part"] == 0), key=lambda r: (r["k1"], r["k2"]))
    credentials = sorted((r for r in rows if r["part"] == 1), key=lambda r: (r["name"], r["k1"]))
    head = next((r for r in rows if r["part"] == 2), None)
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in credentials:
        grouped.setdefault(row["name"], []).append(
            {"mechanism": row["text"], "iterations": row["n"]}
        )
    return {
        "offset": head["k1"] if head else -1,
        "epoch": head["n"] if head else -1,
        "timestamp": head["k2"] if head else -1,
        "acls": [json.loads(row["text"]) for row in acl_list],
        "users": [{"name": name, "credentials": creds} for name, creds in grouped.items()],
    }
