"""``aclog lint``: hygiene findings about a data directory's state as of a point, on the
library's :func:`~aclog.questions.lint_directory`; the text groups large runs of alike findings
(:func:`~aclog.tools.questions_text.show_lint`). The library is imported when the command runs,
not for its ``--help``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from aclog.controller import LINT_MIN_ITERATIONS
from aclog.tools.console import EXIT_FAILURE, app, print_json, print_warning
from aclog.tools.params import AtOffset, AtTime, JsonFlag, ReadDataDir, SourceFormat

if TYPE_CHECKING:
    from aclog.questions import LintReport


@app.command("lint")
def lint_command(
    data_dir: ReadDataDir,
    min_iterations: Annotated[
        int, typer.Option(min=1, help="SCRAM credentials need at least this many iterations.")
    ] = LINT_MIN_ITERATIONS,
    max_credential_age_days: Annotated[
        int | None,
        typer.Option(min=0, help="Report SCRAM credentials not changed for more days than this."),
    ] = None,
    fail_on: Annotated[
        str | None,
        typer.Option(help="Exit 1 when a finding this severe or worse exists: info|warning|error."),
    ] = None,
    show: Annotated[
        str,
        typer.Option(help="List findings this severe or worse: info|warning|error (text only)."),
    ] = "info",
    every: Annotated[
        bool, typer.Option("--all", help="List every finding of a large group (text only).")
    ] = False,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    source_format: SourceFormat = "auto",
    json_output: JsonFlag = False,
) -> None:
    """Hygiene findings: redundant ACLs, ALLOWs a DENY overrides, risky grants, weak or stale
    SCRAM credentials; each with a kind, a severity and the ACLs or user concerned."""
    from aclog.questions import Severity  # noqa: PLC0415 - on a run, not --help (issue 37)
    from aclog.tools.common import is_kraft  # noqa: PLC0415
    from aclog.tools.data_dirs import require_log  # noqa: PLC0415
    from aclog.tools.points import parse_point, show_point_note  # noqa: PLC0415
    from aclog.tools.question_args import usage  # noqa: PLC0415
    from aclog.tools.questions_text import show_lint  # noqa: PLC0415

    threshold = None if fail_on is None else usage(lambda: Severity.parse(fail_on))
    least = usage(lambda: Severity.parse(show))
    kraft = is_kraft(data_dir, source_format)
    require_log(data_dir, kraft=kraft)
    at_offset, at_time_ms = parse_point(at_offset, at_time)
    report = _lint(data_dir, at_offset, at_time_ms, kraft, min_iterations, max_credential_age_days)
    if report.last_offset is not None:  # where the point landed, as replay and who-can say
        show_point_note(
            data_dir, report.last_offset, at_offset=at_offset, at_time_ms=at_time_ms, kraft=kraft
        )
    if json_output:
        print_json(report.to_dict())
    else:
        show_lint(report, least, every)
    if threshold is not None and report.at_least(threshold):
        raise typer.Exit(EXIT_FAILURE)


def _lint(
    data_dir: Path,
    at_offset: int | None,
    at_time_ms: int | None,
    kraft: bool,
    min_iterations: int,
    max_age_days: int | None,
) -> LintReport:
    from aclog.image import ReplayError  # noqa: PLC0415 - see lint_command
    from aclog.log import CorruptLogError  # noqa: PLC0415
    from aclog.questions import lint_directory  # noqa: PLC0415
    from aclog.records import RecordDecodeError  # noqa: PLC0415
    from aclog.replay import RebuildError  # noqa: PLC0415
    from aclog.tools.common import log_bar  # noqa: PLC0415
    from aclog.tools.exit_codes import fail_for  # noqa: PLC0415

    try:
        # the bar stays up, its elapsed time running, while the findings are worked out
        with log_bar(data_dir, "replaying", at_offset) as on_offset:
            return lint_directory(
                data_dir,
                at_offset=at_offset,
                at_time_ms=at_time_ms,
                kraft=kraft,
                min_iterations=min_iterations,
                max_age_days=max_age_days,
                on_warning=print_warning,
                on_batch=None if on_offset is None else lambda b: on_offset(b.last_offset),
            )
    except (CorruptLogError, RecordDecodeError, ReplayError, RebuildError, OSError) as error:
        fail_for(error, f"replay {data_dir}")
