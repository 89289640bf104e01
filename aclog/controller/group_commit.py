"""Group commit: how the requests queued while a commit ran become ONE append.

The leader of a group decides every ticket against the pending image the earlier ones leave,
appends their batches with one write and one fsync (conditional on the log ending where the
image ends), then advances the image, tells the commit listeners and the snapshot policy, and
answers. A failed append fails every request in the group: NOT_CONTROLLER (41) when a newer
epoch fenced this controller, KAFKA_STORAGE_ERROR (56) for a storage failure, with the log's
message (the OS error, the file, whether the write was undone or the writer stopped); the log
itself logs each storage condition once (:mod:`aclog.log.health`).

A component of :class:`~aclog.controller.controller.Controller` (held as its ``committer``):
it owns what a commit changes, the committed image, the epoch and the ``fenced`` flag, and the
only ways they change are a durable append of replayed records (:meth:`Committer.append_plan`)
and the replays and leader changes of :class:`~aclog.controller.leadership.Leadership`, which
holds this committer.

Thread-safe only under the controller's commit lock (the queue's leader holds it). Cost: O(records
of the group) plus one fsync.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from aclog.acl import ApiError, Errors
from aclog.controller.caller import Caller
from aclog.controller.group import GroupPlan, Ticket
from aclog.controller.snapshots import ControllerSnapshots
from aclog.image import MetadataImage
from aclog.log import DeposedError, FencedEpochError, LogError, SegmentedLog, StaleOffsetError
from aclog.log.errors import describe_os_error
from aclog.records import Record
from aclog.replay.batches import CommittedBatch

logger = logging.getLogger(__name__)

NOT_CONTROLLER = ApiError(Errors.NOT_CONTROLLER, "This controller is no longer the active one.")


def storage_failed(error: LogError | OSError) -> ApiError:
    """KAFKA_STORAGE_ERROR (56) saying what failed: the OS error and the file, and what the log
    did about it (never an empty UNKNOWN_SERVER_ERROR)."""
    message = str(error) if isinstance(error, LogError) else describe_os_error(error)
    return ApiError(Errors.KAFKA_STORAGE_ERROR, message)


class Committer:
    """The writer of one controller: decides groups of tickets, appends them, advances the
    committed image and tells the commit listeners and the snapshot policy."""

    def __init__(
        self,
        log: SegmentedLog,
        image: MetadataImage,
        clock: Callable[[], float],
        snapshots: ControllerSnapshots,
    ) -> None:
        self.log = log
        self.image = image
        self.epoch = max(log.latest_epoch, 0)
        self.fenced = False
        self.clock = clock
        self.snapshots = snapshots
        self.listeners: list[Callable[[Sequence[CommittedBatch]], object]] = []

    def commit_group(self, tickets: list[Ticket[Any]]) -> None:
        """Decide every ticket against the pending image, append the batches as one group,
        then advance the image and answer (the queue's leader runs this under the commit lock)."""
        plan = GroupPlan(self.image, self.epoch)
        for ticket in tickets:
            self._plan(plan, ticket)
        if not plan.batches:
            return
        try:
            self.append_plan(plan)
        except DeposedError as deposed:
            # A newer leader fenced this one during the group: what ends below its fence is
            # committed and answered; the rest never will be. The image catches up by replay.
            self.fenced = True
            plan.fail(NOT_CONTROLLER, committed=deposed.committed)
        except (FencedEpochError, StaleOffsetError):
            # A newer controller has written: this one is deposed and its image is stale.
            self.fenced = True
            plan.fail(NOT_CONTROLLER)
        except (LogError, OSError) as error:
            plan.fail(storage_failed(error))
        else:
            plan.publish()

    def _plan(self, plan: GroupPlan, ticket: Ticket[Any]) -> None:
        """Decide one ticket against the pending image and add its batch to the plan."""
        try:
            result = ticket.decide(plan.image)
            if not result.records:
                plan.answer(ticket, result.response)
                return
            timestamp_ms = int(self.clock() * 1000)
            plan.add(list(result.records), ticket.caller, timestamp_ms, (ticket, result.response))
        except Exception as error:
            # A bug in one request (e.g. a record that does not replay) fails only that request.
            ticket.fail(error)

    def append(self, records: list[Record], caller: Caller | None) -> None:
        """Append the controller's own records (or one request's) as a one-batch group."""
        plan = GroupPlan(self.image, self.epoch)
        plan.add(records, caller, int(self.clock() * 1000))
        self.append_plan(plan)

    def append_plan(self, plan: GroupPlan) -> None:
        """Append the plan's batches with one fsync, then advance the image to the plan's."""
        # Conditional on the log ending where this controller's image ends: if anyone else
        # appended meanwhile, the append fails instead of committing on a stale image.
        base = plan.base_offset
        if len(plan.batches) == 1:  # the same one-batch group, through the one-batch entry point
            (one,) = plan.batches
            self.log.append(
                one.values, one.epoch, timestamp_ms=one.timestamp_ms, expected_end_offset=base
            )
        else:
            self.log.append_batches(plan.batches, expected_end_offset=base)
        self.image = plan.image
        for listener in self.listeners:
            try:
                listener(plan.committed)
            except Exception:
                logger.exception(
                    "a commit listener failed on offsets %d-%d", base, plan.end_offset - 1
                )
        self.snapshots.committed(plan.size, self.image)
