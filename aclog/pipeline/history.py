"""The ``history`` job: one row per ACL lifetime and per SCRAM credential lifetime.

An ACL lives from the record that adds its id to the record that removes it (ids are never
reused). A credential (user, mechanism) lives from an upsert that finds none, through any number
of rotations (upserts over an existing one), to its removal; a later upsert starts a new lifetime.
Lifetimes are found with window functions over the change records of each key, ordered by
``(offset, position)``.

When the log was pruned and the job starts from a snapshot, what the snapshot holds existed at
its offset: such rows carry that offset with ``created_exact = false``. A removal whose addition
is older than the retained log has null creation columns.

All functions are lazy DataFrame -> DataFrame. Thread-safe.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

from aclog.pipeline.schema import (
    ACL_FIELDS,
    ACL_TYPE,
    REMOVE_ACL_TYPE,
    REMOVE_SCRAM_TYPE,
    SCRAM_TYPE,
    SOURCE_LOG,
)

KIND_ACL = "acl"
KIND_CREDENTIAL = "scram_credential"

_EVENT = (
    "offset",
    "timestamp",
    "author_principal",
    "author_address",
    "author_client_id",
    "author_api",
)
_EVENT_NAMES = ("offset", "time", "by", "from", "client_id", "api")


def _event(condition: Column) -> Column:
    """The struct of an event's columns when ``condition`` holds (null otherwise), ordered by
    offset first so ``min``/``max`` pick the first/last such event."""
    fields = [F.col("offset"), F.col("position"), *(F.col(c) for c in _EVENT[1:])]
    return F.when(condition, F.struct(*fields))


def _expand(column: str, prefix: str) -> list[Column]:
    return [
        F.col(f"{column}.{field}").alias(f"{prefix}_{name}")
        for field, name in zip(_EVENT, _EVENT_NAMES, strict=True)
    ]


def acl_lifetimes(records: DataFrame) -> DataFrame:
    """One row per ACL id: its fields, ``created_*`` and ``removed_*`` (null while it lives)."""
    events = records.filter(F.col("type").isin(ACL_TYPE, REMOVE_ACL_TYPE))
    is_add = F.col("type") == ACL_TYPE
    grouped = events.groupBy("acl_id").agg(
        F.min(_event(is_add & (F.col("source") == SOURCE_LOG))).alias("created"),
        F.min(_event(is_add)).alias("seen"),
        F.min(_event(~is_add)).alias("removed"),
        F.min_by(F.struct(*(F.col(c) for c in ACL_FIELDS)), F.when(is_add, F.col("offset"))).alias(
            "f"
        ),
    )
    # The log's own addition; else the snapshot's restatement (existed at the snapshot).
    created = F.coalesce(F.col("created"), F.col("seen"))
    return grouped.select(
        F.lit(KIND_ACL).alias("kind"),
        "acl_id",
        *(F.col(f"f.{name}").alias(name) for name in ACL_FIELDS),
        F.lit(None).cast(StringType()).alias("user"),
        F.lit(None).cast(StringType()).alias("mechanism"),
        F.lit(None).cast("int").alias("iterations"),
        *_expand_column(created, "created"),
        F.col("created").isNotNull().alias("created_exact"),
        F.lit(0).alias("rotations"),
        *_null_event("last_rotated"),
        *_expand("removed", "removed"),
    )


def _expand_column(column: Column, prefix: str) -> list[Column]:
    return [
        column.getField(field).alias(f"{prefix}_{name}")
        for field, name in zip(_EVENT, _EVENT_NAMES, strict=True)
    ]


def _null_event(prefix: str) -> list[Column]:
    types = ("long", "timestamp", "string", "string", "string", "string")
    return [
        F.lit(None).cast(kind).alias(f"{prefix}_{name}")
        for kind, name in zip(types, _EVENT_NAMES, strict=True)
    ]


def credential_lifetimes(records: DataFrame) -> DataFrame:
    """One row per SCRAM credential lifetime: ``created_*``, ``rotations`` and
    ``last_rotated_*``, ``removed_*``, and the iteration count last set."""
    events = records.filter(F.col("type").isin(SCRAM_TYPE, REMOVE_SCRAM_TYPE))
    order = Window.partitionBy("user", "mechanism").orderBy("offset", "position")
    upsert = F.col("type") == SCRAM_TYPE
    marked = events.withColumn("_previous", F.lag("type").over(order)).withColumn(
        "_start",
        upsert & (F.col("_previous").isNull() | (F.col("_previous") == REMOVE_SCRAM_TYPE)),
    )
    numbered = marked.withColumn(
        "_lifetime",
        F.sum(F.col("_start").cast("int")).over(
            order.rowsBetween(Window.unboundedPreceding, Window.currentRow)
        ),
    )
    start = F.col("_start")
    rotation = upsert & ~start
    grouped = numbered.groupBy("user", "mechanism", "_lifetime").agg(
        F.min(_event(start)).alias("created"),
        F.min(_event(start & (F.col("source") == SOURCE_LOG))).alias("created_log"),
        F.count(F.when(rotation, True)).alias("rotations"),
        F.max(_event(rotation)).alias("last_rotated"),
        F.min(_event(~upsert)).alias("removed"),
        F.max_by(F.col("iterations"), F.when(upsert, F.col("offset"))).alias("iterations"),
    )
    return grouped.select(
        F.lit(KIND_CREDENTIAL).alias("kind"),
        F.lit(None).cast(StringType()).alias("acl_id"),
        *(F.lit(None).cast(StringType()).alias(name) for name in ACL_FIELDS),
        "user",
        "mechanism",
        "iterations",
        *_expand("created", "created"),
        F.col("created_log").isNotNull().alias("created_exact"),
        F.col("rotations").cast("int").alias("rotations"),
        *_expand("last_rotated", "last_rotated"),
        *_expand("removed", "removed"),
    )


def history(records: DataFrame) -> DataFrame:
    """ACL lifetimes and credential lifetimes in one table (``kind`` tells them apart)."""
    return acl_lifetimes(records).unionByName(credential_lifetimes(records))


def timeline(lifetimes: DataFrame) -> DataFrame:
    """How many ACLs and credentials exist after each change: ``kind``, ``time`` (ms),
    ``offset``, ``count``, and the ``added`` and ``removed`` at that offset; one row per
    (kind, offset) where something was added or removed."""
    starts = lifetimes.select(
        "kind",
        F.col("created_offset").alias("offset"),
        (F.unix_millis(F.col("created_time"))).alias("time"),
        F.lit(1).alias("delta"),
    )
    ends = lifetimes.filter(F.col("removed_offset").isNotNull()).select(
        "kind",
        F.col("removed_offset").alias("offset"),
        F.unix_millis(F.col("removed_time")).alias("time"),
        F.lit(-1).alias("delta"),
    )
    changes = (
        starts.unionByName(ends)
        .filter(F.col("offset").isNotNull())
        .groupBy("kind", "offset", "time")
        .agg(
            F.sum("delta").alias("delta"),
            F.count_if(F.col("delta") > 0).alias("added"),
            F.count_if(F.col("delta") < 0).alias("removed"),
        )
    )
    running = (
        Window.partitionBy("kind")
        .orderBy("offset")
        .rowsBetween(Window.unboundedPreceding, Window.currentRow)
    )
    return changes.select(
        "kind",
        "time",
        "offset",
        F.sum("delta").over(running).cast("long").alias("count"),
        "added",
        "removed",
    )


def changes_by_author(records: DataFrame) -> DataFrame:
    """How many ACL and credential changes each author made: ``author``, ``kind``, ``changes``
    (most first). Changes without a recorded author count under ``(unknown)``."""
    kind = F.when(F.col("type").isin(ACL_TYPE, REMOVE_ACL_TYPE), F.lit(KIND_ACL)).when(
        F.col("type").isin(SCRAM_TYPE, REMOVE_SCRAM_TYPE), F.lit(KIND_CREDENTIAL)
    )
    return (
        records.filter(F.col("source") == SOURCE_LOG)
        .select(
            F.coalesce("author_principal", F.lit("(unknown)")).alias("author"), kind.alias("kind")
        )
        .filter(F.col("kind").isNotNull())
        .groupBy("author", "kind")
        .agg(F.count(F.lit(1)).alias("changes"))
        .orderBy(F.col("changes").desc(), "author", "kind")
    )
