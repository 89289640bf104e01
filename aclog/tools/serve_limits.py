"""The ``aclog serve`` options that bound what one connection, one address and all clients
together can take, named after Kafka's broker settings where Kafka has one; they make a
:class:`~aclog.node.Limits` (:meth:`~aclog.node.Limits.of_settings`), whose defaults they show.
README "Limits per client" says what each bounds.
"""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.node import Limits

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
