"""``aclog acls add``: create ACLs in a data directory or on a cluster.

The command's options only: its ``--help`` and the completion of its options import no library
(issue 37); what it does is :mod:`aclog.tools.acls_adding`, imported when it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.acl_params import (
    AllowHost,
    AllowPrincipal,
    Cluster,
    DenyHost,
    DenyPrincipal,
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


@acls_app.command("add")
def add(
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
    producer: Annotated[bool, typer.Option("--producer", help="Producer role ACLs.")] = False,
    consumer: Annotated[bool, typer.Option("--consumer", help="Consumer role ACLs.")] = False,
    idempotent: Annotated[bool, typer.Option("--idempotent", help="With --producer.")] = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Show what would change; write nothing (--data-dir only)."),
    ] = False,
    inventory: Annotated[
        Path | None,
        typer.Option(
            "--inventory",
            help="With --dry-run: a file of TYPE:name resources; show "
            "which the new ACLs apply to and whose decisions change.",
            readable=False,
        ),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Add ACLs. Adding an ACL that already exists succeeds and writes nothing.

    With --bootstrap-server the JSON "id" is null: Kafka does not expose ACL ids.
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
    options.producer, options.consumer, options.idempotent = producer, consumer, idempotent
    from aclog.tools.acls_adding import add_acls  # noqa: PLC0415 - see the module docstring

    add_acls(
        options,
        data_dir,
        bootstrap_server,
        command_config,
        dry_run=dry_run,
        inventory=inventory,
        json_output=json_output,
    )
