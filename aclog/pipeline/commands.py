"""What each ``aclog pipeline`` command runs, as one call: its job over a :class:`Source`, the
result written as Parquet under ``out`` when given, and the rows (or document) it prints
collected on the driver. The command module parses its options, calls one of these inside
:func:`~aclog.pipeline.failures.command_session` and renders what it returns.

Thread-safe as far as Spark is (each call builds its own DataFrames). Cost: the job; what is
returned is collected to the driver (``collect=False`` collects nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from aclog.pipeline import access, diff, history, orphans, plot, questions, state_answer
from aclog.pipeline.inputs import (
    Source,
    answers,
    collect_rows,
    history_records,
    job_state,
    persisted,
    written,
)
from aclog.questions import LintReport, Question
from aclog.records import AccessControlEntryRecord, AclOperation, ResourceType
from aclog.replay import Point

ACCESS_ORDER = ("principal", "host", "resource_type", "resource_name", "operation")
"""The order of ``access`` decisions as collected."""


def state_of(
    spark: SparkSession, source: Source, out: Path | None, collect: bool
) -> state_answer.StateAnswer:
    """``aclog pipeline state``: the state as of the source's point, written and/or collected.
    aclog's own files are read by the decoding tasks, which keep the rows (none enters the
    JVM); Parquet records and KRaft logs by the DataFrame job."""
    if source.data_dir is not None and source.records is None and not source.kraft:
        return state_answer.answer_state(
            spark, source.data_dir, *source.point, out=out, collect=collect,
            use_snapshots=source.snapshots, on_warning=source.on_warning,
        )  # fmt: skip
    return state_answer.answer_from_state(job_state(spark, source), out, collect)


def lifetimes(
    spark: SparkSession, source: Source, out: Path | None, drawing: Path | None, collect: bool
) -> list[dict[str, Any]]:
    """``aclog pipeline history``: one row per ACL and per credential lifetime (by created
    offset, then kind), written to ``out``; ``drawing``: the history picture drawn there."""
    records = persisted(history_records(spark, source))
    found = written(history.history(records), out)
    if drawing is not None:
        title = str(source.data_dir if source.records is None else source.records)
        _draw(found, records, drawing, title)
    rows = collect_rows(found.orderBy("created_offset", "kind")) if collect else []
    records.unpersist()
    return rows


def _draw(found: DataFrame, records: DataFrame, drawing: Path, title: str) -> None:
    """The history picture: counts over time and changes per author."""
    points = [
        (r["kind"], r["time"], r["count"], r["added"], r["removed"])
        for r in history.timeline(found).collect()
        if r["time"] is not None
    ]
    authors = [
        (r["author"], r["kind"], r["changes"]) for r in history.changes_by_author(records).collect()
    ]
    plot.plot_history(points, authors, drawing, title)


def decisions(
    spark: SparkSession,
    source: Source,
    inventory: Sequence[tuple[ResourceType, str]],
    principals: Sequence[str],
    question: access.AccessQuestion,
    *,
    partitions: int | None,
    out: Path | None,
    collect: bool,
) -> list[dict[str, Any]]:
    """``aclog pipeline access``: every principal x resource x operation decision (in
    :data:`ACCESS_ORDER`), written to ``out``."""
    found = job_state(spark, source)
    frame = access.access(
        found.acls, access.resources_frame(spark, inventory),
        access.principals_frame(spark, principals), question, partitions=partitions,
    )  # fmt: skip
    frame = written(frame, out)
    rows = collect_rows(frame.orderBy(*ACCESS_ORDER)) if collect else []
    found.unpersist()
    return rows


def orphan_rows(
    spark: SparkSession,
    source: Source,
    inventory: Sequence[tuple[ResourceType, str]] | None,
    out: Path | None,
) -> list[dict[str, Any]]:
    """``aclog pipeline orphans``, by kind, ACL id and user, written to ``out``."""
    found = job_state(spark, source)
    resources = None if inventory is None else access.resources_frame(spark, inventory)
    frame = written(orphans.orphans(found.acls, found.users, resources), out)
    rows = collect_rows(frame.orderBy("kind", "acl_id", "user"))
    found.unpersist()
    return rows


def who_can(
    spark: SparkSession,
    source: Source,
    inventory: Sequence[tuple[ResourceType, str]],
    operations: Sequence[AclOperation],
    *,
    host: str | None,
    settings: questions.Settings,
    out: Path | None,
) -> list[dict[str, Any]]:
    """``aclog pipeline who-can``: one ``aclog who-can --json`` answer per resource and
    operation, written to ``out``."""
    return _answered(spark, source, out, lambda acls: questions.who_can_job(
        acls, access.resources_frame(spark, inventory), operations, host=host, settings=settings
    ))  # fmt: skip


def reach(
    spark: SparkSession,
    source: Source,
    principals: Sequence[str],
    *,
    host: str | None,
    resource_types: Sequence[ResourceType],
    inventory: Sequence[tuple[ResourceType, str]] | None,
    settings: questions.Settings,
    out: Path | None,
) -> list[dict[str, Any]]:
    """``aclog pipeline reach``: one ``aclog reach --json`` answer per principal, written to
    ``out``."""
    return _answered(spark, source, out, lambda acls: questions.reach_job(
        acls, access.principals_frame(spark, principals), host=host,
        resource_types=resource_types, inventory=inventory, settings=settings,
    ))  # fmt: skip


def _answered(
    spark: SparkSession,
    source: Source,
    out: Path | None,
    job: Callable[[list[AccessControlEntryRecord]], DataFrame],
) -> list[dict[str, Any]]:
    """The answers of a question ``job`` asked of the source's ACLs (collected to the driver,
    where the authorizer the tasks answer with is built), written to ``out``."""
    found = job_state(spark, source)
    result = answers(job(questions.collect_acls(found.acls)), out)
    found.unpersist()
    return result


def timelines(
    spark: SparkSession,
    source: Source,
    asked: tuple[Sequence[str], Sequence[tuple[ResourceType, str]], Sequence[AclOperation]],
    *,
    host: str | None,
    span: tuple[Point, Point],
    settings: questions.Settings,
    partitions: int | None,
    out: Path | None,
) -> list[dict[str, Any]]:
    """``aclog pipeline timeline``: one ``aclog timeline --json`` answer per principal x
    resource x operation of ``asked`` (principals, resources, operations) over ``span``,
    written to ``out``."""
    people, names, operations = asked
    wanted = [Question(p, op, rt, n, host) for p in people for rt, n in names for op in operations]
    frame = questions.timeline_job(
        spark, source.data_directory(), wanted, start=span[0], end=span[1], settings=settings,
        partitions=partitions, kraft=source.kraft, on_warning=source.on_warning,
    )  # fmt: skip
    return answers(frame, out)


def lint(
    spark: SparkSession,
    source: Source,
    *,
    min_iterations: int,
    max_age_days: int | None,
    now_ms: int,
) -> LintReport:
    """``aclog pipeline lint``: the ``aclog lint`` report of the state as of the point."""
    found = job_state(spark, source)
    report = questions.lint_job(
        found.acls, found.records, found.users, min_iterations=min_iterations,
        max_age_days=max_age_days, now_ms=now_ms,
    )  # fmt: skip
    found.unpersist()
    return report


def changes(spark: SparkSession, source: Source, start: Point, end: Point) -> dict[str, Any]:
    """``aclog pipeline diff``: the ``aclog diff --json`` document between two points (a
    ``ValueError`` when ``start`` comes after ``end``)."""
    records = history_records(spark, source)
    return diff.diff_job(records, start, end)
