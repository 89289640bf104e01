"""``aclog pipeline lint``: ``aclog lint`` as a Spark job
(:func:`aclog.pipeline.questions.lint_job`); ``--json`` prints exactly what the in-process
command prints. Registered on the ``aclog pipeline`` app.
"""

from __future__ import annotations

import time
from typing import Annotated

import typer

from aclog.questions import DEFAULT_MIN_ITERATIONS, Severity
from aclog.tools.console import EXIT_FAILURE, EXIT_USAGE, fail, print_json, print_line
from aclog.tools.params import AtOffset, AtTime, JsonFlag, SourceFormat
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.inputs import job_source
from aclog.tools.pipeline.options import (
    ConfOption,
    DataDirOption,
    DriverHostOption,
    MasterOption,
    SnapshotsFlag,
)
from aclog.tools.pipeline.spark import pipeline_modules, spark_for
from aclog.tools.questions_text import show_lint


@pipeline_app.command("lint")
def lint_command(
    data_dir: DataDirOption = None,
    min_iterations: Annotated[int, typer.Option(min=1)] = DEFAULT_MIN_ITERATIONS,
    max_credential_age_days: Annotated[int | None, typer.Option(min=0)] = None,
    fail_on: Annotated[str | None, typer.Option(help="info|warning|error.")] = None,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    snapshots: SnapshotsFlag = True,
    source_format: SourceFormat = "auto",
    master: MasterOption = None,
    conf: ConfOption = None,
    driver_host: DriverHostOption = None,
    json_output: JsonFlag = False,
) -> None:
    """'aclog lint' as a job: the ACLs linted per resource type in tasks, credentials dated."""
    threshold = None
    if fail_on is not None:
        try:
            threshold = Severity.parse(fail_on)
        except ValueError as error:
            fail(str(error), EXIT_USAGE)
    source = job_source(data_dir, None, source_format, (at_offset, at_time), snapshots)
    now_ms = source.at_time_ms if at_time is not None else int(time.time() * 1000)
    with spark_for(master, conf, driver_host) as spark:
        report = pipeline_modules().commands.lint(
            spark, source, min_iterations=min_iterations,
            max_age_days=max_credential_age_days, now_ms=now_ms,
        )  # fmt: skip
    if json_output:
        print_json(report.to_dict())
    else:
        show_lint(report)
        print_line(f"{len(report.findings)} findings")
    if threshold is not None and report.at_least(threshold):
        raise typer.Exit(EXIT_FAILURE)
