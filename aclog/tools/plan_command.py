"""``aclog plan FILE``: what applying a desired-state file would change, inside what it owns,
with the effect on access for an ``--inventory``; ``--out`` saves the plan for ``aclog apply
--plan-file``; ``--detailed-exitcode`` exits 4 when changes are pending (for CI).

Thin: parse, call :func:`aclog.desired.plan`, render; ``--json`` prints the plan's JSON form.
A plan reads and never writes (``--out`` aside). The library is imported when the command
runs, not for its ``--help``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
    from aclog.desired import Plan
    from aclog.records import ResourceType

EXIT_CHANGES = 4
"""``--detailed-exitcode``: the plan has changes (Terraform's convention, 2 being usage here)."""


@app.command(
    "plan",
    epilog=exit_codes("a plan that cannot be made (a credential needs a password source)")
    + " With --detailed-exitcode, 4: changes are pending (0: none).",
)
def plan_command(
    file: DesiredFile,
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    inventory: Annotated[
        Path | None,
        typer.Option(
            help="A file of TYPE:name resources: show whose access changes on them.", readable=False
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Save the plan (JSON) for apply --plan-file.", readable=False),
    ] = None,
    detailed_exitcode: Annotated[
        bool,
        typer.Option("--detailed-exitcode", help="Exit 0 with no changes, 4 with changes pending."),
    ] = False,
    set_passwords: SetPasswords = False,
    json_output: JsonFlag = False,
) -> None:
    """Show what apply would add and remove inside what FILE owns (reads only)."""
    from aclog.desired import PlanError, plan  # noqa: PLC0415 - on a run, not --help (issue 37)
    from aclog.tools.as_code import (  # noqa: PLC0415
        fail_lines,
        read_desired,
        read_target_state,
        target_name,
    )
    from aclog.tools.remote import choose_target  # noqa: PLC0415

    desired, passwords = read_desired(file)
    target = choose_target(data_dir, bootstrap_server, command_config)
    resources = _inventory(inventory) if inventory is not None else None
    current = read_target_state(target, "aclog plan", missing_is_empty=True)
    try:
        computed = plan(
            desired, current, resources, passwords=passwords, set_unverified=set_passwords
        )
    except PlanError as error:
        fail_lines(str(error).splitlines(), EXIT_FAILURE)
    if out is not None:
        _save(out, computed)
    if json_output:
        print_json(computed.to_dict())
    else:
        print_plan(computed, target_name(target))
    if detailed_exitcode and computed.has_changes:
        raise typer.Exit(EXIT_CHANGES)


def _inventory(path: Path) -> list[tuple[ResourceType, str]]:
    from aclog.tools.inventory import read_inventory  # noqa: PLC0415 - see plan_command
    from aclog.tools.options import OptionError  # noqa: PLC0415

    try:
        return read_inventory(path)
    except OptionError as error:
        fail(str(error), EXIT_USAGE)
    except OSError as error:
        fail_os("read", error)


def _save(path: Path, computed: Plan) -> None:
    try:
        path.write_text(json.dumps(computed.to_dict(), indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        fail_os("write", error)


def print_plan(computed: Plan, where: str) -> None:
    """The plan as text: one line per change, then the totals and any notes."""
    from aclog.desired import describe_binding  # noqa: PLC0415 - see plan_command
    from aclog.tools.acl_rows import impact_host  # noqa: PLC0415

    print_line(f"plan for {computed.file} against {where} ({computed.fingerprint})")
    for acl in computed.add:
        print_line(f"  + acl  {describe_binding(acl)}")
    for acl in computed.remove:
        print_line(f"  - acl  {describe_binding(acl)}")
    for user in computed.upsert:
        name = user.mechanism.mechanism_name
        print_line(f"  ~ user {user.name} ({name}, {user.iterations} iterations): {user.reason}")
    for user in computed.delete:
        print_line(f"  - user {user.name} ({user.mechanism.mechanism_name}): {user.reason}")
    if not computed.has_changes:
        print_line("no changes")
    else:
        print_line(
            f"{len(computed.add)} ACLs to add, {len(computed.remove)} to remove; "
            f"{len(computed.upsert)} credentials to set, {len(computed.delete)} to delete"
        )
    for warning in computed.warnings:
        print_line(f"warning: {warning}", stderr=True)
    for label in computed.unverified:
        print_line(
            f"note: the password of {label} cannot be checked ({computed.unverified_reason}); "
            "it is left as it is unless --set-passwords sets it",
            stderr=True,
        )
    for impact in computed.impact or ():
        print_line(f"access on {impact.resource_type.name}:{impact.name}")
        for c in impact.changes:
            print_line(
                f"    {c.principal} {impact_host(c.host)} {c.operation}: {c.before.value} -> "
                f"{c.after.value}"
            )
