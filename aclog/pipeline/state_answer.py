"""What ``aclog pipeline state`` answers for a data directory: the state written as Parquet and/or
as ``aclog replay --json`` prints it, by the task-side job
(:func:`~aclog.pipeline.state_tasks.task_state`), or by the DataFrame job
(:func:`~aclog.pipeline.state.state`) when there are too many removals to broadcast.

:func:`arrow_state_dict` builds the JSON document from Arrow tables on the driver, in
:func:`~aclog.pipeline.state_json.state_dict`'s order and shape (ACLs in commit order, users by
name, credentials by mechanism), so both jobs print the same bytes as ``aclog replay --json``.

Thread-safe (each call its own output). Cost: the jobs; the JSON document is built from the
ACLs collected to (or read back on) the driver.
"""

from __future__ import annotations

import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import SparkSession

from aclog.pipeline.load import records_as_of
from aclog.pipeline.schema import ACL_FIELDS
from aclog.pipeline.state import State, state, state_input_columns
from aclog.pipeline.state_files import STATE_PARTS, WrittenState, write_state
from aclog.pipeline.state_tasks import task_state
from aclog.pipeline.survey import Survey
from aclog.records.warning import OnWarning, ignore_warning


@dataclass(frozen=True)
class StateAnswer:
    """What was asked for: ``written`` (with an ``out``) and ``document`` (``aclog replay
    --json``'s, when asked to collect)."""

    written: WrittenState | None
    document: dict[str, Any] | None


def arrow_state_dict(acls: pa.Table, users: pa.Table, survey: Survey) -> dict[str, Any]:
    """``{"offset", "epoch", "timestamp", "acls", "users"}`` from the ``acls`` and ``users``
    tables of a state (any row order) and its survey."""
    order = pc.sort_indices(
        acls, [("created_offset", "ascending"), ("created_position", "ascending")]
    )
    names = ("acl_id", *ACL_FIELDS)
    columns = [acls.column(name).take(order).to_pylist() for name in names]
    keys = ("id", *ACL_FIELDS)
    acl_list = [dict(zip(keys, values, strict=True)) for values in zip(*columns, strict=True)]
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in users.select(["user", "mechanism", "iterations"]).to_pylist():
        grouped.setdefault(row["user"], []).append(
            {"mechanism": row["mechanism"], "iterations": row["iterations"]}
        )
    return {
        "offset": survey.offset,
        "epoch": survey.epoch,
        "timestamp": survey.timestamp,
        "acls": acl_list,
        "users": [{"name": name, "credentials": creds} for name, creds in sorted(grouped.items())],
    }


def answer_state(
    spark: SparkSession,
    directory: Path,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    *,
    out: Path | None = None,
    collect: bool = False,
    use_snapshots: bool = True,
    on_warning: OnWarning = ignore_warning,
) -> StateAnswer:
    """The state of ``directory`` as of the point, written under ``out`` (if given, see
    :meth:`~aclog.pipeline.state_tasks.TaskState.write`) and collected as ``aclog replay
    --json``'s document when ``collect`` (read back from ``out`` when written). When it fails
    (a damaged log, a failed write), no part of a state is left under ``out``, as
    :func:`~aclog.pipeline.state_files.write_state` leaves none: half a state, or an older one
    beside the error, must not pass for the state asked for."""
    try:
        return _answer(
            spark, directory, (at_offset, at_time_ms), out, collect, use_snapshots, on_warning
        )
    except BaseException:
        if out is not None:
            for name in STATE_PARTS:
                shutil.rmtree(out.resolve() / name, ignore_errors=True)
        raise


def _answer(
    spark: SparkSession,
    directory: Path,
    at: tuple[int | None, int | None],
    out: Path | None,
    collect: bool,
    use_snapshots: bool,
    on_warning: OnWarning,
) -> StateAnswer:
    at_offset, at_time_ms = at
    point = {"at_offset": at_offset, "at_time_ms": at_time_ms}
    staging = None if out is None else out.resolve() / f".aclog-state-{uuid.uuid4().hex}"
    try:
        found = task_state(
            spark,
            directory,
            at_offset,
            at_time_ms,
            staging=staging,
            use_snapshots=use_snapshots,
            on_warning=on_warning,
        )
        written = None if out is None or found is None else found.write(out)
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    if found is None:
        return _dataframe_answer(spark, directory, point, out, collect, use_snapshots, on_warning)
    if not collect:
        return StateAnswer(written, None)
    if out is None:
        acls = found.acls()
    else:
        acls = pq.read_table(
            out.resolve() / "acls",
            columns=["acl_id", *ACL_FIELDS, "created_offset", "created_position"],
        )
    return StateAnswer(written, arrow_state_dict(acls, found.found.users, found.survey))


def _dataframe_answer(
    spark: SparkSession,
    directory: Path,
    point: dict[str, Any],
    out: Path | None,
    collect: bool,
    use_snapshots: bool,
    on_warning: OnWarning,
) -> StateAnswer:
    """:func:`answer_state` by the DataFrame job (the removals are shuffled, not broadcast)."""
    chosen = records_as_of(
        spark,
        directory,
        **point,
        use_snapshots=use_snapshots,
        on_warning=on_warning,
        columns=state_input_columns(*point.values()),
    )
    return answer_from_state(state(chosen.frame, **point), out, collect)


def answer_from_state(result: State, out: Path | None, collect: bool) -> StateAnswer:
    """A DataFrame job's ``result`` written under ``out`` (if given, by
    :func:`~aclog.pipeline.state_files.write_state`) and collected as ``aclog replay --json``'s
    document when ``collect``; its cached records are released either way. Cost: the writes
    and one collect."""
    try:
        written = None if out is None else write_state(result, out)
        return StateAnswer(written, result.to_dict() if collect else None)
    finally:
        result.unpersist()
