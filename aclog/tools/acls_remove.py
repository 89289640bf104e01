"""``aclog acls remove``: delete the ACLs that filters match, after asking on a terminal.

The command's options only: its ``--help`` and the completion of its options import no library
(issue 37); what it does is :mod:`aclog.tools.acls_removing`, imported when it runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

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
)
from aclog.tools.acls import acls_app
from aclog.tools.params import BootstrapServer, CommandConfig, JsonFlag, OptionalDataDir


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
    from aclog.tools.acls_removing import remove_matching  # noqa: PLC0415 - see the module docstring

    remove_matching(
        options,
        data_dir,
        bootstrap_server,
        command_config,
        force=force,
        dry_run=dry_run,
        json_output=json_output,
    )
