"""Reading a cluster's current state through any :class:`~aclog.controller.writer.MetadataWriter`
(DescribeAcls and DescribeUserScramCredentials), for plans and ``follow``.

Thread-safety and cost are the writer's: each call is one request (or one commit); reading a
cluster's state adds an ApiVersions to learn whether it stores GLOB ACLs.
"""

from __future__ import annotations

from aclog.acl.filters import AclFilter
from aclog.acl.glob import GLOB_FEATURE
from aclog.controller.caller import Caller
from aclog.controller.writer import MetadataWriter
from aclog.desired.current import CurrentState
from aclog.remote.admin import RemoteAdmin


class ReadError(RuntimeError):
    """The cluster refused to describe its ACLs or credentials."""


def read_current(writer: MetadataWriter, caller: Caller) -> CurrentState:
    """The state a cluster shows through DescribeAcls (everything) and
    DescribeUserScramCredentials (every user), and whether it stores GLOB ACLs;
    :class:`ReadError` if either describe is refused."""
    error, acls = writer.describe_acls(AclFilter(), caller)
    if not error.is_success:
        raise ReadError(f"DescribeAcls failed: {error.error.name}: {error.message or ''}")
    error, users = writer.describe_scram(None, caller)
    if not error.is_success:
        raise ReadError(
            f"DescribeUserScramCredentials failed: {error.error.name}: {error.message or ''}"
        )
    return CurrentState.from_described(
        (a.binding for a in acls), users, holds_glob=holds_glob(writer)
    )


def holds_glob(writer: MetadataWriter) -> bool:
    """Whether ``writer``'s target stores GLOB ACLs: a cluster reached through the admin API
    only when its ApiVersions lists :data:`~aclog.acl.glob.GLOB_FEATURE` (``aclog serve``
    does; Kafka, which rejects pattern type 5, does not); a data directory always."""
    if isinstance(writer, RemoteAdmin):
        return GLOB_FEATURE in writer.supported_features()
    return True
