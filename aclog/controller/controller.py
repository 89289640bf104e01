"""The controller: the only writer of a data directory's log.

An operation asks a control manager for records and per-item results against an image (nothing
changes yet), replays those records into a pending delta (a failure there is a bug and surfaces
as :class:`~aclog.image.ReplayError`), appends them as ONE batch with the controller's epoch, led
by a :class:`RequestContextRecord` naming who asked, fsyncs, and only then advances its image and
returns the results. A failed append leaves the image untouched and fails every item of the
request: NOT_CONTROLLER (41) when a newer epoch has fenced this controller, KAFKA_STORAGE_ERROR
(56) with the OS error and the file for a storage failure.

Group commit (:mod:`aclog.controller.group`): requests that arrive while a commit runs queue
up and are decided one after another against the pending image, then appended with one write
and one fsync; each keeps its own batch and the results it would get alone in that order. The
``*_later`` forms return a future at once (the listener's event loop uses them).

A composition, not mixins: the control managers (``acl_manager``, ``scram_manager``) decide a
mutation into records and results (:mod:`aclog.controller.tickets`) and change nothing; the
``committer`` (:class:`~aclog.controller.group_commit.Committer`) owns the image, the epoch, the
``fenced`` flag and the snapshots, and appends; ``leadership``
(:class:`~aclog.controller.leadership.Leadership`) follows and leads a shared log through it.
Only replaying committed records changes the image.

Thread-safe: commits (and dry runs, catch-up and leadership changes) are serialized by one lock;
:attr:`Controller.image` is an immutable image swapped whole after each commit. Cost: an
operation is O(records) plus its share of one fsync.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

from aclog.acl import ApiError
from aclog.acl.filters import AclFilter
from aclog.controller.acl_manager import AclControlManager
from aclog.controller.authorization import ClusterAuthorizer
from aclog.controller.caller import Caller
from aclog.controller.group import CommitQueue, Ticket
from aclog.controller.group_commit import NOT_CONTROLLER as NOT_CONTROLLER  # noqa: PLC0414
from aclog.controller.group_commit import Committer
from aclog.controller.leadership import Leadership
from aclog.controller.quorum_state import QuorumState
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.result import AclCreateResult, AclDeleteResult, ScramAlterResult
from aclog.controller.scram_manager import ScramControlManager
from aclog.controller.snapshots import ControllerSnapshots
from aclog.controller.tickets import altering, check_caller, creating, deleting
from aclog.image import MetadataImage
from aclog.image.scram import ScramDescribeResult
from aclog.log import SegmentedLog
from aclog.records import AccessControlEntryRecord, AclBinding, AclOperation, LeaderChangeRecord
from aclog.records.warning import OnWarning
from aclog.replay.batches import CommittedBatch, replay_batches
from aclog.replay.rebuild import rebuild_image
from aclog.replay.stream import read_decoded
from aclog.snapshot import RetentionPolicy, SnapshotInfo, SnapshotPolicy, remove_stale_temp_files

T = TypeVar("T")
logger = logging.getLogger(__name__)


class LocalOperator:
    """The authorizer of a command run directly on a data directory: the operator who can write
    the directory administers it, so every cluster operation is allowed (a super user)."""

    def authorize_cluster(self, principal: str, host: str, operation: AclOperation) -> bool:
        del principal, host, operation
        return True


class Controller:
    """Validates and commits ACL and SCRAM mutations to one log, in groups of concurrent ones."""

    def __init__(
        self,
        log: SegmentedLog,
        *,
        node_id: int = 1,
        authorizer: ClusterAuthorizer | None = None,
        clock: Callable[[], float] = time.time,
        acl_manager: AclControlManager | None = None,
        snapshot_policy: SnapshotPolicy | None = None,
        retention: RetentionPolicy | None = None,
        on_warning: OnWarning = logger.warning,
        bootstrap: bool = True,
    ) -> None:
        self.log = log
        self.node_id = node_id
        self.authorizer = authorizer
        self.clock = clock
        self.acl_manager = acl_manager or AclControlManager()
        self.scram_manager = ScramControlManager()
        self._lock = threading.Lock()
        remove_stale_temp_files(log.directory)
        rebuilt = rebuild_image(log.directory, at_offset=log.end_offset - 1, on_warning=on_warning)
        snapshots = ControllerSnapshots(log, snapshot_policy, retention or RetentionPolicy(), clock)
        self.committer = Committer(log, rebuilt.image.in_a_mapping(), clock, snapshots)
        self.leadership = Leadership(self.committer, node_id, self._lock)
        self._queue = CommitQueue(self._lock, self.committer.commit_group)
        if bootstrap and log.end_offset == 0:
            self._bootstrap()

    @classmethod
    def open(cls, data_dir: Path | str, **options: object) -> Controller:
        """Open (creating if needed) the log in ``data_dir`` and rebuild the image from it."""
        log = SegmentedLog(data_dir)
        try:
            return cls(log, **options)  # type: ignore[arg-type]
        except BaseException:
            log.close()
            raise

    def close(self) -> None:
        """Commit what is queued, finish a policy snapshot in progress, then release the log
        and its writer lock."""
        self._queue.close()
        self.committer.snapshots.wait()
        self.log.close()

    def __enter__(self) -> Controller:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_commit_listener(self, listener: Callable[[Sequence[CommittedBatch]], object]) -> None:
        """Call ``listener`` with the batches of every later commit, once they are durable and
        before their requests are answered, in log order (it runs under the commit lock, so it
        must not call back into this controller). A listener that raises is logged and
        skipped: the commit stands, and a loader reads it from the log instead."""
        with self._lock:
            self.committer.listeners.append(listener)

    @property
    def image(self) -> MetadataImage:
        """The committed image: immutable, swapped whole by each commit or catch-up."""
        return self.committer.image

    @property
    def epoch(self) -> int:
        """The epoch this controller appends with."""
        return self.committer.epoch

    @property
    def fenced(self) -> bool:
        """True once a newer epoch has fenced this controller (until it leads again)."""
        return self.committer.fenced

    # -- leadership (the :class:`~aclog.controller.writer.MetadataWriter` answers) -------------

    @property
    def is_active(self) -> bool:
        """True until a newer epoch fences this controller (alone on its directory, always)."""
        return not self.fenced

    @property
    def writes_in_order(self) -> bool:
        """True: every request goes through the one commit queue, in the order it came."""
        return True

    def leader(self) -> QuorumState | None:
        """This controller while it is active: it holds the directory's writer lock. (In a
        shared directory ask the :class:`~aclog.controller.quorum_member.QuorumMember`.)"""
        return QuorumState(self.node_id, self.epoch) if not self.fenced else None

    def _bootstrap(self) -> None:
        """A new log starts with this controller taking leadership for epoch 1."""
        self.committer.epoch = 1
        self.committer.append([LeaderChangeRecord(self.node_id, 1)], None)

    # -- following and leading a shared log (:class:`Leadership` answers) ----------------------

    def catch_up(self) -> int:
        """Replay what other controllers committed since this image; returns how many batches."""
        return self.leadership.catch_up()

    def claim_leadership(self) -> bool:
        """Append a leader change for the next epoch; True when this controller now leads."""
        return self.leadership.claim_leadership()

    def newest_epoch_seen(self) -> int:
        """The newest epoch this controller knows of (its own, its log's or its image's)."""
        return self.leadership.newest_epoch_seen()

    def still_leading(self) -> bool:
        """True when nobody else has written since this controller's last commit."""
        return self.leadership.still_leading()

    def heartbeat(self) -> bool:
        """Append a no-op so standbys see this controller alive; False once it is deposed."""
        return self.leadership.heartbeat()

    # -- operations ----------------------------------------------------------------------------

    def create_acls(
        self, acls: Sequence[AclBinding], caller: Caller = Caller(), *, dry_run: bool = False
    ) -> list[AclCreateResult]:
        """CreateAcls: one result per binding, in request order."""
        return self._run(creating(self, acls, caller), dry_run)

    def create_acls_later(
        self, acls: Sequence[AclBinding], caller: Caller = Caller()
    ) -> Future[list[AclCreateResult]]:
        """:meth:`create_acls` without blocking: the results once the commit is durable."""
        return self._queue.enqueue(creating(self, acls, caller))

    def delete_acls(
        self, filters: Sequence[AclFilter], caller: Caller = Caller(), *, dry_run: bool = False
    ) -> list[AclDeleteResult]:
        """DeleteAcls: one result per filter, in request order, each with the ACLs it removed."""
        return self._run(deleting(self, filters, caller), dry_run)

    def delete_acls_later(
        self, filters: Sequence[AclFilter], caller: Caller = Caller()
    ) -> Future[list[AclDeleteResult]]:
        """:meth:`delete_acls` without blocking: the results once the commit is durable."""
        return self._queue.enqueue(deleting(self, filters, caller))

    def describe_acls(
        self, acl_filter: AclFilter, caller: Caller = Caller()
    ) -> tuple[ApiError, list[AccessControlEntryRecord]]:
        """DescribeAcls: the committed ACLs the filter matches, in commit order."""
        denied = check_caller(self, caller, AclOperation.DESCRIBE, acl_api=True)
        if denied is not None:
            return denied, []
        return ApiError.NONE, [acl for acl in self.image.acls if acl_filter.matches(acl)]

    def alter_scram(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller = Caller(),
    ) -> list[ScramAlterResult]:
        """AlterUserScramCredentials: one result per user; each user's changes are atomic."""
        return self._run(altering(self, upsertions, deletions, caller), False)

    def alter_scram_later(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller = Caller(),
    ) -> Future[list[ScramAlterResult]]:
        """:meth:`alter_scram` without blocking: the results once the commit is durable."""
        return self._queue.enqueue(altering(self, upsertions, deletions, caller))

    def describe_scram(
        self, names: Sequence[str] | None, caller: Caller = Caller()
    ) -> tuple[ApiError, list[ScramDescribeResult]]:
        """DescribeUserScramCredentials over the committed image."""
        denied = check_caller(self, caller, AclOperation.DESCRIBE, acl_api=False)
        if denied is not None:
            return denied, []
        return ApiError.NONE, self.image.scram.describe(names)

    # -- commit --------------------------------------------------------------------------------

    def commit(self, ticket: Ticket[T]) -> T:
        """Decide ``ticket`` under the commit lock against the pending image and commit its
        records as ONE batch led by the ticket caller's request context, as every operation
        above does; for a request that mixes ACL and SCRAM changes (``aclog apply``, ``follow``).

        Blocks until the batch is durable (or the ticket produced no records); returns the
        ticket's response.
        """
        return self._queue.submit(ticket)

    def _run(self, ticket: Ticket[T], dry_run: bool) -> T:
        """Decide a dry run on the committed image; queue anything else for a group commit."""
        if dry_run:
            with self._lock:
                return ticket.decide(self.image).response
        return self._queue.submit(ticket)

    # -- snapshots -----------------------------------------------------------------------------

    def snapshot(self, *, rows: bool = False) -> SnapshotInfo:
        """Write the committed image as a snapshot now, on this thread (through the one
        snapshot writer), then delete log segments wholly below it if the retention policy
        says so. ``rows`` writes format 1 (one Avro row per record) instead of ACL columns."""
        return self.committer.snapshots.take(self.image, rows=rows)


def replay_log(directory: Path) -> MetadataImage:
    """The image after replaying every record of the log in ``directory``.

    All batches go into one delta that is applied once, so the cost is O(records), not
    O(records x batches).
    """
    return replay_batches(MetadataImage.EMPTY, read_decoded(directory)).image
