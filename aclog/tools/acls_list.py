"""``aclog acls list``: the ACLs that match, from a data directory's committed state as of any
point (read without the lock; nothing is written) or from a cluster's DescribeAcls.

The command's options only: its ``--help`` and the completion of its options import no library
(issue 37); what it does is :mod:`aclog.tools.acls_listing`, imported when it runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.tools.acl_params import (
    Cluster,
    Group,
    Many,
    PatternOpt,
    Token,
    Topic,
    TxnId,
    User,
    acl_options,
)
from aclog.tools.acls import acls_app
from aclog.tools.params import (
    AtOffset,
    AtTime,
    BootstrapServer,
    CommandConfig,
    JsonFlag,
    OptionalDataDir,
)


@acls_app.command("list")
def list_acls(
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    topic: Topic = None,
    group: Group = None,
    cluster: Cluster = False,
    transactional_id: TxnId = None,
    user: User = None,
    delegation_token: Token = None,
    resource_pattern_type: PatternOpt = None,
    principal: Annotated[Many, typer.Option("--principal", help="Only this principal.")] = None,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    json_output: JsonFlag = False,
) -> None:
    """List ACLs; with --resource-pattern-type match, every ACL that applies to the resource.

    A data directory lists in commit order; a cluster (--bootstrap-server) in its DescribeAcls
    order, with "id": null in JSON (Kafka does not expose ACL ids).
    """
    options = acl_options(
        topics=topic,
        groups=group,
        transactional_ids=transactional_id,
        users=user,
        delegation_tokens=delegation_token,
        principals=principal,
    )
    options.cluster, options.pattern_type = cluster, resource_pattern_type
    from aclog.tools.acls_listing import list_matching  # noqa: PLC0415 - see the module docstring

    list_matching(
        options,
        data_dir,
        bootstrap_server,
        command_config,
        at_offset=at_offset,
        at_time=at_time,
        json_output=json_output,
    )
