"""The ``who-can``, ``reach``, ``lint`` and ``timeline`` jobs: the in-process questions of
:mod:`aclog.authorizer` asked for a whole inventory at once, spread over Spark tasks.

Each answer is the library's own (:func:`~aclog.questions.who_can.who_can`,
:func:`~aclog.questions.reach.reach`, :func:`~aclog.questions.lint.lint_acls`,
:func:`~aclog.questions.timeline.timelines`), so a job's row equals the in-process answer row
for row: there is one definition of each rule. What Spark adds is the fan-out:

- ``who-can`` and ``reach``: the state's ACLs (from the ``state`` job) are collected once and
  broadcast; each task loads them into one :class:`Authorizer` and answers its share of the
  inventory (resources x operations, or principals). Rows: the question's keys plus ``answer``,
  the answer's JSON (``to_dict()``), ordered by resource type, name and operation code (or by
  principal).
- ``lint``: the ACLs grouped by resource type (every ACL finding relates ACLs of one type), each
  group linted in a task; the SCRAM credentials dated by their newest record. One row per
  finding, in the in-process report's order.
- ``timeline``: the questions (principal x resource x operation [x host]) spread over tasks;
  each task walks the log once for all of its questions. The executors read the data directory
  themselves, so it must be on storage they share (local mode, or a shared file system).

Lazy where Spark allows; the ACL collection and the ordering run jobs. Thread-safe.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from aclog.authorizer import Authorizer, kafka_order
from aclog.kraft import check_newest_tail
from aclog.pipeline.schema import ACL_FIELDS, SCRAM_CODE, SOURCE_SNAPSHOT
from aclog.questions.findings import Finding, LintReport
from aclog.questions.hygiene import CredentialAge, lint_credentials
from aclog.questions.lint import allows_that_never_decide, redundant_acls
from aclog.questions.reach import reach
from aclog.questions.risky import risky_grants
from aclog.questions.timeline import Question, timelines
from aclog.questions.who_can import who_can
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.records.types import parse_kafka_uuid
from aclog.records.warning import OnWarning, ignore_warning
from aclog.replay.diff import Point

WHO_CAN_SCHEMA = "resource_type string, resource_name string, operation string, answer string"
REACH_SCHEMA = "principal string, answer string"
TIMELINE_SCHEMA = (
    "principal string, operation string, resource_type string, resource_name string, "
    "host string, flips int, answer string"
)


@dataclass(frozen=True)
class Settings:
    """Kafka's authorizer settings the answers depend on."""

    super_users: frozenset[str] = frozenset()
    allow_everyone_if_no_acl_found: bool = False

    def authorizer(self, acls: Sequence[AccessControlEntryRecord]) -> Authorizer:
        """A ready authorizer over ``acls`` with these settings."""
        authorizer = Authorizer(self.super_users, self.allow_everyone_if_no_acl_found)
        authorizer.load(acls)
        return authorizer


def acl_record(row: Any) -> AccessControlEntryRecord:
    """A state row (``acl_id`` and :data:`ACL_FIELDS`) as the record it came from."""
    return AccessControlEntryRecord(
        parse_kafka_uuid(row["acl_id"]),
        ResourceType[row["resource_type"]],
        row["resource_name"],
        PatternType[row["pattern_type"]],
        row["principal"],
        row["host"],
        AclOperation[row["operation"]],
        AclPermissionType[row["permission_type"]],
    )


def collect_acls(acls: DataFrame) -> list[AccessControlEntryRecord]:
    """The ACLs of a state (as :func:`~aclog.pipeline.state.acl_state` gives them), collected
    to the driver in commit order. One Spark job."""
    ordered = acls.orderBy("created_offset", "created_position")
    return [acl_record(row) for row in ordered.select("acl_id", *ACL_FIELDS).collect()]


def who_can_job(
    acls: Sequence[AccessControlEntryRecord],
    resources: DataFrame,
    operations: Sequence[AclOperation],
    *,
    host: str | None = None,
    settings: Settings = Settings(),
) -> DataFrame:
    """Who can do each of ``operations`` on each resource of ``resources`` (``resource_type``,
    ``resource_name``): :data:`WHO_CAN_SCHEMA`, one row per resource and operation."""
    shared = resources.sparkSession.sparkContext.broadcast(list(acls))
    ops = list(operations)

    def answer(rows: Iterable[Any]) -> Iterator[tuple[str, str, str, str, int]]:
        authorizer = settings.authorizer(shared.value)
        for row in rows:
            resource_type = ResourceType[row["resource_type"]]
            for op in ops:
                found = who_can(authorizer, op, resource_type, row["resource_name"], host)
                text = json.dumps(found.to_dict())
                yield row["resource_type"], row["resource_name"], op.name, text, int(op)

    schema = f"{WHO_CAN_SCHEMA}, operation_code int"
    answered = resources.sparkSession.createDataFrame(resources.rdd.mapPartitions(answer), schema)
    return answered.orderBy("resource_type", "resource_name", "operation_code").drop(
        "operation_code"
    )


def reach_job(
    acls: Sequence[AccessControlEntryRecord],
    principals: DataFrame,
    *,
    host: str | None = None,
    resource_types: Sequence[ResourceType] = (),
    inventory: Sequence[tuple[ResourceType, str]] | None = None,
    settings: Settings = Settings(),
) -> DataFrame:
    """What each principal of ``principals`` (``principal``) can reach, per pattern or, with
    ``inventory``, per name: :data:`REACH_SCHEMA`, one row per principal."""
    context = principals.sparkSession.sparkContext
    shared = context.broadcast((list(acls), None if inventory is None else list(inventory)))
    types = tuple(resource_types)

    def answer(rows: Iterable[Any]) -> Iterator[tuple[str, str]]:
        records, names = shared.value
        authorizer = settings.authorizer(records)
        for row in rows:
            found = reach(authorizer, row["principal"], host, types or None, names)
            yield row["principal"], json.dumps(found.to_dict())

    answered = principals.rdd.mapPartitions(answer)
    return principals.sparkSession.createDataFrame(answered, REACH_SCHEMA).orderBy("principal")


def timeline_job(
    spark: SparkSession,
    directory: Path,
    questions: Sequence[Question],
    *,
    start: Point = Point(offset=-1),  # noqa: B008 - immutable
    end: Point = Point(),  # noqa: B008 - immutable
    settings: Settings = Settings(),
    partitions: int | None = None,
    kraft: bool = False,
    on_warning: OnWarning = ignore_warning,
) -> DataFrame:
    """The timeline of each question between the points: :data:`TIMELINE_SCHEMA`, one row per
    question in the order given (``flips`` counts the answer's flips). ``kraft``: ``directory``
    is a KRaft metadata log; the driver tells ``on_warning`` of a damaged last batch the walk
    to ``end`` reaches (:func:`aclog.kraft.check_newest_tail`; the tasks cannot)."""
    for question in questions:
        question.check()
    if kraft:
        check_newest_tail(directory, on_warning, at_offset=end.offset, at_time_ms=end.time_ms)
    numbered = list(enumerate(questions))
    slices = partitions or max(1, min(len(numbered), spark.sparkContext.defaultParallelism))
    path = str(directory.resolve())  # executors run in their own working directories
    answer = partial(_answer_timelines, path, start, end, settings, kraft)

    schema = f"{TIMELINE_SCHEMA}, number int"
    rdd = spark.sparkContext.parallelize(numbered, slices).mapPartitions(answer)
    return spark.createDataFrame(rdd, schema).orderBy("number").drop("number")


def _answer_timelines(
    path: str,
    start: Point,
    end: Point,
    settings: Settings,
    kraft: bool,
    rows: Iterable[tuple[int, Question]],
) -> Iterator[tuple[Any, ...]]:
    """In a task: the timeline rows of one slice of numbered questions, each walk over the log
    at ``path`` shared by the slice (:func:`aclog.questions.timelines`)."""
    mine = list(rows)
    found = timelines(
        Path(path),
        [q for _, q in mine],
        start=start,
        end=end,
        super_users=settings.super_users,
        allow_everyone_if_no_acl_found=settings.allow_everyone_if_no_acl_found,
        kraft=kraft,
    )
    for (number, q), result in zip(mine, found, strict=True):
        yield (q.principal, q.operation.name, q.resource_type.name, q.name, q.host,
               len(result.flips), json.dumps(result.to_dict()), number)  # fmt: skip


_STAGES = (redundant_acls, allows_that_never_decide, risky_grants)
"""The ACL checks in the order :func:`~aclog.questions.lint.lint_acls` lists them."""


def lint_job(
    acls: DataFrame,
    records: DataFrame,
    users: DataFrame,
    *,
    min_iterations: int,
    max_age_days: float | None = None,
    now_ms: int,
) -> LintReport:
    """The hygiene report of a state: ACL findings linted per resource type in tasks, SCRAM
    findings from the credentials (``users``, as :func:`~aclog.pipeline.state.user_state`)
    dated by their newest record in ``records`` (the cut the state was built from; a credential
    last set in a snapshot is dated no later than it)."""

    def lint_type(rows: Iterable[Any]) -> Iterator[tuple[int, int, int, Finding]]:
        ordered = kafka_order(acl_record(row) for row in rows)
        if not ordered:
            return
        code = int(ordered[0].resource_type)
        for stage, check in enumerate(_STAGES):
            for position, finding in enumerate(check(ordered)):
                yield stage, code, position, finding

    keyed = acls.select("acl_id", *ACL_FIELDS).repartition("resource_type")
    findings = sorted(keyed.rdd.mapPartitions(_by_type(lint_type)).collect(), key=lambda f: f[:3])
    ages = _credential_ages(records, users)
    credential_findings = lint_credentials(
        ages, now_ms=now_ms, min_iterations=min_iterations, max_age_days=max_age_days
    )
    return LintReport.of([f for *_, f in findings] + credential_findings, acls.count(), len(ages))


def _by_type(lint_type: Any) -> Any:
    """Run ``lint_type`` once per resource type among a partition's rows."""

    def run(rows: Iterable[Any]) -> Iterator[tuple[int, int, int, Finding]]:
        groups: dict[str, list[Any]] = {}
        for row in rows:
            groups.setdefault(row["resource_type"], []).append(row)
        for group in groups.values():
            yield from lint_type(group)

    return run


def _credential_ages(records: DataFrame, users: DataFrame) -> list[CredentialAge]:
    """Each credential of ``users`` with the time of its newest record: exact from the log, a
    bound from a snapshot; in user then mechanism order."""
    newest = (
        records.filter(F.col("type_code") == SCRAM_CODE)
        .groupBy("user", "mechanism")
        .agg(F.max_by(F.struct("timestamp_ms", "source"), F.col("offset")).alias("last"))
    )
    rows = (
        users.join(newest, ["user", "mechanism"], "left")
        .select("user", "mechanism", "iterations", "last.timestamp_ms", "last.source")
        .orderBy("user", "mechanism")
        .collect()
    )
    return [
        CredentialAge(
            row["user"],
            ScramMechanism[row["mechanism"].replace("-", "_")],
            row["iterations"],
            row["timestamp_ms"],
            row["source"] is not None and row["source"] != SOURCE_SNAPSHOT,
        )
        for row in rows
    ]
