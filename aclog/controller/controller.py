"""The controller: the only writer of a data directory's log.

It runs one operation at a time. An operation asks a control manager for records and per-item
results against the committed image (nothing changes yet), replays those records into a pending
delta (a failure there is a bug and surfaces as :class:`~aclog.image.ReplayError`), appends them as
ONE batch with the controller's epoch, led by a :class:`RequestContextRecord` naming who asked,
fsyncs, and only then advances its image and returns the results. A failed append leaves the
image untouched and fails every item of the request: NOT_CONTROLLER (41) when a newer epoch has
fenced this controller, UNKNOWN_SERVER_ERROR (-1) for an I/O failure.

Thread-safe: operations are serialized by a lock; :attr:`Controller.image` is an immutable image
swapped whole after each commit. Cost: an operation is O(records) plus one fsync.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from aclog.authorizer.filters import AclFilter
from aclog.controller.acl_manager import AclControlManager
from aclog.controller.authorization import ClusterAuthorizer, check_cluster_access
from aclog.controller.rebuild import rebuild_image
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.result import (
    AclCreateResult,
    AclDeleteResult,
    ControllerResult,
    ScramAlterResult,
)
from aclog.controller.scram_manager import ScramControlManager
from aclog.image import (
    ApiError,
    Errors,
    MetadataDelta,
    MetadataImage,
    MetadataProvenance,
    image_records,
)
from aclog.image.scram import ScramDescribeResult
from aclog.image.stream import read_decoded
from aclog.log import FencedEpochError, LogError, SegmentedLog, StaleOffsetError
from aclog.records import (
    AccessControlEntryRecord,
    AclBinding,
    AclOperation,
    LeaderChangeRecord,
    NoOpRecord,
    Record,
    RequestContextRecord,
    encode,
)
from aclog.snapshot import (
    RetentionPolicy,
    SnapshotInfo,
    SnapshotPolicy,
    remove_stale_temp_files,
    write_snapshot,
)

T = TypeVar("T")
logger = logging.getLogger(__name__)

NOT_CONTROLLER = ApiError(Errors.NOT_CONTROLLER, "This controller is no longer the active one.")
STORAGE_FAILED = ApiError(Errors.UNKNOWN_SERVER_ERROR, None)


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sends a request: recorded with every change it commits."""

    principal: str = "User:ANONYMOUS"
    client_address: str = "local"
    client_id: str = "aclog"
    api: str | None = None


class LocalOperator:
    """The authorizer of a command run directly on a data directory: the operator who can write
    the directory administers it, so every cluster operation is allowed (a super user)."""

    def authorize_cluster(self, principal: str, host: str, operation: AclOperation) -> bool:
        del principal, host, operation
        return True


class Controller:
    """Validates and commits ACL and SCRAM mutations to one log, one operation at a time."""

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
        on_warning: Callable[[str], None] = logger.warning,
        bootstrap: bool = True,
    ) -> None:
        self.log = log
        self.node_id = node_id
        self.authorizer = authorizer
        self.clock = clock
        self.acl_manager = acl_manager or AclControlManager()
        self.scram_manager = ScramControlManager()
        self.snapshot_policy = snapshot_policy
        self.retention = retention or RetentionPolicy()
        self._lock = threading.Lock()
        self.fenced = False
        remove_stale_temp_files(log.directory)
        rebuilt = rebuild_image(log.directory, at_offset=log.end_offset - 1, on_warning=on_warning)
        self.image = rebuilt.image
        self._bytes_since_snapshot = 0
        self._last_snapshot_time = clock()
        self.epoch = max(log.latest_epoch, 0)
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
        """Release the log and its writer lock."""
        self.log.close()

    def __enter__(self) -> Controller:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _bootstrap(self) -> None:
        """A new log starts with this controller taking leadership for epoch 1."""
        self.epoch = 1
        self._append([LeaderChangeRecord(self.node_id, self.epoch)], None)

    # -- operations ----------------------------------------------------------------------------

    def create_acls(
        self, acls: Sequence[AclBinding], caller: Caller = Caller(), *, dry_run: bool = False
    ) -> list[AclCreateResult]:
        """CreateAcls: one result per binding, in request order."""
        with self._lock:
            denied = self._check(caller, AclOperation.ALTER, acl_api=True)
            if denied is not None:
                return [AclCreateResult(denied) for _ in acls]
            result = self.acl_manager.create_acls(self.image.acls, acls)
            return self._commit(result, caller, dry_run, lambda e: [AclCreateResult(e)] * len(acls))

    def delete_acls(
        self, filters: Sequence[AclFilter], caller: Caller = Caller(), *, dry_run: bool = False
    ) -> list[AclDeleteResult]:
        """DeleteAcls: one result per filter, in request order, each with the ACLs it removed."""
        with self._lock:
            denied = self._check(caller, AclOperation.ALTER, acl_api=True)
            if denied is not None:
                return [AclDeleteResult(denied) for _ in filters]
            result = self.acl_manager.delete_acls(self.image.acls, filters)
            return self._commit(
                result, caller, dry_run, lambda e: [AclDeleteResult(e)] * len(filters)
            )

    def describe_acls(
        self, acl_filter: AclFilter, caller: Caller = Caller()
    ) -> tuple[ApiError, list[AccessControlEntryRecord]]:
        """DescribeAcls: the committed ACLs the filter matches, in commit order."""
        denied = self._check(caller, AclOperation.DESCRIBE, acl_api=True)
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
        with self._lock:
            users = list(dict.fromkeys([d.name for d in deletions] + [u.name for u in upsertions]))
            denied = self._check(caller, AclOperation.ALTER, acl_api=False)
            if denied is not None:
                return [ScramAlterResult(user, denied) for user in users]
            result = self.scram_manager.alter(self.image.scram, upsertions, deletions)
            return self._commit(
                result, caller, False, lambda e: [ScramAlterResult(u, e) for u in users]
            )

    def describe_scram(
        self, names: Sequence[str] | None, caller: Caller = Caller()
    ) -> tuple[ApiError, list[ScramDescribeResult]]:
        """DescribeUserScramCredentials over the committed image."""
        denied = self._check(caller, AclOperation.DESCRIBE, acl_api=False)
        if denied is not None:
            return denied, []
        return ApiError.NONE, self.image.scram.describe(names)

    # -- commit --------------------------------------------------------------------------------

    def _check(self, caller: Caller, operation: AclOperation, *, acl_api: bool) -> ApiError | None:
        return check_cluster_access(
            self.authorizer, caller.principal, caller.client_address, operation, acl_api=acl_api
        )

    def _commit(
        self,
        result: ControllerResult[T],
        caller: Caller,
        dry_run: bool,
        failed: Callable[[ApiError], T],
    ) -> T:
        if not result.records or dry_run:
            return result.response
        try:
            self._append(list(result.records), caller)
        except (FencedEpochError, StaleOffsetError):
            # A newer controller has written: this one is deposed and its image is stale.
            self.fenced = True
            return failed(NOT_CONTROLLER)
        except (LogError, OSError):
            return failed(STORAGE_FAILED)
        return result.response

    def _append(self, records: list[Record], caller: Caller | None) -> None:
        """Replay into a pending delta, append as one fsynced batch, then advance the image."""
        timestamp_ms = int(self.clock() * 1000)
        if caller is not None:
            context = RequestContextRecord(
                caller.principal, caller.client_address, caller.client_id, timestamp_ms, caller.api
            )
            records = [context, *records]
        delta = MetadataDelta(self.image)
        base = self.image.provenance.last_offset + 1
        for i, record in enumerate(records):
            delta.replay(record, base + i)
        values = [encode(r) for r in records]
        # Conditional on the log ending where this controller's image ends: if anyone else
        # appended meanwhile, the append fails instead of committing on a stale image.
        appended = self.log.append(
            values, self.epoch, timestamp_ms=timestamp_ms, expected_end_offset=base
        )
        provenance = MetadataProvenance(appended.last_offset, self.epoch, timestamp_ms)
        self.image = delta.apply(provenance)
        self._bytes_since_snapshot += sum(len(v) for v in values)
        self._maybe_snapshot()

    # -- following and leading (several controllers on one log) ---------------------------------

    def catch_up(self) -> int:
        """Replay batches other controllers committed since this image; returns how many.

        Used by a standby, and by a deposed controller before it serves again. If the log now
        ends before the image (it was truncated), the image is rebuilt from the log.
        """
        with self._lock:
            self.log.refresh_view()
            start = self.image.provenance.last_offset + 1
            if self.log.end_offset < start:
                self.image = rebuild_image(self.log.directory).image
                return 0
            delta, last, count = MetadataDelta(self.image), None, 0
            for batch in read_decoded(self.log.directory, start):
                delta.replay_records(batch.records, batch.base_offset)
                last, count = batch, count + 1
            if last is not None:
                provenance = MetadataProvenance(last.last_offset, last.epoch, last.timestamp_ms)
                self.image = delta.apply(provenance)
            return count

    def claim_leadership(self) -> bool:
        """Append a leader-change record for the next epoch, conditional on the log ending
        where this image ends; True when this controller won and is now active."""
        with self._lock:
            epoch = max(self.log.latest_epoch, self.image.provenance.epoch, self.epoch) + 1
            previous = self.epoch
            self.epoch = epoch
            try:
                self._append([LeaderChangeRecord(self.node_id, epoch)], None)
            except (FencedEpochError, StaleOffsetError):
                self.epoch = previous
                return False
            self.fenced = False
            return True

    def still_leading(self) -> bool:
        """True when nobody else has written since this controller's last commit (checked
        against the log itself, so a controller that was paused learns it was deposed before
        it answers anything from its stale image)."""
        with self._lock:
            self.log.refresh_view()
            stale = (
                self.log.latest_epoch > self.epoch
                or self.log.end_offset != self.image.provenance.last_offset + 1
            )
            if stale:
                self.fenced = True
            return not stale

    def heartbeat(self) -> bool:
        """Append a no-op record so standbys see the active controller alive; False when this
        controller turned out to be deposed."""
        with self._lock:
            try:
                self._append([NoOpRecord()], None)
            except (FencedEpochError, StaleOffsetError):
                self.fenced = True
                return False
            return True

    # -- snapshots -----------------------------------------------------------------------------

    def _maybe_snapshot(self) -> None:
        policy = self.snapshot_policy
        if policy is not None and policy.due(self._bytes_since_snapshot, self._last_snapshot_time):
            try:
                self.snapshot()
            except OSError as error:
                # The commit already succeeded; a failed snapshot only delays the next one.
                logger.warning("snapshot at offset %s failed: %s", self.image.provenance, error)

    def snapshot(self) -> SnapshotInfo:
        """Write the committed image as a snapshot (through the one snapshot writer), then
        delete log segments wholly below it if the retention policy says so."""
        provenance = self.image.provenance
        info = write_snapshot(
            self.log.directory,
            image_records(self.image),
            last_offset=provenance.last_offset,
            epoch=max(provenance.epoch, 0),
            timestamp_ms=provenance.timestamp_ms,
        )
        self._bytes_since_snapshot = 0
        self._last_snapshot_time = self.clock()
        below = self.retention.delete_below(info.last_offset)
        if below is not None:
            self.log.delete_segments_below(below)
        return info


def replay_log(directory: Path) -> MetadataImage:
    """The image after replaying every record of the log in ``directory``.

    All batches go into one delta that is applied once, so the cost is O(records), not
    O(records x batches).
    """
    image = MetadataImage.EMPTY
    delta = MetadataDelta(image)
    last = None
    for batch in read_decoded(directory):
        delta.replay_records(batch.records, batch.base_offset)
        last = batch
    if last is None:
        return image
    return delta.apply(MetadataProvenance(last.last_offset, last.epoch, last.timestamp_ms))
