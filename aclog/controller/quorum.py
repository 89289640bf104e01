"""Several controllers on one data directory: one active, the others standing by.

The shared log stands in for KRaft's replicated log. The active controller heartbeats (a no-op
record every ``heartbeat_ms``); a standby that sees the log stand still for the election timeout
takes the log over for the next epoch (an exclusive claim, a fence, a segment of its own: no
lock, README "Epoch fencing"), so two standbys cannot both win one epoch and a frozen leader
holds up nobody. A deposed controller that wakes up finds its epoch fenced: everything it tries
fails with NOT_CONTROLLER (41) and it steps down to standby, catching up before it may claim
again.

Time comes from the injected ``clock`` (seconds), so tests drive heartbeats and elections with a
fake clock. Not thread-safe: one thread calls :meth:`ControllerNode.tick` and the operations
(the server runs both on its controller thread). Cost of a standby's tick: a small read of the
recovery point and two ``stat`` calls, with no lock, plus the new batches when there are some.
"""

from __future__ import annotations

import enum
import logging
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from aclog.acl.filters import AclFilter
from aclog.controller.authorization import ClusterAuthorizer
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller
from aclog.controller.group_commit import NOT_CONTROLLER
from aclog.controller.quorum_state import QuorumState, QuorumStateFile
from aclog.controller.quorum_timing import DEFAULT_ELECTION_TIMEOUT_MS, DEFAULT_HEARTBEAT_MS
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.result import AclCreateResult, AclDeleteResult, ScramAlterResult
from aclog.log import SegmentedLog
from aclog.records import AclBinding
from aclog.snapshot import SnapshotPolicy

logger = logging.getLogger(__name__)


class Role(enum.Enum):
    """Whether a controller may write."""

    ACTIVE = "active"
    STANDBY = "standby"


class ControllerNode:
    """One controller process's view: a :class:`Controller` plus its role and timers.

    ``listener`` (``host:port``) is where this node serves Kafka clients; on winning an election
    the node records it in the directory's ``quorum-state`` file so the other nodes can send
    clients there (see :meth:`leader`).
    """

    def __init__(
        self,
        directory: Path | str,
        node_id: int,
        *,
        clock: Callable[[], float] = time.time,
        heartbeat_ms: int = DEFAULT_HEARTBEAT_MS,
        election_timeout_ms: int = DEFAULT_ELECTION_TIMEOUT_MS,
        authorizer: ClusterAuthorizer | None = None,
        fsync: bool = True,
        listener: str | None = None,
        snapshot_policy: SnapshotPolicy | None = None,
    ) -> None:
        self.node_id = node_id
        self.clock = clock
        self.heartbeat_s = heartbeat_ms / 1000
        self.election_timeout_s = election_timeout_ms / 1000
        self.listener = listener
        log = SegmentedLog(directory, shared=True, clock=clock, fsync=fsync)
        try:
            self.controller = Controller(
                log,
                node_id=node_id,
                authorizer=authorizer,
                clock=clock,
                snapshot_policy=snapshot_policy,
                bootstrap=False,
            )
        except BaseException:
            log.close()
            raise
        self.quorum_state = QuorumStateFile(log.directory)
        self.role = Role.STANDBY
        self._last_write = clock()
        self._last_progress = self._last_heard()

    def _last_heard(self) -> float:
        """When the log last moved: its newest batch's time, so a node that starts on a log
        nobody has written to for an election timeout (or an empty one) claims at once
        instead of waiting a full timeout for a leader that is not there."""
        timestamp_ms = self.controller.image.provenance.timestamp_ms
        if timestamp_ms < 0:
            return -math.inf
        return min(self.clock(), timestamp_ms / 1000)

    @property
    def is_active(self) -> bool:
        return self.role is Role.ACTIVE

    def tick(self) -> None:
        """Heartbeat when active; follow the log and maybe claim leadership when standing by."""
        now = self.clock()
        if self.role is Role.ACTIVE:
            if self.controller.fenced:
                self._step_down(now)
            elif now - self._last_write >= self.heartbeat_s:
                if self.controller.heartbeat():
                    self._last_write = now
                else:
                    self._step_down(now)
            return
        if self.controller.catch_up():
            self._last_progress = now
        if now - self._last_progress >= self.election_timeout_s:
            self._last_progress = now
            if self.controller.claim_leadership():
                self.role, self._last_write = Role.ACTIVE, now
                self._announce()

    def _announce(self) -> None:
        """Tell the other nodes where clients reach the new leader. The leadership itself is
        already durable; if the file cannot be written they just cannot redirect clients."""
        state = QuorumState(self.node_id, self.controller.epoch, self.listener)
        try:
            self.quorum_state.write(state)
        except OSError as error:
            logger.warning("could not write %s: %s", self.quorum_state.path, error)

    def leader(self) -> QuorumState | None:
        """The active controller as far as this node knows: itself when active (unless the
        ``quorum-state`` file names a newer epoch's leader); otherwise that file when it speaks
        for the newest epoch this node has seen in the log; ``None`` while an election is
        pending. Cost: one ``stat`` (the file's content is cached)."""
        if self.role is Role.ACTIVE:
            announced = self.quorum_state.read()
            if announced is not None and announced.epoch > self.controller.epoch:
                # Deposed while its controller thread cannot find out (stuck in an fsync on a
                # stalled disk): send clients to the newer leader, not into a write timeout.
                return announced
            return QuorumState(self.node_id, self.controller.epoch, self.listener)
        return self.quorum_state.current(self.controller.newest_epoch_seen())

    def _step_down(self, now: float) -> None:
        self.role = Role.STANDBY
        self._last_progress = now
        self.controller.catch_up()

    def close(self) -> None:
        self.controller.close()

    # -- operations: only the active controller serves them -------------------------------------

    def _serving(self) -> bool:
        if self.role is Role.ACTIVE and not self.controller.still_leading():
            self._step_down(self.clock())
        return self.role is Role.ACTIVE

    def _after(self) -> None:
        if self.controller.fenced:
            self._step_down(self.clock())
        else:
            self._last_write = self.clock()

    def create_acls(self, acls: Sequence[AclBinding], caller: Caller) -> list[AclCreateResult]:
        if not self._serving():
            return refused_creates(acls)
        results = self.controller.create_acls(acls, caller)
        self._after()
        return results

    def delete_acls(self, filters: Sequence[AclFilter], caller: Caller) -> list[AclDeleteResult]:
        if not self._serving():
            return refused_deletes(filters)
        results = self.controller.delete_acls(filters, caller)
        self._after()
        return results

    def alter_scram(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller,
    ) -> list[ScramAlterResult]:
        if not self._serving():
            return refused_scram(upsertions, deletions)
        results = self.controller.alter_scram(upsertions, deletions, caller)
        self._after()
        return results


# -- what a node that does not lead answers to each write --------------------------------------


def refused_creates(acls: Sequence[AclBinding]) -> list[AclCreateResult]:
    return [AclCreateResult(NOT_CONTROLLER) for _ in acls]


def refused_deletes(filters: Sequence[AclFilter]) -> list[AclDeleteResult]:
    return [AclDeleteResult(NOT_CONTROLLER) for _ in filters]


def refused_scram(
    upsertions: Sequence[ScramUpsertion], deletions: Sequence[ScramDeletion]
) -> list[ScramAlterResult]:
    users = dict.fromkeys([d.name for d in deletions] + [u.name for u in upsertions])
    return [ScramAlterResult(user, NOT_CONTROLLER) for user in users]
