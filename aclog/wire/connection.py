"""One client connection: read frames, answer them in order, and never let one client hurt the
others.

Two tasks per connection. The reader reads a frame's size, reserves that many bytes of the
per-connection and server-wide budgets (waiting while either is spent, so the socket is no
longer read and TCP pushes back on the client), then reads the frame within ``frame_timeout``
and queues it. The processor answers queued frames in order, on a worker thread
(:func:`aclog.wire.dispatch.process`; small reads are answered on the event loop, and a write
queues its commit from the loop, holding no thread), writes the responses within
``write_timeout``, and only then returns the frames' bytes to the budgets.

Writes sent back to back are not answered one commit at a time: while a write's commit is
pending, a following write is queued behind it (the commit queue keeps their order, and each
is validated against the ones before it), so one connection's writes can share an fsync.
Anything else waits until every write before it is answered, so it sees them. Answers leave
in request order, those completed together in one socket write. A write is authorized against
the ACLs published when it is read, which need not include the writes still pending ahead of
it on its connection: a Kafka broker, too, authorizes against its current metadata image. A
size of 0, a negative size or one above the frame limit closes the connection (Kafka does the
same; there is no error response for it), and so do a client that stays silent past
``idle_timeout``, a SASL client that has not logged in within ``authentication_timeout``, and a
slow sender or reader. Every close is logged with why.

Used from the event loop only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aclog.wire.budget import Usage
from aclog.wire.context import Session
from aclog.wire.dispatch import Outcome, Pending, process, queues_commit
from aclog.wire.errors import Offload

if TYPE_CHECKING:
    from aclog.wire.server import Server

logger = logging.getLogger(__name__)
CLOSE_AFTER_RESPONSE_DELAY = 0.1

_SIZE = struct.Struct(">i")


@dataclass(frozen=True, slots=True)
class _Committed:
    """Queued to the processor when a queued write's commit completes."""


_COMMITTED = _Committed()


@dataclass(frozen=True, slots=True)
class _Frame:
    payload: bytes


@dataclass(frozen=True, slots=True)
class _End:
    reason: str
    level: int
    abort: bool = False
    """Drop unsent data instead of flushing it (the client is not reading)."""


class Connection:
    """Serves one accepted socket until it closes or the server stops."""

    def __init__(
        self,
        server: Server,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        connection_id: str,
        client_host: str,
    ) -> None:
        self.server = server
        self.session = Session.start(connection_id, client_host, server.config.security_protocol)
        limits = server.config.limits
        self.usage = Usage(limits.connection_buffered_bytes, limits.max_in_flight_per_connection)
        self._reader = reader
        self._writer = writer
        self._queue: asyncio.Queue[_Frame | _End | _Committed] = asyncio.Queue()
        self._answers: deque[tuple[Outcome, int]] = deque()
        """Answers not yet sent, in request order, with their frames' sizes."""
        self._loop = asyncio.get_running_loop()
        self._wake_queued = False
        self._stopping = False
        self._reader_task: asyncio.Task[None] | None = None
        self._opened = self._loop.time()

    @property
    def name(self) -> str:
        """``<id> from <host>`` for log lines."""
        return f"{self.session.connection_id} from {self.session.client_host}"

    def stop(self) -> None:
        """Stop reading; the request being answered is finished, queued ones are dropped."""
        self._stopping = True
        if self._reader_task is not None:
            self._reader_task.cancel()
        self._queue.put_nowait(_End("the server is shutting down", logging.INFO))

    async def run(self) -> None:
        """Serve the connection; returns once it is closed."""
        logger.debug("connection %s opened", self.name)
        self._reader_task = asyncio.create_task(self._read_loop())
        end = _End("the connection ended", logging.DEBUG)
        try:
            end = await self._process_loop()
        finally:
            self._reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader_task
            self._drop_queued()
            logger.log(end.level, "connection %s closed: %s", self.name, end.reason)
            await self._close(end.abort)

    # -- reading ---------------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        try:
            end = await self._read_frames()
        except asyncio.IncompleteReadError as error:
            if error.partial:
                end = _End(
                    "the client closed the connection in the middle of a frame", logging.INFO
                )
            else:
                end = _End("the client closed the connection", logging.DEBUG)
        except (ConnectionError, OSError) as error:
            end = _End(f"connection error: {error}", logging.INFO)
        self._queue.put_nowait(end)

    async def _read_frames(self) -> _End:
        limits = self.server.config.limits
        while True:
            timeout, silence = self._wait_allowance()
            if timeout <= 0:
                return _End(silence, logging.INFO)
            try:
                # asyncio.timeout, not wait_for: wait_for wraps the read in a new task, which
                # costs more than the rest of a small request's reading.
                async with asyncio.timeout(timeout):
                    header = await self._reader.readexactly(_SIZE.size)
            except TimeoutError:
                return _End(silence, logging.INFO)
            (size,) = _SIZE.unpack(header)
            if self.session.authenticated:
                limit, which = limits.max_frame_bytes, "the frame limit"
            else:
                limit = min(limits.max_frame_bytes, limits.max_pre_auth_frame_bytes)
                which = "the limit before authentication"
            if size <= 0 or size > limit:
                return _End(
                    f"a frame of {size} bytes is outside 1..{limit} bytes ({which})",
                    logging.WARNING,
                )
            await self.server.budget.acquire(self.usage, size)
            try:
                async with asyncio.timeout(limits.frame_timeout):
                    payload = await self._reader.readexactly(size)
            except BaseException as error:
                self.server.budget.release(self.usage, size)
                if isinstance(error, TimeoutError):
                    return _End(
                        f"a frame of {size} bytes did not arrive within "
                        f"{limits.frame_timeout:g} s (slow sender)",
                        logging.WARNING,
                    )
                raise
            self._queue.put_nowait(_Frame(payload))

    def _wait_allowance(self) -> tuple[float, str]:
        """How long to wait for the next frame, and what to log when it does not come."""
        limits = self.server.config.limits
        if self.session.authenticated:
            return limits.idle_timeout, f"idle for {limits.idle_timeout:g} s"
        elapsed = self._loop.time() - self._opened
        remaining = min(limits.idle_timeout, limits.authentication_timeout - elapsed)
        return remaining, (
            f"no SASL login within {limits.authentication_timeout:g} s of connecting"
        )

    # -- answering -------------------------------------------------------------------------------

    async def _process_loop(self) -> _End:
        while not self._stopping:
            item = await self._queue.get()
            if isinstance(item, _Committed):
                self._wake_queued = False
                end = await self._write_answered()
            elif isinstance(item, _End):
                return await self._write_all() or item
            else:
                end = await self._answer(item.payload)
            if end is not None:
                return end
        return await self._write_all() or _End("the server is shutting down", logging.INFO)

    async def _answer(self, payload: bytes) -> _End | None:
        """Process one frame and queue its answer behind the ones not yet sent."""
        server = self.server
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

    async def _write_answered(self) -> _End | None:
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
        try:
            return await self._write(ready)
        finally:
            self.server.budget.release_many(self.usage, size, len(ready))

    async def _finish(self, pending: Pending) -> Outcome:
        """A completed write's answer: rendered here, or on a worker thread when large."""
        if not pending.heavy():
            return pending.finish(pending.commit)
        server = self.server
        return await self._loop.run_in_executor(server.executor, pending.finish, pending.commit)

    async def _write_all(self) -> _End | None:
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

    async def _write(self, outcomes: list[Outcome]) -> _End | None:
        """Send the outcomes' responses in order; the last one may close the connection."""
        last = outcomes[-1]
        try:
            self._writer.writelines([o.data for o in outcomes if o.data is not None])
            # Usually the socket took every byte: nothing to wait for, and skipping the
            # timeout's timer is a tenth of a small request's cost on the event loop.
            if self._writer.transport.get_write_buffer_size():
                async with asyncio.timeout(self.server.config.limits.write_timeout):
                    await self._writer.drain()
        except TimeoutError:
            return _End(
                "the client did not read its responses (slow reader)", logging.WARNING, True
            )
        except (ConnectionError, OSError) as error:
            return _End(f"cannot send the {last.api} response: {error}", logging.INFO, True)
        if last.close_reason is not None:
            if last.data is not None:
                # A response that ends the connection (a failed login) is given time to arrive
                # before the close, as Kafka's connection.failed.authentication.delay.ms (100 ms)
                # does; otherwise a client may see the close first and retry instead of failing.
                await asyncio.sleep(CLOSE_AFTER_RESPONSE_DELAY)
            return _End(last.close_reason, logging.WARNING)
        return None

    def _drop_queued(self) -> None:
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if isinstance(item, _Frame):
                self.server.budget.release(self.usage, len(item.payload))
        while self._answers:  # their commits stand; the client is gone or the server stops
            _, size = self._answers.popleft()
            self.server.budget.release(self.usage, size)

    async def _close(self, abort: bool) -> None:
        """Close, flushing what is buffered for at most a second, else (or if ``abort``) drop
        the connection at once."""
        if not abort:
            self._writer.close()
            # A client that does not read, or that reset the connection, is aborted below.
            with contextlib.suppress(TimeoutError, ConnectionError, OSError):
                await asyncio.wait_for(self._writer.wait_closed(), 1.0)
                return
        self._writer.transport.abort()
