"""What each ``aclog pipeline`` command runs, as one call: its :class:`Job` in the job's Spark
session, the result written as Parquet under the job's ``out`` when given, and the rows (or
document) it prints collected on the driver. The command module parses its options, calls one
of these and renders what it returns; whatever goes wrong comes out as a
:class:`~aclog.pipeline.failures.JobFailure`.

Thread-safe as far as Spark is (each call builds its own DataFrames). Cost: starting Spark unless
a session is running (seconds), and the job; what is returned is collected to the driver
(``collect=False`` collects nothing).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from aclog.pipeline import access, diff, history, orphans, plot, questions, state_answer
from aclog.pipeline.failures import JobFailure
from aclog.pipeline.inputs import (
    Job,
    answers,
    collect_rows,
    history_records,
    job_state,
    persisted,
    written,
)
from aclog.pipeline.records_files import write_records
from aclog.questions import LintReport, Question
from aclog.records import AccessControlEntryRecord, AclOperation, ResourceType
from aclog.replay import Point

ACCESS_ORDER = ("principal", "host", "resource_type", "resource_name", "operation")
"""The order of ``access`` decisions as collected."""


def records(job: Job, *, snapshots: str) -> int:
    """``aclog pipeline records``: every record of the source's data directory (after the rows
    of the ``snapshots`` asked for) written to the job's ``out``; how many."""
    source = job.source
    if job.out is None:
        raise JobFailure("give --out: where to write the records", "usage")
    with job.session() as spark:
        return write_records(
            spark, source.data_directory(), job.out, snapshots=snapshots, kraft=source.kraft,
            on_warning=source.on_warning,
        )  # fmt: skip


def state_of(job: Job, collect: bool) -> state_answer.StateAnswer:
    """``aclog pipeline state``: the state as of the source's point, written and/or collected.
    aclog's own files are read by the decoding tasks, which keep the rows (none enters the
    JVM); Parquet records and KRaft logs by the DataFrame job."""
    source, out = job.source, job.out
    with job.session() as spark:
        if source.data_dir is not None and source.records is None and not source.kraft:
            return state_answer.answer_state(
                spark, source.data_dir, *source.point, out=out, collect=collect,
                use_snapshots=source.snapshots, on_warning=source.on_warning,
            )  # fmt: skip
        return state_answer.answer_from_state(job_state(spark, source), out, collect)


def lifetimes(job: Job, drawing: Path | None, collect: bool) -> list[dict[str, Any]]:
    """``aclog pipeline history``: one row per ACL and per credential lifetime (by created
    offset, then kind), written to the job's ``out``; ``drawing``: the history picture drawn
    there."""
    source = job.source
    with job.session() as spark:
        records = persisted(history_records(spark, source))
        found = written(history.history(records), job.out)
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
    job: Job,
    asked: tuple[Sequence[tuple[ResourceType, str]], Sequence[str]],
    question: access.AccessQuestion,
    *,
    partitions: int | None,
    collect: bool,
) -> list[dict[str, Any]]:
    """``aclog pipeline access``: every principal x resource x operation decision (in
    :data:`ACCESS_ORDER`) for ``asked`` (resources, principals), written to the job's ``out``."""
    inventory, principals = asked
    with job.session() as spark:
        found = job_state(spark, job.source)
        frame = access.access(
            found.acls, access.resources_frame(spark, inventory),
            access.principals_frame(spark, principals), question, partitions=partitions,
        )  # fmt: skip
        frame = written(frame, job.out)
        rows = collect_rows(frame.orderBy(*ACCESS_ORDER)) if collect else []
        found.unpersist()
    return rows


def orphan_rows(
    job: Job, inventory: Sequence[tuple[ResourceType, str]] | None
) -> list[dict[str, Any]]:
    """``aclog pipeline orphans``, by kind, ACL id and user, written to the job's ``out``."""
    with job.session() as spark:
        found = job_state(spark, job.source)
        resources = None if inventory is None else access.resources_frame(spark, inventory)
        frame = written(orphans.orphans(found.acls, found.users, resources), job.out)
        rows = collect_rows(frame.orderBy("kind", "acl_id", "user"))
        found.unpersist()
    return rows


def who_can(
    job: Job,
    inventory: Sequence[tuple[ResourceType, str]],
    operations: Sequence[AclOperation],
    *,
    host: str | None,
    settings: questions.Settings,
) -> list[dict[str, Any]]:
    """``aclog pipeline who-can``: one ``aclog who-can --json`` answer per resource and
    operation, written to the job's ``out``."""
    return _answered(job, lambda spark, acls: questions.who_can_job(
        acls, access.resources_frame(spark, inventory), operations, host=host, settings=settings
    ))  # fmt: skip


def reach(
    job: Job,
    principals: Sequence[str],
    *,
    host: str | None,
    resource_types: Sequence[ResourceType],
    inventory: Sequence[tuple[ResourceType, str]] | None,
    settings: questions.Settings,
) -> list[dict[str, Any]]:
    """``aclog pipeline reach``: one ``aclog reach --json`` answer per principal, written to
    the job's ``out``."""
    return _answered(job, lambda spark, acls: questions.reach_job(
        acls, access.principals_frame(spark, principals), host=host,
        resource_types=resource_types, inventory=inventory, settings=settings,
    ))  # fmt: skip


def _answered(
    job: Job, question: Callable[[SparkSession, list[AccessControlEntryRecord]], DataFrame]
) -> list[dict[str, Any]]:
    """The answers of a ``question`` job (given the session) asked of the source's ACLs
    (collected to the driver, where the authorizer the tasks answer with is built), written to
    the job's ``out``."""
    with job.session() as spark:
        found = job_state(spark, job.source)
        result = answers(question(spark, questions.collect_acls(found.acls)), job.out)
        found.unpersist()
    return result


def timelines(
    job: Job,
    asked: tuple[Sequence[str], Sequence[tuple[ResourceType, str]], Sequence[AclOperation]],
    *,
    host: str | None,
    span: tuple[Point, Point],
    settings: questions.Settings,
    partitions: int | None,
) -> list[dict[str, Any]]:
    """``aclog pipeline timeline``: one ``aclog timeline --json`` answer per principal x
    resource x operation of ``asked`` (principals, resources, operations) over ``span``,
    written to the job's ``out``."""
    people, names, operations = asked
    wanted = [Question(p, op, rt, n, host) for p in people for rt, n in names for op in operations]
    source = job.source
    with job.session() as spark:
        frame = questions.timeline_job(
            spark, source.data_directory(), wanted, start=span[0], end=span[1],
            settings=settings, partitions=partitions, kraft=source.kraft,
            on_warning=source.on_warning,
        )  # fmt: skip
        return answers(frame, job.out)


def lint(job: Job, *, min_iterations: int, max_age_days: int | None) -> LintReport:
    """``aclog pipeline lint``: the ``aclog lint`` report of the state as of the point; a
    credential's age is counted up to the point's time when one was asked, else to now."""
    now_ms = job.source.at_time_ms
    if now_ms is None:
        now_ms = int(time.time() * 1000)
    with job.session() as spark:
        found = job_state(spark, job.source)
        report = questions.lint_job(
            found.acls, found.records, found.users, min_iterations=min_iterations,
            max_age_days=max_age_days, now_ms=now_ms,
        )  # fmt: skip
        found.unpersist()
    return report


def changes(job: Job, start: Point, end: Point) -> dict[str, Any]:
    """``aclog pipeline diff``: the ``aclog diff --json`` document between two points; a
    ``usage`` failure when ``start`` comes after ``end``."""
    with job.session() as spark:
        try:
            return diff.diff_job(history_records(spark, job.source), start, end)
        except ValueError as error:
            raise JobFailure(f"--from comes after --to ({error})", "usage") from error
