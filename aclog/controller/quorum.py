"""Several controllers on one data directory: one active, the others standing by.

The shared log stands in for KRaft's replicated log. The active controller heartbeats (a no-op
record every ``heartbeat_ms``); a standby that sees the log stand still for the election timeout
claims leadership by appending a leader-change record for the next epoch with a compare-and-
append, so two standbys cannot both win one epoch. A deposed controller that wakes up finds its
epoch fenced by the log: everything it tries fails with NOT_CONTROLLER (41) and it steps down to
standby, catching up before it may claim again.

Time comes from the injected ``clock`` (seconds), so tests drive heartbeats and elections with a
fake clock. Not thread-safe: one thread calls :meth:`ControllerNode.tick` and the operations
(the server runs both on its controller thread). Cost of a tick: a stat of the log tail, plus
the new batches when there are some.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from aclog.authorizer.filters import AclFilter
from aclog.controller.authorization import ClusterAuthorizer
from aclog.controller.controller import NOT_CONTROLLER, Caller, Controller
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.result import AclCreateResult, AclDeleteResult, ScramAlterResult
from aclog.log import SegmentedLog
from aclog.records import AclBinding

DEFAULT_HEARTBEAT_MS = 500
DEFAULT_ELECTION_TIMEOUT_MS = 2000


class Role(enum.Enum):
    """Whether a controller may write."""

    ACTIVE = "active"
    STANDBY = "standby"


class ControllerNode:
    """One controller process's view: a :class:`Controller` plus its role and timers."""

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
    ) -> None:
        self.node_id = node_id
        self.clock = clock
        self.heartbeat_s = heartbeat_ms / 1000
        self.election_timeout_s = election_timeout_ms / 1000
        log = SegmentedLog(directory, shared=True, clock=clock, fsync=fsync)
        self.controller = Controller(
            log, node_id=node_id, authorizer=authorizer, clock=clock, bootstrap=False
        )
        self.role = Role.STANDBY
        self._last_write = self._last_progress = clock()

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
            return [AclCreateResult(NOT_CONTROLLER) for _ in acls]
        results = self.controller.create_acls(acls, caller)
        self._after()
        return results

    def delete_acls(self, filters: Sequence[AclFilter], caller: Caller) -> list[AclDeleteResult]:
        if not self._serving():
            return [AclDeleteResult(NOT_CONTROLLER) for _ in filters]
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
            users = dict.fromkeys([d.name for d in deletions] + [u.name for u in upsertions])
            return [ScramAlterResult(user, NOT_CONTROLLER) for user in users]
        results = self.controller.alter_scram(upsertions, deletions, caller)
        self._after()
        return results
