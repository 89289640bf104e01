"""``aclog apply FILE``: make a data directory or a cluster hold a desired-state file, inside
what the file owns.

On a data directory the whole plan is ONE batch (atomic), recorded with who ran it, from where,
and the file with its SHA-256; through ``--bootstrap-server`` the admin API gets the creations,
then the deletions, then the SCRAM changes, and each item's result is shown. Deleting anything
needs ``--allow-delete``; ``--plan-file`` (from ``plan --out``) refuses a state that has moved.

Thin: parse, call :func:`aclog.desired.apply_to_directory` or
:func:`~aclog.desired.apply_to_cluster`, render; ``--json`` prints its result. The library is
imported when the command runs, not for its ``--help``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from aclog.tools.console import EXIT_FAILURE, EXIT_USAGE, app, fail, fail_os, print_json, print_line
from aclog.tools.help import exit_codes
from aclog.tools.params import (
    BootstrapServer,
    CommandConfig,
    DesiredFile,
    JsonFlag,
    OptionalDataDir,
    SetPasswords,
)

if TYPE_CHECKING:
    from aclog.desired import ApplyResult, Plan


@app.command(
    "apply",
    epilog=exit_codes("refused (deletions without --allow-delete, a stale plan) or an item failed"),
)
def apply_command(
    file: DesiredFile,
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    plan_file: Annotated[
        Path | None,
        typer.Option(
            "--plan-file", help="A plan from plan --out: refuse if the state moved.", readable=False
        ),
    ] = None,
    allow_delete: Annotated[
        bool, typer.Option("--allow-delete", help="Allow removing ACLs and users FILE owns.")
    ] = False,
    set_passwords: SetPasswords = False,
    json_output: JsonFlag = False,
) -> None:
    """Apply FILE: add and remove ACLs and credentials inside what it owns."""
    from aclog.desired import (  # noqa: PLC0415 - on a run, not --help (issue 37)
        ApplyOptions,
        ApplyRefused,
        ApplyResult,
        ReadError,
        apply_to_cluster,
        apply_to_directory,
    )
    from aclog.tools.as_code import read_desired  # noqa: PLC0415
    from aclog.tools.remote import RemoteTarget, choose_target, open_admin  # noqa: PLC0415
    from aclog.tools.writing import local_caller, open_controller  # noqa: PLC0415

    desired, passwords = read_desired(file)
    saved = _saved_plan(plan_file) if plan_file is not None else None
    target = choose_target(data_dir, bootstrap_server, command_config)
    caller = local_caller(f"aclog apply {desired.path} sha256={desired.sha256}")
    options = ApplyOptions(allow_delete, set_passwords, saved)
    try:
        if isinstance(target, RemoteTarget):
            with open_admin(target) as admin:
                result = apply_to_cluster(desired, passwords, admin, caller, options)
        else:
            with open_controller(target, create=True) as controller:
                result = apply_to_directory(desired, passwords, controller, caller, options)
    except (ApplyRefused, ReadError) as error:
        result = ApplyResult((), committed=False, refused=str(error))
    _render(result, json_output)


def _saved_plan(path: Path) -> Plan:
    from aclog.desired import PlanError, plan_from_dict  # noqa: PLC0415 - see apply_command

    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        return plan_from_dict(data)
    except OSError as error:
        fail_os("read", error)
    except (ValueError, PlanError) as error:
        fail(f"{path}: {error}", EXIT_USAGE)


def _render(result: ApplyResult, json_output: bool) -> None:
    from aclog.tools.as_code import fail_lines  # noqa: PLC0415 - see apply_command

    if json_output:
        print_json(result.to_dict())
    else:
        for item in result.items:
            if item.error.is_success:
                print_line(f"{item.action:<7} {_subject(item.subject)}")
        if not result.items and result.refused is None:
            print_line("no changes")
    if result.refused is not None:
        fail_lines(f"refused: {result.refused}".splitlines(), EXIT_FAILURE)
    failures = result.failures
    for item in failures:
        error = item.error
        print_line(
            f"aclog: {item.action} {_subject(item.subject)}: {error.error.name} ({error.code}): "
            f"{error.message or ''}",
            stderr=True,
        )
    if failures:
        if not result.committed:
            print_line("aclog: nothing was applied", stderr=True)
        raise typer.Exit(EXIT_FAILURE)


def _subject(subject: dict[str, Any]) -> str:
    if "acl" in subject:
        return f"acl {subject['acl']}"
    return f"user {subject['user']} ({subject['mechanism']})"
