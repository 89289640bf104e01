"""What a listener is told: the address, security protocol, authorizer settings and limits.

Immutable; thread-safe. :func:`parse_endpoint` is the one parser of ``HOST:PORT`` text, used by
the CLI and by tests.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path

from aclog.config_error import ConfigError
from aclog.controller.quorum import DEFAULT_ELECTION_TIMEOUT_MS, DEFAULT_HEARTBEAT_MS
from aclog.node.endpoint import DEFAULT_PORT, Endpoint

MEBIBYTE = 1024 * 1024


class SecurityProtocol(enum.Enum):
    """Kafka's listener security protocols that aclog serves (no plain SSL: principals come from
    SASL, and ``User:ANONYMOUS`` over TLS would add nothing)."""

    PLAINTEXT = "PLAINTEXT"
    SASL_PLAINTEXT = "SASL_PLAINTEXT"
    SASL_SSL = "SASL_SSL"

    @property
    def uses_sasl(self) -> bool:
        """True when clients must log in with SASL/SCRAM before anything but ApiVersions."""
        return self is not SecurityProtocol.PLAINTEXT

    @property
    def uses_tls(self) -> bool:
        """True when the listener wraps connections in TLS."""
        return self is SecurityProtocol.SASL_SSL


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


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything ``aclog serve`` needs. ``advertised`` defaults to the bound listen address
    (after a port of 0 is replaced by the one the OS chose)."""

    data_dir: Path = Path("aclog-data")
    listen: Endpoint = Endpoint("127.0.0.1", DEFAULT_PORT)  # noqa: RUF009 (frozen)
    advertised: Endpoint | None = None
    node_id: int = 1
    security_protocol: SecurityProtocol = SecurityProtocol.PLAINTEXT
    super_users: frozenset[str] = frozenset()
    allow_everyone_if_no_acl_found: bool = False
    tls_cert: Path | None = None
    tls_key: Path | None = None
    topics_file: Path | None = None
    cluster_id: str | None = None
    limits: Limits = field(default_factory=Limits)
    workers: int = 4
    shutdown_timeout: float = 30.0
    controller: bool = False
    heartbeat_ms: int = DEFAULT_HEARTBEAT_MS
    election_timeout_ms: int = DEFAULT_ELECTION_TIMEOUT_MS
    scrub_interval: float = 60.0
    """Seconds between re-reads of the acknowledged log and snapshots (:mod:`aclog.node.scrub`)."""

    def __post_init__(self) -> None:
        if not 0 <= self.node_id <= 2**31 - 1:
            raise ConfigError(f"the node id must be from 0 to 2147483647, not {self.node_id}")
        if self.security_protocol.uses_tls and (self.tls_cert is None or self.tls_key is None):
            raise ConfigError("SASL_SSL needs --tls-cert and --tls-key (PEM files)")
        if not self.security_protocol.uses_tls and (self.tls_cert or self.tls_key):
            raise ConfigError("--tls-cert and --tls-key are only used with SASL_SSL")
        if self.advertised is not None and (
            self.advertised.is_wildcard or self.advertised.port == 0
        ):
            raise ConfigError(
                f"the advertised address {self.advertised} is not reachable; give the host and "
                "port clients should connect to"
            )
        if self.advertised is None and self.listen.is_wildcard:
            raise ConfigError(
                f"listening on {self.listen} (every interface) needs --advertised HOST:PORT, "
                "the address clients should connect to"
            )
        if not 0 < self.heartbeat_ms < self.election_timeout_ms:
            raise ConfigError(
                "the heartbeat interval must be positive and shorter than the election timeout "
                f"(got {self.heartbeat_ms} ms and {self.election_timeout_ms} ms)"
            )
        if self.workers < 1:
            raise ConfigError("workers must be at least 1")
        if self.shutdown_timeout <= 0:
            raise ConfigError("shutdown_timeout must be a positive number of seconds")
        if self.scrub_interval <= 0:
            raise ConfigError("the scrub interval must be a positive number of seconds")
