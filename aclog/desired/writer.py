"""What applying a plan needs of a cluster: the narrow set of admin operations that both a data
directory's :class:`~aclog.controller.controller.Controller` and the ``--bootstrap-server``
admin client provide, and reading the current state through them.

Thread-safety and cost are the writer's: each call is one request (or one commit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from aclog.acl import ApiError
from aclog.acl.filters import AclFilter
from aclog.controller import (
    AclCreateResult,
    AclDeleteResult,
    ScramAlterResult,
    ScramDeletion,
    ScramUpsertion,
)
from aclog.controller.caller import Caller
from aclog.desired.current import CurrentState
from aclog.image import ScramDescribeResult
from aclog.records import AccessControlEntryRecord, AclBinding


class ReadError(RuntimeError):
    """The cluster refused to describe its ACLs or credentials."""


class AclScramWriter(Protocol):
    """CreateAcls, DeleteAcls, DescribeAcls, AlterUserScramCredentials and
    DescribeUserScramCredentials, with per-item results as Kafka answers them."""

    def create_acls(self, acls: Sequence[AclBinding], caller: Caller) -> list[AclCreateResult]:
        """One result per binding, in order."""
        ...

    def delete_acls(self, filters: Sequence[AclFilter], caller: Caller) -> list[AclDeleteResult]:
        """One result per filter, with the ACLs it removed."""
        ...

    def describe_acls(
        self, acl_filter: AclFilter, caller: Caller
    ) -> tuple[ApiError, list[AccessControlEntryRecord]]:
        """The ACLs the filter matches."""
        ...

    def alter_scram(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller,
    ) -> list[ScramAlterResult]:
        """One result per user."""
        ...

    def describe_scram(
        self, names: Sequence[str] | None, caller: Caller
    ) -> tuple[ApiError, list[ScramDescribeResult]]:
        """Every user's mechanisms and iteration counts (``None``: all users)."""
        ...


def read_current(writer: AclScramWriter, caller: Caller) -> CurrentState:
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
