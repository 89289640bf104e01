"""Reading a cluster's current state through any :class:`~aclog.controller.writer.MetadataWriter`
(DescribeAcls and DescribeUserScramCredentials), for plans and ``follow``.

Thread-safety and cost are the writer's: each call is one request (or one commit).
"""

from __future__ import annotations

from aclog.acl.filters import AclFilter
from aclog.controller.caller import Caller
from aclog.controller.writer import MetadataWriter
from aclog.desired.current import CurrentState


class ReadError(RuntimeError):
    """The cluster refused to describe its ACLs or credentials."""


def read_current(writer: MetadataWriter, caller: Caller) -> CurrentState:
    """The state a cluster shows through DescribeAcls (everything) and
    DescribeUserScramCredentials (every user); :class:`ReadError` if either is refused."""
    error, acls = writer.describe_acls(AclFilter(), caller)
    if not error.is_success:
        raise ReadError(f"DescribeAcls failed: {error.error.name}: {error.message or ''}")
    error, users = writer.describe_scram(None, caller)
    if not error.is_success:
        raise ReadError(
            f"DescribeUserScramCredentials failed: {error.error.name}: {error.message or ''}"
        )
    return CurrentState.from_described((a.binding for a in acls), users)
