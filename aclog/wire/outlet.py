"""The sending side of one client connection: answers go to the socket in request order, and
a client that does not read them is bounded, then closed.

The kernel buffers at most ``socket_send_buffer_bytes`` for a client and asyncio at most
``max_unsent_bytes_per_connection`` more; past that the connection is muted (its
:class:`~aclog.wire.intake.Intake` stops reading) until the client reads, and closed when that
takes longer than ``write_timeout``. A response that ends the connection (a failed login) is
given time to arrive before the close.

Used from the event loop only. Cost: one socket write per group of answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket

from aclog.node.limits import Limits
from aclog.wire.dispatch import Outcome
from aclog.wire.intake import End, Intake

CLOSE_AFTER_RESPONSE_DELAY = 0.1


def bound_buffers(writer: asyncio.StreamWriter, limits: Limits) -> None:
    """Bound what the socket buffers for a client that does not read: answers in asyncio's
    buffer (past the bound drain() waits, and the connection is muted) and in the kernel's."""
    writer.transport.set_write_buffer_limits(high=limits.max_unsent_bytes_per_connection)
    sock = writer.get_extra_info("socket")
    if sock is None:
        return
    for option, size in (
        (socket.SO_SNDBUF, limits.socket_send_buffer_bytes),
        (socket.SO_RCVBUF, limits.socket_receive_buffer_bytes),
    ):
        if size > 0:
            sock.setsockopt(socket.SOL_SOCKET, option, size)


class Outlet:
    """Writes one connection's answers and closes its socket."""

    def __init__(self, writer: asyncio.StreamWriter, limits: Limits, intake: Intake) -> None:
        self.writer = writer
        self.limits = limits
        self.intake = intake
        bound_buffers(writer, limits)

    async def write(self, outcomes: list[Outcome]) -> End | None:
        """Send the outcomes' responses in order; the last one may close the connection."""
        last = outcomes[-1]
        if self.writer.transport.is_closing():  # the client reset the connection
            return End(
                f"cannot send the {last.api} response: the connection is closed",
                logging.INFO,
                abort=True,
            )
        try:
            self.writer.writelines([o.data for o in outcomes if o.data is not None])
            # Usually the socket took every byte: nothing to wait for, and skipping the
            # timeout's timer is a tenth of a small request's cost on the event loop.
            if self.writer.transport.get_write_buffer_size():
                # drain() waits only past max_unsent_bytes_per_connection; meanwhile the
                # connection is not read either (Kafka mutes it).
                self.intake.mute()
                try:
                    async with asyncio.timeout(self.limits.write_timeout):
                        await self.writer.drain()
                finally:
                    self.intake.unmute()
        except TimeoutError:
            return End("the client did not read its responses (slow reader)", logging.WARNING, True)
        except (ConnectionError, OSError) as error:
            return End(f"cannot send the {last.api} response: {error}", logging.INFO, True)
        if last.close_reason is not None:
            if last.data is not None:
                # A response that ends the connection (a failed login) is given time to arrive
                # before the close, as Kafka's connection.failed.authentication.delay.ms (100 ms)
                # does; otherwise a client may see the close first and retry instead of failing.
                await asyncio.sleep(CLOSE_AFTER_RESPONSE_DELAY)
            return End(last.close_reason, logging.WARNING)
        return None

    async def close(self, abort: bool) -> None:
        """Close, flushing what is buffered for at most a second, else (or if ``abort``) drop
        the connection at once."""
        if not abort:
            self.writer.close()
            # A client that does not read, or that reset the connection, is aborted below.
            with contextlib.suppress(TimeoutError, ConnectionError, OSError):
                await asyncio.wait_for(self.writer.wait_closed(), 1.0)
                return
        self.writer.transport.abort()
