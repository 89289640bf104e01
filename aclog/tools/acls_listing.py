"""What ``aclog acls list`` does once :mod:`aclog.tools.acls_list` has its options: the ACLs
that match, from a data directory's committed state as of any point (read without the lock;
nothing is written) or from a cluster's DescribeAcls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aclog.acl import ApiError
from aclog.kraft import is_kraft_path
from aclog.records import AccessControlEntryRecord, acl_text
from aclog.tools.acl_args import AclOptions
from aclog.tools.acl_options import filters_for_list, parse_or_exit
from aclog.tools.acl_rows import acl_dict, describe_filter
from aclog.tools.common import load_state
from aclog.tools.console import counted, print_json, print_line
from aclog.tools.remote import RemoteTarget, choose_target, data_dir_only, open_admin
from aclog.tools.writing import report_failures


def list_matching(
    options: AclOptions,
    data_dir: Path | None,
    bootstrap_server: str | None,
    command_config: Path | None,
    *,
    at_offset: int | None,
    at_time: str | None,
    json_output: bool,
) -> None:
    """Run ``aclog acls list`` with ``options`` (see the module docstring)."""
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
            print_line(acl_text(acl))
        print_line(counted(len(found), "ACL"))
