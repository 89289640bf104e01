"""``aclog import --from-kraft``: turn Kafka's own KRaft metadata log into an aclog data directory.

The command checks the source, runs :func:`aclog.kraft.importer.import_kraft` under a progress
bar and prints its :class:`~aclog.kraft.importer.ImportReport` (``--json``: the report's dict).
What is imported and how is described in :mod:`aclog.kraft.importer`.

With ``--follow`` it runs :class:`aclog.kraft.follow.KraftFollow` instead (import or resume,
then tail every ``--interval``) until SIGTERM or Ctrl-C (exit 0) or ``--max-polls``; each
appended batch is a line on stdout (``--json``: one JSON object per line, then the report as
the last line), progress goes to stderr.

The library is imported when the command runs, not for its ``--help``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from aclog.tools.console import (
    EXIT_FAILURE,
    EXIT_USAGE,
    app,
    fail,
    print_json,
    print_json_line,
    print_line,
)
from aclog.tools.params import DATA_DIR_ENV

if TYPE_CHECKING:
    from aclog.kraft import Appended, ImportReport


@app.command("import")
def import_command(
    from_kraft: Annotated[
        Path,
        typer.Option(
            "--from-kraft",
            help="Kafka's metadata log directory (__cluster_metadata-0) or one .checkpoint.",
            readable=False,
        ),
    ],
    data_dir: Annotated[
        Path,
        typer.Option(
            "--data-dir",
            help="The new aclog data directory (missing or empty).",
            envvar=DATA_DIR_ENV,
            readable=False,
        ),
    ],
    skip_noop: Annotated[
        bool,
        typer.Option("--skip-noop", help="Leave out KRaft's periodic NoOpRecords."),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    follow: Annotated[
        bool,
        typer.Option(
            "--follow",
            help="Keep importing new changes as KRaft commits them (resumes a directory an "
            "import or follow wrote); stop with SIGTERM or Ctrl-C.",
        ),
    ] = False,
    interval: Annotated[
        str | None,
        typer.Option("--interval", help="With --follow: time between polls (default 1s)."),
    ] = None,
    max_polls: Annotated[
        int | None,
        typer.Option("--max-polls", min=1, help="With --follow: stop after N polls (1: catch up)."),
    ] = None,
    reconcile: Annotated[
        bool,
        typer.Option(
            "--reconcile",
            help="With --follow: when Kafka deleted segments the last follow had not read, "
            "record their net effect from the newest snapshot as one batch instead of stopping.",
        ),
    ] = False,
) -> None:
    """Import the ACLs and SCRAM credentials of a KRaft metadata log into a new aclog log,
    keeping record order, epochs and timestamps (read-only on the KRaft side)."""
    from aclog.controller import RecordAdmission  # noqa: PLC0415 - see the module docstring
    from aclog.image import MetadataImage  # noqa: PLC0415
    from aclog.kraft import (  # noqa: PLC0415
        ImportTargetError,
        KraftError,
        import_kraft,
        import_source_problem,
    )
    from aclog.log import LogError, estimated_end_offset  # noqa: PLC0415
    from aclog.tools.exit_codes import fail_for  # noqa: PLC0415
    from aclog.tools.progress import offsets_bar  # noqa: PLC0415

    problem = import_source_problem(from_kraft)
    if problem is not None:
        fail(problem, EXIT_USAGE)
    if follow:
        options = FollowOptions(interval or "1s", max_polls, reconcile, skip_noop, json_output)
        _follow(from_kraft, data_dir, options)
        return
    if interval is not None or max_polls is not None or reconcile:
        fail("--interval, --max-polls and --reconcile go with --follow", EXIT_USAGE)
    try:
        end = None if from_kraft.is_file() else estimated_end_offset(from_kraft)
        with offsets_bar("importing: KRaft", end) as on_offset:
            on_batch = None if on_offset is None else lambda b: on_offset(b.last_offset)
            report = import_kraft(
                from_kraft,
                data_dir,
                admission=RecordAdmission(MetadataImage.EMPTY),
                skip_noop=skip_noop,
                on_batch=on_batch,
            )
    except (ImportTargetError, KraftError, LogError, OSError) as error:
        fail_for(error, f"import {from_kraft} into {data_dir}")
    for warning in report.warnings:
        print_line(f"aclog: warning: {warning}", stderr=True)
    for rejected in report.rejected:
        print_line(f"aclog: {rejected.describe()}", stderr=True)
    if json_output:
        print_json(report.to_dict())
    else:
        _print_report(report)
    _exit_for_rejected(report)


def _exit_for_rejected(report: ImportReport) -> None:
    """Exit 1 (a rejected item) once everything else was imported and reported."""
    if report.rejected:
        print_line(
            f"aclog: {len(report.rejected)} KRaft records broke aclog's rules and were kept "
            f"out of {report.data_dir}; everything else was imported (see above)",
            stderr=True,
        )
        raise typer.Exit(EXIT_FAILURE)


def _print_report(report: ImportReport) -> None:
    from aclog.kraft import report_lines  # noqa: PLC0415 - see the module docstring

    for line in report_lines(report):
        print_line(line)


@dataclass(frozen=True)
class FollowOptions:
    """The options of ``--follow`` as given."""

    interval: str
    max_polls: int | None
    reconcile: bool
    skip_noop: bool
    json_output: bool


def _follow(source: Path, data_dir: Path, options: FollowOptions) -> None:
    """``--follow``: parse, run :class:`KraftFollow`, print each appended batch and the report."""
    from aclog.controller import RecordAdmission  # noqa: PLC0415 - see the module docstring
    from aclog.kraft import ImportTargetError, KraftError, KraftFollow  # noqa: PLC0415
    from aclog.log import LogError  # noqa: PLC0415
    from aclog.replay import RebuildError, kraft_reconcile  # noqa: PLC0415
    from aclog.tools.exit_codes import fail_for  # noqa: PLC0415
    from aclog.tools.follow_command import parse_interval, stopping_on_signals  # noqa: PLC0415

    if source.is_file():
        fail(f"--follow needs the KRaft directory, not the snapshot {source}", EXIT_USAGE)
    try:
        seconds = parse_interval(options.interval)
    except ValueError as error:
        fail(str(error), EXIT_USAGE)
    follower = KraftFollow(
        source,
        data_dir,
        seconds,
        lambda: RecordAdmission.of_directory(data_dir),
        skip_noop=options.skip_noop,
        max_polls=options.max_polls,
        reconcile=(lambda end: kraft_reconcile(data_dir, source, end))
        if options.reconcile
        else None,
        on_append=_json_line if options.json_output else _text_line,
        log=lambda message: print_line(f"aclog: {message}", stderr=True),
    )
    print_line(f"aclog: following {source} into {data_dir} every {seconds:g} s", stderr=True)
    try:
        with stopping_on_signals(follower.stop):
            report = follower.run()
    except (ImportTargetError, KraftError, LogError, RebuildError, OSError) as error:
        fail_for(error, f"follow {source} into {data_dir}")
    if options.json_output:
        print_json_line(report.to_dict())
    else:
        _print_report(report)
    _exit_for_rejected(report)


def _json_line(appended: Appended) -> None:
    print_json_line(appended.to_dict())
    sys.stdout.flush()  # a reader of the pipe sees each batch as it is committed


def _text_line(appended: Appended) -> None:
    from aclog.kraft import appended_line  # noqa: PLC0415 - see the module docstring

    print_line(appended_line(appended))
    sys.stdout.flush()
