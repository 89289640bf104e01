"""``aclog pipeline lint``: ``aclog lint`` as a Spark job
(:func:`aclog.pipeline.questions.lint_job`); ``--json`` prints exactly what the in-process
command prints. Registered on the ``aclog pipeline`` app. Its options only: ``--help`` loads
neither the questions nor the pipeline.
"""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.controller import LINT_MIN_ITERATIONS
from aclog.tools.console import EXIT_FAILURE, print_json, print_line
from aclog.tools.pipeline.options import pipeline_command
from aclog.tools.pipeline.shared import SharedOptions


@pipeline_command("lint", "point", "snapshots")
def lint_command(
    options: SharedOptions,
    min_iterations: Annotated[int, typer.Option(min=1)] = LINT_MIN_ITERATIONS,
    max_credential_age_days: Annotated[int | None, typer.Option(min=0)] = None,
    fail_on: Annotated[str | None, typer.Option(help="info|warning|error.")] = None,
) -> None:
    """'aclog lint' as a job: the ACLs linted per resource type in tasks, credentials dated."""
    from aclog.questions import Severity  # noqa: PLC0415 - the library on a run
    from aclog.tools.question_args import usage  # noqa: PLC0415
    from aclog.tools.questions_text import show_lint  # noqa: PLC0415

    threshold = None if fail_on is None else usage(lambda: Severity.parse(fail_on))
    with options.job() as (pipeline, job):
        report = pipeline.commands.lint(
            job, min_iterations=min_iterations, max_age_days=max_credential_age_days
        )
    if options.json_output:
        print_json(report.to_dict())
    else:
        show_lint(report)
        print_line(f"{len(report.findings)} findings")
    if threshold is not None and report.at_least(threshold):
        raise typer.Exit(EXIT_FAILURE)
