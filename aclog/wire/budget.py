"""What the listener lets its clients hold: request bytes and requests read but not yet
answered, per connection and for the whole server.

A connection reserves a frame's size before reading its body and gives it back once the answer
is written, so a client that sends faster than it reads, or many clients at once, stop being
read (TCP pushes back) instead of growing the server's memory.

Used from the event loop only. Cost: O(1) per reservation, plus a wake-up per waiter on release.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass


@dataclass(slots=True)
class Usage:
    """Request bytes and requests read but not yet answered, with their bounds."""

    max_bytes: int
    max_requests: int
    bytes: int = 0
    requests: int = 0

    def fits(self, size: int) -> bool:
        """Whether one more request of ``size`` bytes stays within the bounds."""
        return self.bytes + size <= self.max_bytes and self.requests < self.max_requests


class Budget:
    """The server-wide :class:`Usage`, shared by every connection, plus the waiting.

    Taking waits; giving back is synchronous (the event loop is the only thread), so a
    cancelled task can always return what it holds.
    """

    def __init__(self, max_bytes: int, max_requests: int) -> None:
        self.total = Usage(max_bytes, max_requests)
        self._waiters: set[asyncio.Future[None]] = set()

    async def acquire(self, connection: Usage, size: int) -> None:
        """Wait until a request of ``size`` bytes fits both the connection and the server."""
        while not (connection.fits(size) and self.total.fits(size)):
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.add(waiter)
            try:
                await waiter
            finally:
                self._waiters.discard(waiter)
        for usage in (connection, self.total):
            usage.bytes += size
            usage.requests += 1

    def release(self, connection: Usage, size: int) -> None:
        """Give back what :meth:`acquire` took and wake every waiter to check again."""
        self.release_many(connection, size, 1)

    def release_many(self, connection: Usage, size: int, requests: int) -> None:
        """Give back ``requests`` requests of ``size`` bytes in all."""
        for usage in (connection, self.total):
            usage.bytes -= size
            usage.requests -= requests
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
