"""What ``aclog users list`` does once :mod:`aclog.tools.users_list` has its options: users with
their mechanisms and iteration counts, from a data directory's committed state or a cluster."""

from __future__ import annotations

from aclog.acl import ApiError
from aclog.image import ScramDescribeResult, user_to_dict
from aclog.kraft import is_kraft_path
from aclog.tools.common import load_state
from aclog.tools.console import counted, print_json, print_line
from aclog.tools.remote import RemoteTarget, Target, choose_target, open_admin
from aclog.tools.user_changes import Where, check_name
from aclog.tools.writing import local_caller, report_failures


def list_credentials(users: list[str] | None, where: Where, json_output: bool) -> None:
    """``aclog users list``: ``users`` (``None``: every user) and their credentials."""
    for name in users or []:
        check_name(name, "USERS")
    target = choose_target(*where)
    error, described = _describe(target, users or None)
    report_failures([] if error.is_success else [("users", error)])  # no listing, no "0 users"
    found = [
        user_to_dict(d.user, {c.mechanism: c for c in d.credentials})
        for d in described
        if d.error.is_success
    ]
    if json_output:
        print_json({"users": found})
    else:
        for d in described:
            mechanisms = ", ".join(
                f"{c.mechanism.mechanism_name} ({c.iterations} iterations)" for c in d.credentials
            )
            print_line(f"{d.user}: {mechanisms}")
        print_line(counted(len(found), "SCRAM user"))  # as 'acls list' ends: an empty log says so
    report_failures([(f"user {d.user}", d.error) for d in described if not d.error.is_success])


def _describe(
    target: Target, users: list[str] | None
) -> tuple[ApiError, list[ScramDescribeResult]]:
    """DescribeUserScramCredentials on a cluster, or over a data directory's committed state."""
    if not isinstance(target, RemoteTarget):
        state = load_state(target, None, None, kraft=is_kraft_path(target))  # KRaft: read-only
        return ApiError.NONE, state.image.scram.describe(users)
    with open_admin(target) as admin:
        return admin.describe_scram(users, local_caller("aclog users list"))
