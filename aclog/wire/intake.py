"""Reading one connection's request frames within its limits: the reading half of
:class:`~aclog.wire.connection.Connection`.

A frame is a 4-byte size and that many bytes. For each one the intake

1. does not read at all while the connection is muted (its client is not reading the answers);
2. waits for the size within the idle timeout (before a SASL login, within what is left of the
   authentication timeout);
3. ends the connection on a size of 0, a negative size, or one above the frame limit (before a
   login: ``sasl.server.max.receive.size``), and on more frames before a login than a login
   takes (Kafka, too, closes without an error response: there is no request to answer);
4. waits until the request fits the connection's own bounds (:meth:`Budget.admit`);
5. reads the body within the frame timeout: at once when it fits the connection's reserve, else
   piece by piece, counting each piece against the server-wide pool as it arrives and waiting
   before the next piece while the pool is spent (that wait does not count against the frame
   timeout: the client is not the slow one).

Used from the event loop only. Cost per small frame: two buffered reads, one timer and O(1)
accounting.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import Callable
from dataclasses import dataclass

from aclog.node.limits import Limits
from aclog.wire.budget import Budget, Usage
from aclog.wire.context import Session

PIECE_BYTES = 64 * 1024
"""The most a frame larger than its connection's reserve is read (and counted) at a time."""

_SIZE = struct.Struct(">i")


@dataclass(frozen=True, slots=True)
class End:
    """Why a connection ends, at which log level."""

    reason: str
    level: int
    abort: bool = False
    """Drop unsent data instead of flushing it (the client is not reading)."""


class Intake:
    """Reads one connection's frames and hands each whole one to ``deliver``."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        session: Session,
        limits: Limits,
        budget: Budget,
        usage: Usage,
        deliver: Callable[[bytes], None],
    ) -> None:
        self._reader = reader
        self._session = session
        self._limits = limits
        self._budget = budget
        self._usage = usage
        self._deliver = deliver
        self._loop = asyncio.get_running_loop()
        self._opened = self._loop.time()
        self._pre_auth_frames = 0
        self._muted = False
        self._unmuted: asyncio.Future[None] | None = None

    def mute(self) -> None:
        """Stop reading after the frame being read (the client is not reading its answers)."""
        self._muted = True

    def unmute(self) -> None:
        """Read again."""
        self._muted = False
        if self._unmuted is not None and not self._unmuted.done():
            self._unmuted.set_result(None)

    async def run(self) -> End:
        """Read frames until the connection must end; returns why."""
        try:
            return await self._read_frames()
        except asyncio.IncompleteReadError as error:
            if not error.partial:
                return End("the client closed the connection", logging.DEBUG)
            return End("the client closed the connection in the middle of a frame", logging.INFO)
        except (ConnectionError, OSError) as error:
            return End(f"connection error: {error}", logging.INFO)

    def forget_error(self) -> None:
        """Drop the traceback of the error that ended the connection, kept by its stream
        reader: the traceback's frames hold this connection (its answers, its socket's send
        buffer) in a reference cycle that only a full garbage collection frees, which may come
        minutes later, so the memory of a closed slow reader would stay taken until then."""
        error = self._reader.exception()
        if error is not None:
            error.__traceback__ = None

    async def _read_frames(self) -> End:
        while True:
            while self._muted:
                self._unmuted = self._loop.create_future()
                try:
                    await self._unmuted
                finally:
                    self._unmuted = None
            timeout, silence = self._wait_allowance()
            if timeout <= 0:
                return End(silence, logging.INFO)
            try:
                # asyncio.timeout, not wait_for: wait_for wraps the read in a new task, which
                # costs more than the rest of a small request's reading.
                async with asyncio.timeout(timeout):
                    header = await self._reader.readexactly(_SIZE.size)
            except TimeoutError:
                return End(silence, logging.INFO)
            (size,) = _SIZE.unpack(header)
            refused = self._refusal(size)
            if refused is not None:
                return End(refused, logging.WARNING)
            await self._budget.admit(self._usage, size)
            try:
                payload = await self._read_body(size)
            except TimeoutError:
                return End(
                    f"a frame of {size} bytes did not arrive within "
                    f"{self._limits.frame_timeout:g} s (slow sender)",
                    logging.WARNING,
                )
            self._deliver(payload)

    def _refusal(self, size: int) -> str | None:
        """Why a frame of ``size`` bytes ends the connection, or ``None``."""
        limits = self._limits
        if self._session.authenticated:
            limit, which = limits.max_frame_bytes, "the frame limit"
        else:
            self._pre_auth_frames += 1
            if self._pre_auth_frames > limits.max_pre_auth_requests:
                return (
                    f"more than {limits.max_pre_auth_requests} requests before authentication "
                    "(a SASL login takes five at most)"
                )
            limit = min(limits.max_frame_bytes, limits.max_pre_auth_frame_bytes)
            which = "the limit before authentication"
        if size <= 0 or size > limit:
            return f"a frame of {size} bytes is outside 1..{limit} bytes ({which})"
        return None

    async def _read_body(self, size: int) -> bytes:
        """The frame's body; an admitted request's bytes are counted, and given back (with the
        request) if the body does not arrive."""
        usage = self._usage
        if usage.bytes + size > usage.reserved:
            return await self._read_pooled(size)
        usage.bytes += size  # within the reserve: the pool is not involved
        try:
            async with asyncio.timeout(self._limits.frame_timeout):
                return await self._reader.readexactly(size)
        except BaseException:
            self._budget.release(usage, size)
            raise

    async def _read_pooled(self, size: int) -> bytes:
        """A body beyond the reserve, read and counted piece by piece as it arrives."""
        budget, usage, loop = self._budget, self._usage, self._loop
        deadline = loop.time() + self._limits.frame_timeout
        parts: list[bytes] = []
        received = 0
        try:
            while received < size:
                if usage.bytes >= usage.reserved and budget.must_wait(usage):
                    waited_from = loop.time()
                    await budget.wait_for_pool(usage)
                    deadline += loop.time() - waited_from
                async with asyncio.timeout_at(deadline):
                    piece = await self._reader.read(min(size - received, PIECE_BYTES))
                if not piece:
                    raise asyncio.IncompleteReadError(b"".join(parts), size)
                budget.add(usage, len(piece))
                received += len(piece)
                parts.append(piece)
        except BaseException:
            budget.release(usage, received)
            raise
        return b"".join(parts)

    def _wait_allowance(self) -> tuple[float, str]:
        """How long to wait for the next frame, and what to log when it does not come."""
        limits = self._limits
        if self._session.authenticated:
            return limits.idle_timeout, f"idle for {limits.idle_timeout:g} s"
        elapsed = self._loop.time() - self._opened
        remaining = min(limits.idle_timeout, limits.authentication_timeout - elapsed)
        return remaining, (
            f"no SASL login within {limits.authentication_timeout:g} s of connecting"
        )
