"""``aclog acls list``: the ACLs that match, from a data directory's committed state as of any
point (read without the lock; nothing is written) or from a cluster's DescribeAcls."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from aclog.acl import ApiError
from aclog.kraft import is_kraft_path
from aclog.records import AccessControlEntryRecord
from aclog.tools.acl_options import filters_for_list
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
    parse_or_exit,
)
from aclog.tools.acl_rows import acl_dict, describe, describe_filter
from aclog.tools.acls import acls_app
from aclog.tools.common import AtOffset, AtTime, JsonFlag, OptionalDataDir, load_state
from aclog.tools.console import counted, print_json, print_line
from aclog.tools.remote import (
    BootstrapServer,
    CommandConfig,
    RemoteTarget,
    choose_target,
    data_dir_only,
    open_admin,
)
from aclog.tools.writing import report_failures


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
    filters = parse_or_exit(lambda: filters_for_list(options))
    target = choose_target(data_dir, bootstrap_server, command_config)
    failures: list[tuple[str, ApiError]] = []
    found: dict[Any, AccessControlEntryRecord]
    if isinstance(target, RemoteTarget):
        if at_offset is not None or at_time is not None:
            data_dir_only(target, "--at-offset/--at-time", "Kafka keeps no ACL history")
        found = {}
        with open_admin(target) as admin:
            for acl_filter in filters:
                error, acls = admin.describe_acls(acl_filter)
                if not error.is_success:
                    failures.append((describe_filter(acl_filter), error))
                for acl in acls:
                    found.setdefault(acl.binding, acl)
    else:
        # a KRaft __cluster_metadata-0 directory is read as replay reads it (never written)
        image = load_state(target, at_offset, at_time, kraft=is_kraft_path(target)).image
        found = {acl.id: acl for acl in image.acls if any(f.matches(acl) for f in filters)}
    report_failures(failures)  # a listing that failed prints none: "0 ACLs" would be a lie
    if json_output:
        print_json({"acls": [acl_dict(acl) for acl in found.values()]})
    else:
        for acl in found.values():
            print_line(describe(acl))
        print_line(counted(len(found), "ACL"))
