"""Pipeline benchmarks of the question jobs (``who-can``, ``reach``, ``timeline``, ``diff``,
``lint``) on the tenancy log of :func:`benchmarks.workloads.tenancy_log`, each beside the
in-process library answering the same questions on one core.

Sizes (quick in brackets): ``who-can`` 10,000 [500] topics x 3 operations; ``reach`` every
principal (1,102 [122]) per pattern; ``timeline`` 1,000 [100] (principal, topic, READ)
questions from the start of the log; ``diff`` from offset 0 to the end; ``lint`` the whole
state. A ``mismatches`` row per job counts answers that differ from the in-process ones (the
jobs run the library's own functions, so anything but 0 is a bug).

Spark timings are single runs on ``local[2]`` after the access bench warmed the session up.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aclog.authorizer import Authorizer
from aclog.questions.hygiene import lint_directory
from aclog.questions.reach import reach
from aclog.questions.timeline import Question, timelines
from aclog.questions.who_can import who_can
from aclog.records import AclOperation, ResourceType
from aclog.replay import Point, diff, rebuild_image
from aclog.sample import Tenancy
from benchmarks.report import Report, Row

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

OPERATIONS = (AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE)
NOW_MS = 1_900_000_000_000


def _timed(action: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def _rows(report: Report, job: str, size: int, unit: str, spark_s: float, local_s: float) -> None:
    for impl, seconds in (("pipeline", spark_s), ("in-process", local_s)):
        report.add(
            Row(
                "pipeline",
                impl,
                f"{job} (tenancy)",
                size,
                "throughput",
                size / seconds,
                unit,
                f"{seconds:.1f} s",
            )
        )


def _mismatch(report: Report, job: str, size: int, wrong: int) -> None:
    report.add(
        Row(
            "pipeline",
            "pipeline vs in-process",
            f"{job} (tenancy)",
            size,
            "mismatches",
            wrong,
            "count",
            "answers that differ",
        )
    )


def run(report: Report, spark: SparkSession, directory: Path, world: Tenancy, quick: bool) -> None:
    """Every question job over the tenancy log in ``directory`` (written for ``world``)."""
    from aclog.pipeline.access import principals_frame, resources_frame
    from aclog.pipeline.diff import diff_job
    from aclog.pipeline.load import records_as_of, records_for_history
    from aclog.pipeline.questions import (
        collect_acls,
        lint_job,
        reach_job,
        timeline_job,
        who_can_job,
    )
    from aclog.pipeline.state import state

    current = state(records_as_of(spark, directory).frame)
    acls = collect_acls(current.acls)
    authorizer = Authorizer()
    authorizer.load(list(rebuild_image(directory).image.acls))
    rng = random.Random(23)

    topics = sorted(rng.sample(world.topics, 500 if quick else 10_000))
    frame = resources_frame(spark, [(ResourceType.TOPIC, t) for t in topics])
    spark_s, rows = _timed(lambda: who_can_job(acls, frame, OPERATIONS).collect())
    asked = [(t, op) for t in topics for op in OPERATIONS]
    local_s, answers = _timed(
        lambda: [who_can(authorizer, op, ResourceType.TOPIC, t).to_dict() for t, op in asked]
    )
    _rows(report, "who-can", len(answers), "answers/s", spark_s, local_s)
    _mismatch(report, "who-can", len(answers), _differ(rows, answers))

    people = sorted(world.principals)
    spark_s, rows = _timed(lambda: reach_job(acls, principals_frame(spark, people)).collect())
    local_s, answers = _timed(lambda: [reach(authorizer, p).to_dict() for p in people])
    _rows(report, "reach", len(answers), "principals/s", spark_s, local_s)
    _mismatch(report, "reach", len(answers), _differ(rows, answers))

    questions = [
        Question(rng.choice(world.principals), AclOperation.READ, ResourceType.TOPIC, topic)
        for topic in rng.sample(world.topics, 100 if quick else 1_000)
    ]
    spark_s, rows = _timed(lambda: timeline_job(spark, directory, questions).collect())
    local_s, found = _timed(lambda: timelines(directory, questions))
    _rows(report, "timeline", len(questions), "questions/s", spark_s, local_s)
    _mismatch(report, "timeline", len(questions), _differ(rows, [t.to_dict() for t in found]))

    records = records_for_history(spark, directory).frame
    start, end = Point(offset=0), Point()
    spark_s, changes = _timed(lambda: diff_job(records, start, end))
    local_s, expected = _timed(lambda: diff(directory, start, end).to_dict())
    size = len(expected["acls"]) + len(expected["credentials"])
    _rows(report, "diff", size, "changes/s", spark_s, local_s)
    _mismatch(report, "diff", size, int(changes != expected))

    spark_s, linted = _timed(lambda: lint_job(
        current.acls, current.records, current.users, min_iterations=8192, now_ms=NOW_MS
    ).to_dict())  # fmt: skip
    local_s, expected = _timed(lambda: lint_directory(directory, now_ms=NOW_MS).to_dict())
    _rows(report, "lint", len(acls), "ACLs/s", spark_s, local_s)
    _mismatch(report, "lint", len(acls), int(linted != expected))
    current.unpersist()


def _differ(rows: list[Any], answers: list[dict[str, Any]]) -> int:
    found = [json.loads(row["answer"]) for row in rows]
    return sum(a != b for a, b in zip(found, answers, strict=True)) + abs(len(found) - len(answers))
