"""``aclog acls remove``: delete the ACLs that filters match, after asking on a terminal.

Without ``--force`` the command lists what it would remove and asks (``typer.confirm``) when stdin
is a terminal; anywhere else (a script, a pipe) it refuses with exit 2, since nobody can answer.
A dry run on a data directory reads without the lock.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from aclog.acl import AclFilter
from aclog.controller import AclDeleteResult
from aclog.tools.acl_options import filters_for_remove
from aclog.tools.acl_params import (
    AllowHost,
    AllowPrincipal,
    Cluster,
    DenyHost,
    DenyPrincipal,
    DryRun,
    Group,
    Operation,
    PatternOpt,
    Token,
    Topic,
    TxnId,
    User,
    acl_options,
    parse_or_exit,
)
from aclog.tools.acl_rows import delete_row, describe, describe_filter
from aclog.tools.acls import acls_app
from aclog.tools.common import JsonFlag, OptionalDataDir, load_state
from aclog.tools.console import EXIT_FAILURE, EXIT_USAGE, counted, fail, print_json, print_line
from aclog.tools.remote import (
    BootstrapServer,
    CommandConfig,
    RemoteTarget,
    Target,
    choose_target,
    open_admin,
)
from aclog.tools.writing import local_caller, report_failures


@acls_app.command("remove")
def remove(
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    allow_principal: AllowPrincipal = None,
    deny_principal: DenyPrincipal = None,
    allow_host: AllowHost = None,
    deny_host: DenyHost = None,
    operation: Operation = None,
    topic: Topic = None,
    group: Group = None,
    cluster: Cluster = False,
    transactional_id: TxnId = None,
    user: User = None,
    delegation_token: Token = None,
    resource_pattern_type: PatternOpt = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Remove without asking. Without it, remove lists the ACLs and asks on a "
            "terminal, and refuses (exit 2) when stdin is not a terminal.",
        ),
    ] = False,
    dry_run: DryRun = False,
    json_output: JsonFlag = False,
) -> None:
    """Remove the ACLs that match; without principals, every ACL on the named resources.

    Asks for confirmation on a terminal; elsewhere (a script, a pipe) it refuses unless given
    --force. With --bootstrap-server, --dry-run and the confirmation list the ACLs DescribeAcls
    finds with the same filters, and the JSON "id" is null: Kafka does not expose ACL ids.
    """
    options = acl_options(
        allow_principals=allow_principal,
        deny_principals=deny_principal,
        allow_hosts=allow_host,
        deny_hosts=deny_host,
        operations=operation,
        topics=topic,
        groups=group,
        transactional_ids=transactional_id,
        users=user,
        delegation_tokens=delegation_token,
    )
    options.cluster, options.pattern_type = cluster, resource_pattern_type
    filters = parse_or_exit(lambda: filters_for_remove(options))
    target = choose_target(data_dir, bootstrap_server, command_config)
    results = _delete(target, filters, dry_run=dry_run, force=force)
    if json_output:
        print_json({"results": [delete_row(f, r) for f, r in zip(filters, results, strict=True)]})
    else:
        verb = "would remove" if dry_run else "removed"
        for result in results:
            for acl in result.acls:
                print_line(f"{verb} {describe(acl)}")
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
        print_line(f"  {describe(acl)}")
    if not typer.confirm(f"Remove {'this ACL' if len(acls) == 1 else f'these {len(acls)} ACLs'}?"):
        fail("nothing removed", EXIT_FAILURE)
