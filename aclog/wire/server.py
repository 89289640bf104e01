"""The Kafka-protocol listener: an asyncio server in front of one :class:`~aclog.node.Node`.

:func:`serve` is what ``aclog serve`` calls: it opens the node (controller plus loader), listens,
reports where through ``on_ready``, and runs until SIGINT or SIGTERM. Then it stops accepting,
stops reading, lets every request already being answered finish (so a commit in flight
completes and is fsynced), closes the connections, stops the loader and closes the log.

:class:`Server` is the same listener for callers that run their own event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import signal
import ssl
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from aclog.config_error import ConfigError
from aclog.node import Node
from aclog.node.endpoint import Endpoint, check_listenable
from aclog.records.collector import call_paused
from aclog.wire.apis import APIS
from aclog.wire.budget import Budget
from aclog.wire.config import SecurityProtocol, ServerConfig
from aclog.wire.connection import Connection
from aclog.wire.dispatch import FAILURES
from aclog.wire.event_log import EventLog
from aclog.wire.memory import MemoryReturn
from aclog.wire.protocol import warm_up
from aclog.wire.scram import SUPPORTED_MECHANISMS

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ListenerInfo:
    """Where a started listener is and what it offers."""

    bound: Endpoint
    advertised: Endpoint
    security_protocol: SecurityProtocol
    node_id: int
    cluster_id: str
    data_dir: Path
    sasl_mechanisms: tuple[str, ...]
    topics: int
    controller_mode: str = "exclusive"
    user_mechanisms: tuple[str, ...] = ()
    """The SCRAM mechanisms the stored users hold at start, the most held first."""

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return {
            "listening": str(self.bound),
            "advertised": str(self.advertised),
            "bootstrap_servers": str(self.advertised),
            "security_protocol": self.security_protocol.value,
            "sasl_mechanisms": list(self.sasl_mechanisms),
            "node_id": self.node_id,
            "cluster_id": self.cluster_id,
            "data_dir": str(self.data_dir),
            "topics": self.topics,
            "controller": self.controller_mode,
            "user_mechanisms": list(self.user_mechanisms),
        }


def tls_context(config: ServerConfig) -> ssl.SSLContext | None:
    """The server TLS context for SASL_SSL (TLS 1.2+), else ``None``. Raises
    :class:`ConfigError` when the certificate or key cannot be loaded."""
    if not config.security_protocol.uses_tls:
        return None
    assert config.tls_cert is not None and config.tls_key is not None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(config.tls_cert, config.tls_key)
    except (OSError, ssl.SSLError) as error:
        raise ConfigError(
            f"cannot load the TLS certificate {config.tls_cert} and key {config.tls_key}: {error}"
        ) from None
    return context


class Server:
    """Accepts connections for one node. ``start`` and ``stop`` run on the event loop."""

    def __init__(
        self,
        config: ServerConfig,
        node: Node,
        executor: ThreadPoolExecutor,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.config = config
        self.node = node
        self.executor = executor
        self.tls = tls
        limits = config.limits
        self.budget = Budget(limits.total_buffered_bytes)
        self.events = EventLog(
            logging.getLogger("aclog.wire.connection"),
            per_address=limits.log_events_per_ip,
            interval=limits.log_events_interval,
        )
        """Connection events (refused, closed, logged in), bounded per client address."""
        self._flusher: asyncio.Task[None] | None = None
        self._connections: dict[Connection, asyncio.Task[None]] = {}
        self._memory = MemoryReturn()
        self._per_host: Counter[str] = Counter()
        """Open connections per client address, for ``max_connections_per_ip``."""
        self._ids = itertools.count(1)
        self._server: asyncio.Server | None = None

    @property
    def connections(self) -> int:
        """How many connections are open."""
        return len(self._connections)

    async def start(self) -> ListenerInfo:
        """Bind and start accepting; the advertised address defaults to the bound one."""
        config = self.config
        self._server = await asyncio.start_server(
            self._accept,
            config.listen.host,
            config.listen.port,
            ssl=self.tls,
            ssl_handshake_timeout=config.limits.tls_handshake_timeout if self.tls else None,
            reuse_address=True,
        )
        self._flusher = asyncio.create_task(self._flush_events())
        port = self._server.sockets[0].getsockname()[1]
        bound = Endpoint(config.listen.host, int(port))
        self.node.start(config.advertised or bound)
        return ListenerInfo(
            bound,
            self.node.advertised,
            config.security_protocol,
            self.node.node_id,
            self.node.cluster_id,
            config.data_dir,
            tuple(SUPPORTED_MECHANISMS) if config.security_protocol.uses_sasl else (),
            len(self.node.topics.topics),
            "shared" if config.controller else "exclusive",
            self.node.scram_mechanisms_held() if config.security_protocol.uses_sasl else (),
        )

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
        connection_id = f"c{next(self._ids)}"
        refusal = self._refusal(host)
        if refusal is not None:
            line = f"connection {connection_id} from {host} refused: {refusal}"
            self.events.note(host, logging.WARNING, line, f"refused: {refusal}")
            writer.close()
            return
        connection = Connection(self, reader, writer, connection_id, host)
        task = asyncio.current_task()
        assert task is not None
        self._connections[connection] = task
        self._per_host[host] += 1
        try:
            await connection.run()
        except Exception:  # a bug in the connection code must not take the listener down
            logger.exception("connection %s failed", connection.name)
        finally:
            self._connections.pop(connection, None)
            self._memory.connection_closed()
            self._per_host[host] -= 1
            if not self._per_host[host]:
                del self._per_host[host]

    def _refusal(self, host: str) -> str | None:
        """Why a new connection from ``host`` is closed at once, or ``None``."""
        limits = self.config.limits
        if len(self._connections) >= limits.max_connections:
            return f"{len(self._connections)} connections are open (max.connections)"
        if self._per_host[host] >= limits.max_connections_per_ip:
            return f"{self._per_host[host]} connections from it are open (max.connections.per.ip)"
        return None

    async def _flush_events(self) -> None:
        """Write the summaries of connection events whose windows have ended: a wake-up a
        second (at most one per window), a few microseconds when there is nothing to say."""
        while True:
            await asyncio.sleep(min(1.0, self.config.limits.log_events_interval))
            self.events.flush()
            FAILURES.flush()
            self._memory.maybe_trim()

    async def stop(self) -> None:
        """Stop accepting and reading; wait (up to the shutdown timeout) for the requests being
        answered, then close every connection and write the connection events not yet
        summarized."""
        if self._server is not None:
            self._server.close()
        for connection in list(self._connections):
            connection.stop()
        tasks = list(self._connections.values())
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=self.config.shutdown_timeout)
            if pending:
                logger.warning(
                    "%d connections did not finish within %.0f s; abandoning them",
                    len(pending),
                    self.config.shutdown_timeout,
                )
                for task in pending:
                    task.cancel()
        if self._server is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._server.wait_closed(), 5.0)
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._flusher
        self.events.flush(final=True)
        FAILURES.flush(final=True)


def serve(
    config: ServerConfig,
    *,
    on_ready: Callable[[ListenerInfo], None] | None = None,
    on_stopping: Callable[[str], None] | None = None,
) -> None:
    """Run a listener for ``config`` until SIGINT or SIGTERM, then shut down gracefully.

    ``on_ready`` is called once the listener accepts connections; ``on_stopping`` with the
    signal's name when shutdown begins. Raises :class:`ConfigError` (a listen host that does
    not resolve, bad TLS files: both before the data directory is opened),
    :class:`~aclog.node.topics.TopicsFileError`, :class:`~aclog.log.LogLockedError` (another
    writer holds the data directory) and ``OSError`` (the address is in use, ...).
    """
    check_listenable(config.listen)
    tls = tls_context(config)
    warm_up((api.request_class, api.response_class, api.versions) for api in APIS.values())
    # The process edge of a server: opening rebuilds the image (millions of objects), so the
    # collector is paused around it, as the loader's own start pauses and freezes.
    node = call_paused(Node.open, config)
    try:
        asyncio.run(_run(config, node, tls, on_ready, on_stopping))
    finally:
        node.close()


async def _run(
    config: ServerConfig,
    node: Node,
    tls: ssl.SSLContext | None,
    on_ready: Callable[[ListenerInfo], None] | None,
    on_stopping: Callable[[str], None] | None,
) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    received: list[str] = []

    def request_stop(name: str) -> None:
        received.append(name)
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, request_stop, sig.name)
    with ThreadPoolExecutor(config.workers, thread_name_prefix="aclog-wire") as executor:
        server = Server(config, node, executor, tls)
        info = await server.start()
        logger.info(
            "listening on %s (%s), advertised as %s, node %d, data dir %s",
            info.bound,
            info.security_protocol.value,
            info.advertised,
            info.node_id,
            config.data_dir,
        )
        if on_ready is not None:
            on_ready(info)
        await stop.wait()
        reason = received[0] if received else "stop requested"
        logger.info("%s: shutting down", reason)
        if on_stopping is not None:
            on_stopping(reason)
        await server.stop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(sig)
