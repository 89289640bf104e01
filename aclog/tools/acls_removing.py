"""What ``aclog acls remove`` does once :mod:`aclog.tools.acls_remove` has its options: delete
the ACLs that filters match, after asking on a terminal.

Without ``--force`` the command lists what it would remove and asks (``typer.confirm``) when stdin
is a terminal; anywhere else (a script, a pipe) it refuses with exit 2, since nobody can answer.
A dry run on a data directory reads without the lock.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from aclog.acl import AclFilter
from aclog.controller import AclDeleteResult
from aclog.records import acl_text
from aclog.tools.acl_args import AclOptions
from aclog.tools.acl_options import filters_for_remove, parse_or_exit
from aclog.tools.acl_rows import delete_row, describe_filter
from aclog.tools.common import load_state
from aclog.tools.console import EXIT_FAILURE, EXIT_USAGE, counted, fail, print_json, print_line
from aclog.tools.remote import RemoteTarget, Target, choose_target, open_admin
from aclog.tools.writing import local_caller, report_failures


def remove_matching(
    options: AclOptions,
    data_dir: Path | None,
    bootstrap_server: str | None,
    command_config: Path | None,
    *,
    force: bool,
    dry_run: bool,
    json_output: bool,
) -> None:
    """Run ``aclog acls remove`` with ``options`` (see the module docstring)."""
    filters = parse_or_exit(lambda: filters_for_remove(options))
    target = choose_target(data_dir, bootstrap_server, command_config)
    results = _delete(target, filters, dry_run=dry_run, force=force)
    if json_output:
        print_json({"results": [delete_row(f, r) for f, r in zip(filters, results, strict=True)]})
    else:
        verb = "would remove" if dry_run else "removed"
        for result in results:
            for acl in result.acls:
                print_line(f"{verb} {acl_text(acl)}")
        if not any(result.acls for result in results):  # silence read as "done" on a typo
            print_line(f"no ACL matches: {'nothing would be' if dry_run else 'nothing'} removed")
    report_failures(
        [
            (describe_filter(f), r.error)
            for f, r in zip(filters, results, strict=True)
            if not r.error.is_success
        ]
    )


def _delete(
    target: Target, filters: list[AclFilter], *, dry_run: bool, force: bool
) -> list[AclDeleteResult]:
    """One result per filter; a dry run on a data directory reads without the lock."""
    if dry_run and not isinstance(target, RemoteTarget):
        # imported here: the control manager loads the image (numpy, pyarrow), which completing
        # an option of this command has no use for
        from aclog.controller import AclControlManager  # noqa: PLC0415

        image = load_state(target, None, None).image
        return AclControlManager().delete_acls(image.acls, filters).response
    caller = local_caller("aclog acls remove")
    with open_admin(target) as admin:
        if not force and not dry_run:
            _confirm(admin.delete_acls(filters, caller, dry_run=True))
        return admin.delete_acls(filters, caller, dry_run=dry_run)


def on_terminal() -> bool:
    """Whether a person can answer a question: stdin is a terminal."""
    return sys.stdin is not None and sys.stdin.isatty()


def _confirm(planned: list[AclDeleteResult]) -> None:
    """Ask before removing (on a terminal); refuse without --force anywhere else."""
    acls = {acl.binding: acl for result in planned for acl in result.acls}
    if not acls:
        return
    if not on_terminal():
        fail(
            f"this would remove {counted(len(acls), 'ACL')}; pass --force to confirm "
            "(or --dry-run to list them)",
            EXIT_USAGE,
        )
    for acl in acls.values():
        print_line(f"  {acl_text(acl)}")
    if not typer.confirm(f"Remove {'this ACL' if len(acls) == 1 else f'these {len(acls)} ACLs'}?"):
        fail("nothing removed", EXIT_FAILURE)
