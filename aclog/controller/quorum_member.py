"""A writer when several controllers share one data directory: a
:class:`~aclog.controller.quorum.ControllerNode` driven by its own thread, behind the
:class:`~aclog.controller.writer.MetadataWriter` interface.

The thread ticks every :data:`TICK_SECONDS`: the active node heartbeats, a standby follows the
log and claims leadership when the active one falls silent for the election timeout. Writes go
through the same lock as the ticks, because a ControllerNode is not thread-safe; on a standby
they fail with NOT_CONTROLLER (41) and clients find the active node through :meth:`leader`.
The ``*_later`` forms run the same writes on a pool of ``workers`` threads (started on use), so
they commit in no set order.

Thread-safe. Cost: a standby's tick reads the recovery point and stats the log's tail, taking
no lock (plus the new batches, if any); the active node appends one fsynced no-op record per
heartbeat interval.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from typing import TypeVar

from aclog.acl import ApiError
from aclog.acl.filters import AclFilter
from aclog.controller.caller import Caller
from aclog.controller.quorum import (
    ControllerNode,
    refused_creates,
    refused_deletes,
    refused_scram,
)
from aclog.controller.quorum_state import QuorumState
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.result import AclCreateResult, AclDeleteResult, ScramAlterResult
from aclog.image import MetadataImage
from aclog.image.scram import ScramDescribeResult
from aclog.log import CorruptLogError, LogError, StorageError
from aclog.records import AccessControlEntryRecord, AclBinding

logger = logging.getLogger(__name__)
T = TypeVar("T")

_CLEARED: dict[type[LogError], str] = {
    CorruptLogError: "the log reads whole again (restored)",
}
"""What a node logs once a condition that stopped its ticks has cleared."""

TICK_SECONDS = 0.05
"""How often the controller thread ticks: a tenth of the default heartbeat interval."""


class QuorumMember:
    """One node's controller in a shared data directory. Call :meth:`start` once clients can
    reach it (the node announces its address when it wins an election), :meth:`close` last."""

    def __init__(self, node: ControllerNode, *, workers: int = 4) -> None:
        self.node = node
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._was_active = False
        # What stopped the last tick: the append lock held past its timeout, or damage to
        # what was acknowledged (no node appends behind it, none takes over until restored).
        self._blocked: type[LogError] | None = None
        self._writers = ThreadPoolExecutor(workers, thread_name_prefix="aclog-write")

    @property
    def image(self) -> MetadataImage:
        """The committed image this node's controller has replayed."""
        return self.node.controller.image

    @property
    def is_active(self) -> bool:
        return self.node.is_active

    @property
    def writes_in_order(self) -> bool:
        """False: the ``*_later`` writes run on a pool, in no set order."""
        return False

    def start(self, listener: str) -> None:
        """Start ticking; ``listener`` is the ``host:port`` clients are sent to when this node
        leads."""
        self.node.listener = listener
        self._thread = threading.Thread(target=self._run, name="aclog-controller", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(TICK_SECONDS):
            try:
                self._tick()
            except Exception:  # the thread must survive a bad tick
                logger.exception("controller tick failed; retrying")
            self._log_role_change()

    def _tick(self) -> None:
        """One heartbeat or election step. A storage failure is not logged here: the log's
        health (aclog.log.health) says it once per condition, where a tick every few hundred
        milliseconds would repeat it; a leader whose writer stopped steps down at its next tick.
        Damage to acknowledged batches (which stops every node: none appends behind it, so none
        takes over until the segment is restored) is one line when it starts and one when it
        clears, never a traceback per try."""
        try:
            with self._lock, suppress(StorageError):
                self.node.tick()
        except CorruptLogError as error:
            if self._blocked is not type(error):
                logger.error("node %d: %s; trying again", self.node.node_id, error)
            self._blocked = type(error)
            return
        if self._blocked is not None:
            cleared = _CLEARED[self._blocked]
            logger.warning("node %d: %s", self.node.node_id, cleared)
        self._blocked = None

    def _log_role_change(self) -> None:
        active = self.node.is_active
        if active != self._was_active:
            self._was_active = active
            epoch = self.node.controller.epoch
            if active:
                logger.info("node %d is the active controller (epoch %d)", self.node.node_id, epoch)
            else:
                logger.warning("node %d stepped down to standby", self.node.node_id)

    def leader(self) -> QuorumState | None:
        """The active controller as far as this node knows, ``None`` during an election."""
        return self.node.leader()

    def close(self) -> None:
        """Finish the writes under way, stop ticking, then release the log (a standby simply
        stops following)."""
        self._writers.shutdown(wait=True)
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        with self._lock:
            self.node.close()

    # -- writes: only the active node commits; a dry run decides on this node's image ---------

    def create_acls(
        self, acls: Sequence[AclBinding], caller: Caller = Caller(), *, dry_run: bool = False
    ) -> list[AclCreateResult]:
        if dry_run:
            with self._lock:
                return self.node.controller.create_acls(acls, caller, dry_run=True)
        return self._turn(
            lambda: self.node.create_acls(acls, caller), lambda: refused_creates(acls)
        )

    def delete_acls(
        self, filters: Sequence[AclFilter], caller: Caller = Caller(), *, dry_run: bool = False
    ) -> list[AclDeleteResult]:
        if dry_run:
            with self._lock:
                return self.node.controller.delete_acls(filters, caller, dry_run=True)
        return self._turn(
            lambda: self.node.delete_acls(filters, caller), lambda: refused_deletes(filters)
        )

    def alter_scram(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller = Caller(),
    ) -> list[ScramAlterResult]:
        return self._turn(
            lambda: self.node.alter_scram(upsertions, deletions, caller),
            lambda: refused_scram(upsertions, deletions),
        )

    def create_acls_later(
        self, acls: Sequence[AclBinding], caller: Caller = Caller()
    ) -> Future[list[AclCreateResult]]:
        return self._later(lambda: self.create_acls(acls, caller))

    def delete_acls_later(
        self, filters: Sequence[AclFilter], caller: Caller = Caller()
    ) -> Future[list[AclDeleteResult]]:
        return self._later(lambda: self.delete_acls(filters, caller))

    def alter_scram_later(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller = Caller(),
    ) -> Future[list[ScramAlterResult]]:
        return self._later(lambda: self.alter_scram(upsertions, deletions, caller))

    def _turn(self, write: Callable[[], T], refuse: Callable[[], T]) -> T:
        """``write()`` under the node's lock; ``refuse()`` (NOT_CONTROLLER) instead when
        another node is announced as the leader while this one waits for the lock: a
        controller thread stuck in an fsync on a stalled disk holds it, and the client is
        better sent to the new leader now than left to its request timeout."""
        while not self._lock.acquire(timeout=TICK_SECONDS):
            leader = self.node.leader()
            if leader is not None and leader.leader_id != self.node.node_id:
                return refuse()
        try:
            return write()
        finally:
            self._lock.release()

    def _later(self, write: Callable[[], T]) -> Future[T]:
        return self._writers.submit(write)

    # -- reads: this node's committed image ---------------------------------------------------

    def describe_acls(
        self, acl_filter: AclFilter, caller: Caller = Caller()
    ) -> tuple[ApiError, list[AccessControlEntryRecord]]:
        return self.node.controller.describe_acls(acl_filter, caller)

    def describe_scram(
        self, names: Sequence[str] | None, caller: Caller = Caller()
    ) -> tuple[ApiError, list[ScramDescribeResult]]:
        return self.node.controller.describe_scram(names, caller)
