"""Group commit: requests that queue up while a commit runs are committed together.

Each mutation becomes a :class:`Ticket` on a :class:`CommitQueue`. The thread that next holds
the commit lock (the leader) drains every queued ticket and commits them in arrival order; the
others (followers) find their ticket done when they get the lock and never write. A
:class:`GroupPlan` decides the tickets one after another against a *pending* image that includes
the records of the earlier tickets, so the group answers exactly as the same requests run one
after the other would; each ticket with records becomes its own batch of one group append.

A caller that must not block (the listener's event loop) :meth:`~CommitQueue.enqueue` s its
ticket instead and gets a future: the queue's commit thread leads for it, so a group's requests
cost one thread wake-up between them, not one each, and no thread waits on the commit lock.

Thread-safe: the queue has its own lock; plans and tickets are touched only by the leader while
it holds the commit lock, and a ticket's outcome is read by its owner only after that. Cost: a
ticket is O(its records) plus its share of one write and one fsync per group.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from aclog.acl import ApiError
from aclog.controller.result import ControllerResult
from aclog.image import MetadataImage
from aclog.log import BatchSpec
from aclog.records import Record, RequestContextRecord, encode_many
from aclog.replay.batches import CommittedBatch, replay_batches

if TYPE_CHECKING:
    from aclog.controller.caller import Caller

T = TypeVar("T")


class Ticket(Generic[T]):
    """One request waiting for the group commit that carries it.

    ``decide`` turns a (pending) image into the request's records and response without changing
    anything; ``failed`` is the response that answers every item with one error. ``future`` is
    ``None`` unless :meth:`CommitQueue.enqueue` set it; it then receives the outcome as well.
    """

    def __init__(
        self,
        decide: Callable[[MetadataImage], ControllerResult[T]],
        caller: Caller,
        failed: Callable[[ApiError], T],
    ) -> None:
        self.decide = decide
        self.caller = caller
        self.failed = failed
        self.future: Future[T] | None = None
        self.done = False
        self._response: T | None = None
        self._error: BaseException | None = None

    def finish(self, response: T) -> None:
        self._response, self.done = response, True
        if self.future is not None:
            self.future.set_result(response)

    def fail(self, error: BaseException) -> None:
        """The request raised (a bug such as a replay failure): its caller gets the exception."""
        self._error, self.done = error, True
        if self.future is not None:
            self.future.set_exception(error)

    def outcome(self) -> T:
        if self._error is not None:
            raise self._error
        return self._response  # type: ignore[return-value]


class CommitQueue:
    """The tickets waiting for a commit, the commit lock their leader holds, and the thread
    that leads for enqueued tickets (started on first use)."""

    def __init__(self, commit_lock: threading.Lock, commit: Callable[[list[Ticket[Any]]], None]):
        self.commit_lock = commit_lock
        self._commit = commit
        self._queue_lock = threading.Lock()
        self._queued = threading.Condition(self._queue_lock)
        self._queue: list[Ticket[Any]] = []
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, ticket: Ticket[T]) -> T:
        """Queue ``ticket``; commit it (and whatever queued with it) unless a leader already
        did while this thread waited for the lock. Returns the ticket's response."""
        with self._queue_lock:
            self._queue.append(ticket)
        with self.commit_lock:
            if not ticket.done:
                self._lead()
        return ticket.outcome()

    def enqueue(self, ticket: Ticket[T]) -> Future[T]:
        """Queue ``ticket`` for the commit thread and return at once; the ticket's future
        completes once its group is durable (or failed)."""
        future: Future[T] = Future()
        future.set_running_or_notify_cancel()  # a commit under way cannot be called off
        ticket.future = future
        with self._queue_lock:
            if self._closed:
                raise RuntimeError("the controller is closed")
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._lead_enqueued, name="aclog-commit", daemon=True
                )
                self._thread.start()
            self._queue.append(ticket)
            self._queued.notify()
        return future

    def close(self) -> None:
        """Commit what is queued, then stop the commit thread; later enqueues raise."""
        with self._queue_lock:
            self._closed = True
            self._queued.notify()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _lead_enqueued(self) -> None:
        while True:
            with self._queue_lock:
                while not self._queue and not self._closed:
                    self._queued.wait()
                if not self._queue:
                    return
            with self.commit_lock:
                self._lead()

    def _lead(self) -> None:
        with self._queue_lock:
            group, self._queue = self._queue, []
        try:
            self._commit(group)
        except BaseException as error:
            # Never leave a follower without an answer: an unexpected failure is everyone's.
            for ticket in group:
                if not ticket.done:
                    ticket.fail(error)


class GroupPlan:
    """The batches a group will append and the pending image after them.

    ``answers`` holds the responses to give once the group is durable; a ticket decided before
    any batch of the group depends on nothing uncommitted and is answered at once instead.
    """

    def __init__(self, image: MetadataImage, epoch: int) -> None:
        self.image = image
        self.epoch = epoch
        self.base_offset = image.provenance.last_offset + 1
        self.batches: list[BatchSpec] = []
        self.committed: list[CommittedBatch] = []
        self.answers: list[tuple[Ticket[Any], Any]] = []
        self._starts: list[int] = []  # how many answers precede each batch's own

    @property
    def end_offset(self) -> int:
        return self.image.provenance.last_offset + 1

    def answer(self, ticket: Ticket[T], response: T) -> None:
        """A ticket with no records: answered now, or with the group if it saw pending state."""
        if self.batches:
            self.answers.append((ticket, response))
        else:
            ticket.finish(response)

    def add(
        self,
        records: list[Record],
        caller: Caller | None,
        timestamp_ms: int,
        answer: tuple[Ticket[Any], Any] | None = None,
    ) -> None:
        """Replay one batch (led by ``caller``'s context) into the pending image.

        A replay failure raises and leaves the plan as it was.
        """
        if caller is not None:
            context = RequestContextRecord(
                caller.principal, caller.client_address, caller.client_id, timestamp_ms, caller.api
            )
            records = [context, *records]
        batch = CommittedBatch(self.end_offset, self.epoch, timestamp_ms, tuple(records))
        self.image = replay_batches(self.image, [batch]).image
        self.batches.append(BatchSpec(encode_many(records), self.epoch, timestamp_ms))
        self._starts.append(len(self.answers))
        self.committed.append(batch)
        if answer is not None:
            self.answers.append(answer)

    def publish(self) -> None:
        """The group is durable: give every waiting ticket its response."""
        for ticket, response in self.answers:
            ticket.finish(response)

    def fail(self, error: ApiError, *, committed: int = 0) -> None:
        """The group append failed after its first ``committed`` batches: the tickets answered
        by them (and those that saw only their state) get their responses, every other waiting
        ticket fails as one failed request does."""
        first = self._starts[committed] if committed < len(self._starts) else len(self.answers)
        for ticket, response in self.answers[:first]:
            ticket.finish(response)
        for ticket, _ in self.answers[first:]:
            ticket.finish(ticket.failed(error))

    @property
    def size(self) -> int:
        return sum(len(v) for batch in self.batches for v in batch.values)
