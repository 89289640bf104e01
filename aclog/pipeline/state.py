"""The ``state`` job: the ACLs and SCRAM credentials as of a point, as DataFrames.

The same answer as ``aclog replay`` (:func:`aclog.replay.rebuild.rebuild_image`). ACLs: the
additions no later removal of their id follows (:func:`acl_state`: one anti join, with the
removals broadcast when there are not too many, so the additions are never shuffled). SCRAM
credentials, few by comparison: per (user, mechanism), the newest record by ``(offset,
position)`` decides, and the key is present when that record is an addition (``max(struct(offset,
position, ...))`` after one shuffle by key). Times are built from ``timestamp_ms`` only for the
rows kept, and records are told apart by ``type_code`` (an int is cheaper to carry and cache
than the type's name), so the job reads just :data:`STATE_INPUT_COLUMNS`.
:func:`cut` keeps whole batches only, stopping at the first batch past the point exactly as replay
stops (so a batch with an earlier timestamp after a later one is not taken).

Every function is DataFrame -> DataFrame and lazy, except :func:`state`, which runs one job
(:func:`~aclog.pipeline.survey.survey`: the provenance and the removals that choose the join);
:meth:`State.to_dict` collects (:func:`~aclog.pipeline.state_json.state_dict`).
Thread-safe (no shared state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from aclog.pipeline.schema import (
    ACL_CODE,
    ACL_FIELDS,
    REMOVE_ACL_CODE,
    REMOVE_SCRAM_CODE,
    SCRAM_CODE,
    SOURCE_LOG,
)
from aclog.pipeline.state_json import state_dict
from aclog.pipeline.survey import Survey, survey

_ORDER = ("offset", "position")
ACL_COLUMNS = ("acl_id", *ACL_FIELDS)
"""The columns of an ACL in ``aclog``'s JSON shape, in order."""


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
    records: DataFrame, keys: list[str], types: tuple[int, int], columns: tuple[str, ...]
) -> DataFrame:
    """Per key, ``columns`` of the newest record of ``types`` (in a struct ``last``), for
    the keys whose newest record is ``types[0]`` (an addition)."""
    # Repartitioning by the key first leaves one sort: the aggregate's partial and final steps
    # then share it (a partial step before the shuffle would sort for nothing, as ids repeat
    # rarely).
    newest = F.max(F.struct(*_ORDER, "type_code", *columns)).alias("last")
    return (
        records.filter(F.col("type_code").isin(*types))
        .repartition(*keys)
        .groupBy(*keys)
        .agg(newest)
        .filter(F.col("last.type_code") == types[0])
    )


def _time(column: str) -> Column:
    return F.timestamp_millis(F.col(column))


BROADCAST_REMOVALS = 2_000_000
"""Up to this many ACL removals, :func:`acl_state` broadcasts them (about 100 bytes each on
the driver and every executor) instead of shuffling the additions."""


def acl_state(records: DataFrame, broadcast_removals: bool = False) -> DataFrame:
    """One row per ACL present after ``records``: its id and fields, plus when and by whom it
    was created (``created_offset``, ``created_time``, ``created_by``...). Sort by
    ``(created_offset, created_position)`` for commit order (the order ``aclog replay`` lists).

    An addition is present when no removal of its id comes after it. That is replay's answer
    because replay is strict: it refuses to add an id that is present or remove one that is
    not, so the additions and removals of one id alternate, and only an id's last addition can
    lack a later removal. (A log replay refuses gives no state to equal.) With
    ``broadcast_removals`` every task gets the removals' ids and offsets and the additions stay
    where they are; otherwise both sides are shuffled and sorted by id."""
    added = records.filter(F.col("type_code") == ACL_CODE)
    removed = records.filter(F.col("type_code") == REMOVE_ACL_CODE).select(
        F.col("acl_id").alias("_removed_id"), F.col("offset").alias("_removed_at")
    )
    # A hint either way, so that the plan does not hang on Spark's size estimates.
    removed = removed.hint("broadcast" if broadcast_removals else "merge")
    later = (added["acl_id"] == removed["_removed_id"]) & (removed["_removed_at"] > added["offset"])
    return added.join(removed, later, "left_anti").select(
        "acl_id",
        *ACL_FIELDS,
        F.col("offset").alias("created_offset"),
        F.col("position").alias("created_position"),
        _time("timestamp_ms").alias("created_time"),
        F.col("author_principal").alias("created_by"),
        F.col("author_address").alias("created_from"),
        F.col("source").alias("created_source"),
    )


def user_state(records: DataFrame) -> DataFrame:
    """One row per SCRAM credential present after ``records``: ``user``, ``mechanism``,
    ``iterations`` and when it was last set (no salt or key exists in the input at all)."""
    types = (SCRAM_CODE, REMOVE_SCRAM_CODE)
    columns = ("iterations", "timestamp_ms", "author_principal")
    return _newest(records, ["user", "mechanism"], types, columns).select(
        "user",
        "mechanism",
        F.col("last.iterations").alias("iterations"),
        F.col("last.offset").alias("updated_offset"),
        _time("last.timestamp_ms").alias("updated_time"),
        F.col("last.author_principal").alias("updated_by"),
    )


@dataclass(frozen=True)
class State:
    """A state: ACLs and users as lazy DataFrames over one (maybe persisted) cut of the records,
    and the survey of that cut, already computed (its provenance is the state's)."""

    acls: DataFrame
    users: DataFrame
    survey: Survey
    records: DataFrame

    @property
    def provenance(self) -> DataFrame:
        """The provenance as a one-row DataFrame of
        :data:`~aclog.pipeline.survey.PROVENANCE_SCHEMA`."""
        return self.survey.provenance(self.records.sparkSession)

    def unpersist(self) -> None:
        """Release the cached records (if :func:`state` cached them)."""
        self.records.unpersist()

    def to_dict(self) -> dict[str, Any]:
        """Collect as ``aclog replay --json`` prints it
        (:func:`~aclog.pipeline.state_json.state_dict`)."""
        return state_dict(self.acls, self.users, self.provenance)


def state(
    records: DataFrame,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    *,
    persist: bool = True,
    broadcast_limit: int = BROADCAST_REMOVALS,
) -> State:
    """The state as of the point: :func:`cut`, then :func:`~aclog.pipeline.survey.survey`,
    :func:`acl_state` and
    :func:`user_state` over it. ``persist`` caches the cut records (memory, spilling to disk),
    so the three results decode the log once instead of three times (turn it off over records
    that are cheap to read again, such as Parquet). Runs one job now, :func:`survey`, which
    gives the provenance and the count of removals that chooses how :func:`acl_state` joins
    (broadcast up to ``broadcast_limit`` removals)."""
    kept = cut(records, at_offset, at_time_ms)
    if tuple(kept.columns) != _KEPT_COLUMNS:
        kept = kept.select(*_KEPT_COLUMNS)
    if persist:
        kept = kept.persist(StorageLevel.MEMORY_AND_DISK)
    found = survey(kept)
    joined = acl_state(kept, found.removals <= broadcast_limit)
    return State(joined, user_state(kept), found, kept)


_KEPT_COLUMNS = (
    "offset",
    "position",
    "epoch",
    "timestamp_ms",
    "source",
    "type_code",
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


def state_input_columns(
    at_offset: int | None = None, at_time_ms: int | None = None
) -> tuple[str, ...]:
    """The columns :func:`state` reads for this point: :data:`STATE_INPUT_COLUMNS`, without
    the batch bounds when there is no point to cut at (then the source's rows are cached as
    they come, with no projection copying each one first)."""
    if at_offset is None and at_time_ms is None:
        return _KEPT_COLUMNS
    return STATE_INPUT_COLUMNS
