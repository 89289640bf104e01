"""Bounds that keep one client, or one address, from hurting the others: what a listener lets
each connection, each client address and all clients together take, named after Kafka's broker
settings where Kafka has one (:meth:`Limits.of_settings` takes them by those names). Here, below
the listener (:mod:`aclog.wire`), so that ``aclog serve --help`` states the defaults without
importing it.

Immutable; thread-safe. Cost: nothing beyond checking the values once.
"""

from __future__ import annotations

from dataclasses import dataclass

from aclog.config_error import ConfigError

MEBIBYTE = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds that keep one client, or one address, from hurting the others (Kafka's broker
    setting, where there is one, in brackets).

    Per connection:

    - ``max_frame_bytes`` (``socket.request.max.bytes``): the largest request; a bigger size
      prefix closes the connection. Before a SASL login the bound is ``max_pre_auth_frame_bytes``
      (``sasl.server.max.receive.size``), and at most ``max_pre_auth_requests`` frames are read
      (a login takes four or five).
    - ``max_in_flight_per_connection`` / ``max_connection_buffered_bytes``: requests, and their
      bytes, read but not yet answered; past either the connection is not read (TCP pushes
      back). ``None`` bytes means twice the frame limit, at least 4 MiB. The first
      ``connection_reserved_bytes`` of them are the connection's own; the rest come from the
      server-wide pool as they arrive (see :mod:`aclog.wire.budget`).
    - ``max_unsent_bytes_per_connection``: answers not yet taken by the client; past it the
      connection is neither read nor answered (Kafka mutes it) until the client reads, and it is
      closed when that takes longer than ``write_timeout`` seconds.
    - ``socket_send_buffer_bytes`` / ``socket_receive_buffer_bytes``
      (``socket.send.buffer.bytes`` / ``socket.receive.buffer.bytes``): the kernel's buffers of
      each socket (Linux doubles the value for its bookkeeping); -1 leaves the OS default, which
      Linux grows to several MiB per socket.
    - ``frame_timeout``: seconds to receive the rest of a frame once its size arrived (slow
      senders); ``idle_timeout`` (``connections.max.idle.ms``): seconds without a request;
      ``authentication_timeout``: seconds a SASL client has to log in;
      ``tls_handshake_timeout``: seconds for the TLS handshake.

    Server-wide: ``max_total_buffered_bytes`` (``queued.max.request.bytes``): the pool of request
    bytes beyond the connections' reserves (``None``: four times the frame limit, at least
    64 MiB); ``max_connections`` (``max.connections``) and ``max_connections_per_ip``
    (``max.connections.per.ip``): more are accepted and closed at once.

    The server's log: ``log_events_per_ip`` connection events (refused, closed with a reason,
    logged in) per client address are logged one by one in each ``log_events_interval``
    seconds, the rest counted and summarized (:mod:`aclog.wire.event_log`).
    """

    max_frame_bytes: int = MEBIBYTE
    max_pre_auth_frame_bytes: int = 512 * 1024
    max_pre_auth_requests: int = 8
    max_connection_buffered_bytes: int | None = None
    connection_reserved_bytes: int = 64 * 1024
    max_in_flight_per_connection: int = 32
    max_unsent_bytes_per_connection: int = 64 * 1024
    socket_send_buffer_bytes: int = 100 * 1024
    socket_receive_buffer_bytes: int = 100 * 1024
    max_total_buffered_bytes: int | None = None
    max_connections: int = 1000
    max_connections_per_ip: int = 100
    frame_timeout: float = 30.0
    idle_timeout: float = 600.0
    authentication_timeout: float = 30.0
    write_timeout: float = 30.0
    tls_handshake_timeout: float = 10.0
    log_events_per_ip: int = 20
    log_events_interval: float = 60.0

    def __post_init__(self) -> None:
        if self.max_frame_bytes < 64:
            raise ConfigError(
                f"the frame limit must be at least 64 bytes, not {self.max_frame_bytes}"
            )
        if self.max_pre_auth_frame_bytes < 64:
            raise ConfigError("the pre-authentication frame limit must be at least 64 bytes")
        if self.max_pre_auth_requests < 3:
            raise ConfigError(
                "max_pre_auth_requests must be at least 3 (SaslHandshake and two "
                "SaslAuthenticate requests make a SCRAM login)"
            )
        if self.connection_buffered_bytes < self.max_frame_bytes:
            raise ConfigError("max_connection_buffered_bytes must be at least max_frame_bytes")
        if not 0 <= self.connection_reserved_bytes <= self.connection_buffered_bytes:
            raise ConfigError(
                "connection_reserved_bytes must be from 0 to max_connection_buffered_bytes"
            )
        if self.total_buffered_bytes < self.connection_buffered_bytes:
            raise ConfigError("max_total_buffered_bytes must be at least the per-connection bound")
        for name in (
            "max_in_flight_per_connection",
            "max_unsent_bytes_per_connection",
            "max_connections",
            "max_connections_per_ip",
            "log_events_per_ip",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1")
        for name in ("socket_send_buffer_bytes", "socket_receive_buffer_bytes"):
            if getattr(self, name) == 0 or getattr(self, name) < -1:
                raise ConfigError(f"{name} must be -1 (the OS default) or positive")
        for name in (
            "frame_timeout",
            "idle_timeout",
            "authentication_timeout",
            "write_timeout",
            "tls_handshake_timeout",
            "log_events_interval",
        ):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{name} must be a positive number of seconds")

    @classmethod
    def of_settings(
        cls,
        *,
        max_frame_bytes: int,
        frame_timeout: float,
        sasl_server_max_receive_size: int,
        max_pre_auth_requests: int,
        max_in_flight: int,
        max_buffered_bytes: int | None,
        max_unsent_bytes: int,
        socket_send_buffer_bytes: int,
        socket_receive_buffer_bytes: int,
        write_timeout: float,
        queued_max_request_bytes: int | None,
        max_connections: int,
        max_connections_per_ip: int,
        connections_max_idle_ms: int,
        log_events_per_ip: int,
        log_events_interval_ms: int,
    ) -> Limits:
        """The limits ``aclog serve``'s options give, by their names (Kafka's, where Kafka
        has the setting; intervals in milliseconds as Kafka's are); a setting that cannot
        work raises :class:`ConfigError` saying why."""
        return cls(
            max_frame_bytes=max_frame_bytes,
            max_pre_auth_frame_bytes=sasl_server_max_receive_size,
            max_pre_auth_requests=max_pre_auth_requests,
            max_connection_buffered_bytes=max_buffered_bytes,
            max_in_flight_per_connection=max_in_flight,
            max_unsent_bytes_per_connection=max_unsent_bytes,
            socket_send_buffer_bytes=socket_send_buffer_bytes,
            socket_receive_buffer_bytes=socket_receive_buffer_bytes,
            max_total_buffered_bytes=queued_max_request_bytes,
            max_connections=max_connections,
            max_connections_per_ip=max_connections_per_ip,
            frame_timeout=frame_timeout,
            idle_timeout=connections_max_idle_ms / 1000,
            write_timeout=write_timeout,
            log_events_per_ip=log_events_per_ip,
            log_events_interval=log_events_interval_ms / 1000,
        )

    @property
    def connection_buffered_bytes(self) -> int:
        """The effective per-connection bound on buffered request bytes."""
        if self.max_connection_buffered_bytes is not None:
            return self.max_connection_buffered_bytes
        return max(2 * self.max_frame_bytes, 4 * MEBIBYTE)

    @property
    def total_buffered_bytes(self) -> int:
        """The effective size of the server-wide pool of request bytes."""
        if self.max_total_buffered_bytes is not None:
            return self.max_total_buffered_bytes
        return max(4 * self.max_frame_bytes, 64 * MEBIBYTE, self.connection_buffered_bytes)
