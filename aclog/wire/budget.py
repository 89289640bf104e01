"""What connections hold of the listener's memory: request frames read but not yet answered.

Every connection has bounds of its own (:class:`Usage`: how many requests and bytes it may hold
unanswered) and a reserve: the first ``reserved`` bytes it holds are its own. Only the bytes
beyond a connection's reserve are drawn from the server-wide pool (:class:`Budget`, Kafka's
``queued.max.request.bytes``), and only as they arrive, never as a size prefix announces them.
So a request that fits its connection's reserve never waits for another connection, and a
client that announces a large frame and sends nothing more holds no pool bytes at all; to take
the pool, clients must send the bytes, and they are closed when a frame does not complete
within the frame timeout. A connection waits (and is not read meanwhile, so TCP pushes back)
when its own bounds are spent, and between reads of a large frame while the pool is spent and
another connection can still give pool bytes back.

Request bytes are thus bounded by ``max.connections`` times the reserve, plus the pool (which
may be exceeded by about one frame, see :class:`Budget`), plus what asyncio's stream reader
buffers per connection ahead of the frame being read (it stops reading a socket past 128 KiB).

Used from the event loop only. Cost: O(1) per frame and per arrived piece of a large one; a
connection that waits costs one future, and returning pool bytes wakes the ones waiting for
the pool.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass


@dataclass(slots=True)
class Usage:
    """One connection's requests and request bytes read but not yet answered, with its bounds
    and its reserve."""

    max_bytes: int
    max_requests: int
    reserved: int
    bytes: int = 0
    requests: int = 0
    waiter: asyncio.Future[None] | None = None
    """Set while the connection waits for its own bounds; resolved by :meth:`Budget.release`."""

    def admits(self, size: int) -> bool:
        """Whether one more request of ``size`` bytes stays within the connection's bounds."""
        return self.requests < self.max_requests and self.bytes + size <= self.max_bytes

    def pooled(self) -> int:
        """Bytes held beyond the reserve, drawn from the server-wide pool."""
        return max(0, self.bytes - self.reserved)


class Budget:
    """The server-wide pool of request bytes beyond the connections' reserves, and the waiting.

    A connection waits for the pool only while another connection holding pool bytes can still
    give them back (it is not itself waiting for the pool): a connection part-way through a
    large frame holds pool bytes, and if every holder waited none would ever give any back. So
    the pool may be exceeded by about one frame, and by what one read brought per connection
    (taking is counted after the read). Giving back is synchronous (the event loop is the only
    thread), so a cancelled task can always return what it holds.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        """Bytes the connections hold beyond their reserves."""
        self._holders = 0
        """Connections holding pool bytes."""
        self._waiting_holders = 0
        """Of those, the ones waiting for the pool."""
        self._waiters: list[asyncio.Future[None]] = []

    async def admit(self, usage: Usage, size: int) -> None:
        """Wait until one more request of ``size`` bytes fits the connection's own bounds (the
        connection's answers being sent frees them), then count it, holding no bytes yet."""
        while not usage.admits(size):
            usage.waiter = asyncio.get_running_loop().create_future()
            try:
                await usage.waiter
            finally:
                usage.waiter = None
        usage.requests += 1

    def must_wait(self, usage: Usage) -> bool:
        """Whether the connection should wait before reading beyond its reserve: the pool is
        spent, and another holder may still give bytes back."""
        if self.bytes < self.max_bytes:
            return False
        other_holders = self._holders - (1 if usage.pooled() else 0)
        return other_holders > self._waiting_holders  # the caller is not waiting (yet)

    async def wait_for_pool(self, usage: Usage) -> None:
        """Wait while :meth:`must_wait`."""
        while self.must_wait(usage):
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            holding = 1 if usage.pooled() else 0
            self._waiting_holders += holding
            try:
                await waiter
            finally:
                self._waiting_holders -= holding
                if waiter in self._waiters:
                    self._waiters.remove(waiter)

    def add(self, usage: Usage, size: int) -> None:
        """Count ``size`` bytes that arrived for an admitted request."""
        before = usage.pooled()
        usage.bytes += size
        self._account(before, usage.pooled())

    def release(self, usage: Usage, size: int, requests: int = 1) -> None:
        """Give back ``requests`` requests of ``size`` bytes in all, and wake whoever waits for
        them: the connection itself, and (when pool bytes came back) the pool's waiters."""
        before = usage.pooled()
        usage.bytes -= size
        usage.requests -= requests
        if usage.waiter is not None and not usage.waiter.done():
            usage.waiter.set_result(None)
        if before:
            self._account(before, usage.pooled())

    def _account(self, before: int, after: int) -> None:
        """A connection's pool bytes went from ``before`` to ``after``."""
        self.bytes += after - before
        self._holders += (after > 0) - (before > 0)
        if after < before:
            waiters, self._waiters = self._waiters, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
