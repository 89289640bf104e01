"""One client connection: read frames, answer them in order, and never let one client hurt the
others.

Two tasks per connection. The reader (:class:`~aclog.wire.intake.Intake`) reads frames within
the connection's bounds and the server-wide pool (:mod:`aclog.wire.budget`) and queues them.
The processor answers queued frames in order, on a worker thread
(:func:`aclog.wire.dispatch.process`; small reads are answered on the event loop, and a write
queues its commit from the loop, holding no thread) and hands the responses to the socket,
giving back the frames' requests and bytes as it does. A client that does not take its
answers is not kept in memory: the kernel buffers at most ``socket_send_buffer_bytes`` for it,
and past ``max_unsent_bytes_per_connection`` more the connection is muted (neither read nor
answered, holding only what it already had) until the client reads; it is closed when that
takes longer than ``write_timeout``.

Writes sent back to back are not answered one commit at a time: while a write's commit is
pending, a following write is queued behind it (the commit queue keeps their order, and each
is validated against the ones before it), so one connection's writes can share an fsync.
Anything else waits until every write before it is answered, so it sees them. Answers leave
in request order, those completed together in one socket write. A write is authorized against
the ACLs published when it is read, which need not include the writes still pending ahead of
it on its connection: a Kafka broker, too, authorizes against its current metadata image. The
intake closes the connection on a bad size, too many frames before a login, a slow sender or
an idle client; so does the :class:`~aclog.wire.outlet.Outlet` on a slow reader. Every close is
logged with why.

Used from the event loop only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from aclog.node import Node
from aclog.wire.budget import Budget, Usage
from aclog.wire.config import ServerConfig
from aclog.wire.context import Session
from aclog.wire.dispatch import Outcome, Pending, process, queues_commit
from aclog.wire.errors import Offload
from aclog.wire.event_log import EventLog
from aclog.wire.intake import End, Intake
from aclog.wire.outlet import Outlet


@dataclass(frozen=True, slots=True)
class _Committed:
    """Queued to the processor when a queued write's commit completes."""


_COMMITTED = _Committed()


@dataclass(frozen=True, slots=True)
class _Frame:
    payload: bytes


class Listener(Protocol):
    """What a connection needs of the listener that accepted it (the server): its
    configuration, the node it serves, the worker threads, the shared request-byte pool and
    the log of connection events."""

    config: ServerConfig
    node: Node
    executor: ThreadPoolExecutor
    budget: Budget
    events: EventLog


class Connection:
    """Serves one accepted socket until it closes or the server stops."""

    def __init__(
        self,
        server: Listener,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        connection_id: str,
        client_host: str,
    ) -> None:
        self.server = server
        self.session = Session.start(connection_id, client_host, server.config.security_protocol)
        limits = server.config.limits
        self.usage = Usage(
            limits.connection_buffered_bytes,
            limits.max_in_flight_per_connection,
            limits.connection_reserved_bytes,
        )
        self._queue: asyncio.Queue[_Frame | End | _Committed] = asyncio.Queue()
        self._intake = Intake(reader, self.session, limits, server.budget, self.usage, self._take)
        self._outlet = Outlet(writer, limits, self._intake)
        self._answers: deque[tuple[Outcome, int]] = deque()
        """Answers not yet sent, in request order, with their frames' sizes."""
        self._loop = asyncio.get_running_loop()
        self._wake_queued = False
        self._stopping = False
        self._reader_task: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        """``<id> from <host>`` for log lines."""
        return f"{self.session.connection_id} from {self.session.client_host}"

    def stop(self) -> None:
        """Stop reading; the request being answered is finished, queued ones are dropped."""
        self._stopping = True
        if self._reader_task is not None:
            self._reader_task.cancel()
        self._queue.put_nowait(End("the server is shutting down", logging.INFO))

    async def run(self) -> None:
        """Serve the connection; returns once it is closed."""
        self._note(logging.DEBUG, "opened")
        self._reader_task = asyncio.create_task(self._read_loop())
        end = End("the connection ended", logging.DEBUG)
        try:
            end = await self._process_loop()
        finally:
            self._reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader_task
            self._drop_queued()
            self._note(end.level, f"closed: {end.reason}")
            await self._outlet.close(end.abort)
            self._intake.forget_error()

    def _note(self, level: int, event: str) -> None:
        """Log ``event`` (``closed: why``) within the bounds on its client address."""
        line = f"connection {self.name} {event}"
        self.server.events.note(self.session.client_host, level, line, event)

    # -- reading ---------------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        self._queue.put_nowait(await self._intake.run())

    def _take(self, payload: bytes) -> None:
        self._queue.put_nowait(_Frame(payload))

    # -- answering -------------------------------------------------------------------------------

    async def _process_loop(self) -> End:
        while not self._stopping:
            item = await self._queue.get()
            if isinstance(item, _Committed):
                self._wake_queued = False
                end = await self._write_answered()
            elif isinstance(item, End):
                return await self._write_all() or item
            else:
                end = await self._answer(item.payload)
            if end is not None:
                return end
        return await self._write_all() or End("the server is shutting down", logging.INFO)

    async def _answer(self, payload: bytes) -> End | None:
        """Process one frame and queue its answer behind the ones not yet sent."""
        server = self.server
        was_authenticated = self.session.authenticated
        try:
            if self._answers and not self._queues_behind(payload):
                # Anything but another write must see the writes before it: answer them first.
                end = await self._write_all()
                if end is not None:
                    server.budget.release(self.usage, len(payload))
                    return end
            outcome = self._answer_on_loop(payload)
            if outcome is None:
                outcome = await self._loop.run_in_executor(
                    server.executor, process, server.node, self.session, payload
                )
        except BaseException:
            server.budget.release(self.usage, len(payload))
            raise
        if self.session.authenticated and not was_authenticated:
            mechanism = self.session.mechanism
            how = mechanism.mechanism_name if mechanism else "SASL"
            self._note(logging.INFO, f"logged in as {self.session.principal} ({how})")
        self._answers.append((outcome, len(payload)))
        pending = outcome.pending
        if pending is None or pending.commit.done():
            return await self._write_answered()
        if not server.node.writes_in_order:
            return await self._write_all()
        # Its answer is written once the commit completes; meanwhile the next write may queue.
        pending.commit.add_done_callback(self._committed)
        return None

    def _queues_behind(self, payload: bytes) -> bool:
        """Whether this frame is a write that may be queued before the writes ahead of it have
        committed: they commit in order, each validated against the ones before it."""
        return self.session.authenticated and queues_commit(payload)

    def _committed(self, _commit: Future[Any]) -> None:
        """On the committing thread: wake the processor to send the answers now ready. A
        group completes many answers at once; one wake-up (a syscall) serves them all."""
        if self._wake_queued:
            return  # the processor clears the flag before it looks at the commits
        self._wake_queued = True
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody to answer
            self._loop.call_soon_threadsafe(self._queue.put_nowait, _COMMITTED)

    async def _write_answered(self) -> End | None:
        """Send the answers, oldest first, whose commits have completed: together, as one
        write (a group commit completes many at once)."""
        answers = self._answers
        ready: list[Outcome] = []
        size = 0
        while answers:
            outcome, frame_size = answers[0]
            pending = outcome.pending
            if pending is not None:
                if not pending.commit.done():
                    break
                outcome = await self._finish(pending)
            answers.popleft()
            ready.append(outcome)
            size += frame_size
            if outcome.close_reason is not None:
                break
        if not ready:
            return None
        # Given back before the write can wait: a client that does not read holds no more.
        self.server.budget.release(self.usage, size, len(ready))
        return await self._outlet.write(ready)

    async def _finish(self, pending: Pending) -> Outcome:
        """A completed write's answer: rendered here, or on a worker thread when large."""
        if not pending.heavy():
            return pending.finish(pending.commit)
        server = self.server
        return await self._loop.run_in_executor(server.executor, pending.finish, pending.commit)

    async def _write_all(self) -> End | None:
        """Wait for every queued answer's commit and send them all, in order."""
        while self._answers:
            pending = self._answers[0][0].pending
            if pending is not None and not pending.commit.done():
                with contextlib.suppress(Exception):  # finish() answers a failed commit
                    await asyncio.wrap_future(pending.commit)
            end = await self._write_answered()
            if end is not None:
                return end
        return None

    def _answer_on_loop(self, payload: bytes) -> Outcome | None:
        """The outcome if the request is cheap enough to answer right here (see
        :mod:`aclog.wire.dispatch`), else ``None``: it goes to a worker thread."""
        try:
            return process(self.server.node, self.session, payload, on_loop=True)
        except Offload:
            return None

    def _drop_queued(self) -> None:
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if isinstance(item, _Frame):
                self.server.budget.release(self.usage, len(item.payload))
        while self._answers:  # their commits stand; the client is gone or the server stops
            _, size = self._answers.popleft()
            self.server.budget.release(self.usage, size)
