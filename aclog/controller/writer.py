"""The one write interface: what every writer of ACLs and SCRAM credentials offers.

Three classes implement :class:`MetadataWriter`:

- :class:`~aclog.controller.controller.Controller`, the only writer of a data directory it holds
  alone (the CLI's ``--data-dir``, ``aclog serve``);
- :class:`~aclog.controller.quorum_member.QuorumMember`, one of several controllers sharing a
  data directory, of which one is active (``aclog serve --controller``);
- :class:`~aclog.remote.admin.RemoteAdmin`, the Kafka admin API of a running cluster or of
  ``aclog serve`` (the CLI's ``--bootstrap-server``).

Every write answers one result per item, in request order, with Kafka's error codes; a request
is committed whole or not at all. ``caller`` says who asks (recorded with the change); a remote
cluster knows the caller from its login and ignores it. The ``*_later`` forms queue the same
request and return a future (the listener's event loop uses them so no thread of its own waits
for a commit); :attr:`MetadataWriter.writes_in_order` says whether those commit in call order.

Thread-safety and cost are each implementation's; see their modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from typing import Protocol

from aclog.acl import ApiError
from aclog.acl.filters import AclFilter
from aclog.controller.caller import Caller
from aclog.controller.quorum_state import QuorumState
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.result import AclCreateResult, AclDeleteResult, ScramAlterResult
from aclog.image import MetadataImage
from aclog.image.scram import ScramDescribeResult
from aclog.records import AccessControlEntryRecord, AclBinding


class MetadataWriter(Protocol):
    """Creates and deletes ACLs, alters SCRAM credentials, describes both, and says whether it
    is the active writer."""

    @property
    def image(self) -> MetadataImage | None:
        """The committed image this writer has replayed; ``None`` when the state lives in a
        remote cluster (ask :meth:`describe_acls` and :meth:`describe_scram` instead)."""
        ...

    @property
    def is_active(self) -> bool:
        """Whether writes sent now are committed here rather than refused with
        NOT_CONTROLLER (41)."""
        ...

    @property
    def writes_in_order(self) -> bool:
        """Whether ``*_later`` requests commit in the order they are made, so a caller may
        make one before the one ahead of it has committed."""
        ...

    def leader(self) -> QuorumState | None:
        """The active controller as far as this writer knows; ``None`` during an election."""
        ...

    def create_acls(
        self, acls: Sequence[AclBinding], caller: Caller = ..., *, dry_run: bool = False
    ) -> list[AclCreateResult]:
        """CreateAcls: one result per binding, in request order. ``dry_run`` decides without
        committing, where the writer can."""
        ...

    def delete_acls(
        self, filters: Sequence[AclFilter], caller: Caller = ..., *, dry_run: bool = False
    ) -> list[AclDeleteResult]:
        """DeleteAcls: one result per filter, each with the ACLs it removed (or would)."""
        ...

    def alter_scram(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller = ...,
    ) -> list[ScramAlterResult]:
        """AlterUserScramCredentials: one result per user; each user's changes are atomic."""
        ...

    def create_acls_later(
        self, acls: Sequence[AclBinding], caller: Caller = ...
    ) -> Future[list[AclCreateResult]]:
        """:meth:`create_acls` as a future: its results once the commit is durable."""
        ...

    def delete_acls_later(
        self, filters: Sequence[AclFilter], caller: Caller = ...
    ) -> Future[list[AclDeleteResult]]:
        """:meth:`delete_acls` as a future: its results once the commit is durable."""
        ...

    def alter_scram_later(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller = ...,
    ) -> Future[list[ScramAlterResult]]:
        """:meth:`alter_scram` as a future: its results once the commit is durable."""
        ...

    def describe_acls(
        self, acl_filter: AclFilter, caller: Caller = ...
    ) -> tuple[ApiError, list[AccessControlEntryRecord]]:
        """DescribeAcls: the committed ACLs the filter matches."""
        ...

    def describe_scram(
        self, names: Sequence[str] | None, caller: Caller = ...
    ) -> tuple[ApiError, list[ScramDescribeResult]]:
        """DescribeUserScramCredentials; ``None`` or no names describes every user."""
        ...

    def close(self) -> None:
        """Finish what is queued, then release the log (or the connection)."""
        ...
