"""The ``aclog serve`` options that bound what one connection, one address and all clients
together can take, named after Kafka's broker settings where Kafka has one, and the
:class:`~aclog.wire.Limits` they make. README "Limits per client" says what each bounds.
"""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.tools.console import EXIT_USAGE, fail
from aclog.wire import ConfigError, Limits

DEFAULTS = Limits()
RESERVED = f"{DEFAULTS.connection_reserved_bytes // 1024} KiB"

MaxFrameBytes = Annotated[
    int,
    typer.Option(
        "--max-frame-bytes",
        help="The largest request accepted, in bytes (Kafka: socket.request.max.bytes).",
    ),
]
FrameTimeout = Annotated[
    float,
    typer.Option(
        "--frame-timeout",
        help="Seconds a client may take to send one request once its size has arrived.",
    ),
]
SaslMaxReceiveSize = Annotated[
    int,
    typer.Option(
        "--sasl-server-max-receive-size",
        help="Before a SASL login, the largest request accepted, in bytes (Kafka: "
        "sasl.server.max.receive.size).",
    ),
]
MaxPreAuthRequests = Annotated[
    int,
    typer.Option(
        "--max-pre-auth-requests",
        help="Before a SASL login, the most requests a connection may send; a SCRAM login "
        "takes four or five (Kafka has no such setting).",
    ),
]
MaxInFlight = Annotated[
    int,
    typer.Option(
        "--max-in-flight-requests-per-connection",
        help="Requests one connection may have read but unanswered; past it the connection "
        "is not read (a Kafka broker reads one at a time; clients pipeline up to their "
        "max.in.flight.requests.per.connection).",
    ),
]
MaxBufferedBytes = Annotated[
    int | None,
    typer.Option(
        "--max-buffered-bytes-per-connection",
        help=f"Request bytes one connection may have read but unanswered (default: twice "
        f"--max-frame-bytes, at least 4 MiB). The first {RESERVED} are its own; the rest "
        "come from --queued-max-request-bytes as they arrive.",
    ),
]
MaxUnsentBytes = Annotated[
    int,
    typer.Option(
        "--max-unsent-bytes-per-connection",
        help="Answer bytes that may wait for a client that does not read; past it the "
        "connection is neither read nor answered (Kafka mutes it) and is closed after "
        "--write-timeout.",
    ),
]
SocketSendBuffer = Annotated[
    int,
    typer.Option(
        "--socket-send-buffer-bytes",
        help="SO_SNDBUF of each connection: answers the kernel holds for a client (Kafka: "
        "socket.send.buffer.bytes; -1: the OS default, which Linux grows to 4 MiB).",
    ),
]
SocketReceiveBuffer = Annotated[
    int,
    typer.Option(
        "--socket-receive-buffer-bytes",
        help="SO_RCVBUF of each connection: requests the kernel holds for a connection that "
        "is not being read (Kafka: socket.receive.buffer.bytes; -1: the OS default).",
    ),
]
WriteTimeout = Annotated[
    float,
    typer.Option(
        "--write-timeout",
        help="Seconds a client may leave its answers unread before it is closed.",
    ),
]
QueuedMaxRequestBytes = Annotated[
    int | None,
    typer.Option(
        "--queued-max-request-bytes",
        help=f"Server-wide pool of request bytes beyond each connection's own {RESERVED}, "
        "counted as they arrive (Kafka: queued.max.request.bytes; default: four times "
        "--max-frame-bytes, at least 64 MiB).",
    ),
]
MaxConnections = Annotated[
    int,
    typer.Option(
        "--max-connections",
        help="Connections open at once; more are closed on arrival (Kafka: max.connections).",
    ),
]
MaxConnectionsPerIp = Annotated[
    int,
    typer.Option(
        "--max-connections-per-ip",
        help="Connections open at once from one client address; more are closed on arrival "
        "(Kafka: max.connections.per.ip, unlimited there). An admin client uses one or two.",
    ),
]
IdleMs = Annotated[
    int,
    typer.Option(
        "--connections-max-idle-ms",
        help="Close a connection that sends no request for this many milliseconds (Kafka: "
        "connections.max.idle.ms).",
    ),
]
LogEventsPerIp = Annotated[
    int,
    typer.Option(
        "--log-events-per-ip",
        help="Connection events (refused, closed with a reason, logged in) from one client "
        "address logged one by one per --log-events-interval-ms; the rest are counted and "
        "summarized in one line per address and interval (Kafka has no such setting).",
    ),
]
LogEventsIntervalMs = Annotated[
    int,
    typer.Option(
        "--log-events-interval-ms",
        help="The window of --log-events-per-ip, in milliseconds: at most one summary line "
        "per client address in each.",
    ),
]


def limits(
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
    """The limits the options give; a setting that cannot work exits 2 with why."""
    try:
        return Limits(
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
    except ConfigError as error:
        fail(str(error), EXIT_USAGE)
