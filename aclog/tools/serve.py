"""``aclog serve``: run the Kafka-protocol listener on a data directory.

Thin: parse the options into a :class:`~aclog.wire.ServerConfig`
(:meth:`~aclog.wire.ServerConfig.of_settings`), call :func:`aclog.wire.serve`, and render where
to connect. Logs go to stderr. The listener is imported when the command runs, not for its
``--help``.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Annotated

import typer

from aclog.controller import DEFAULT_ELECTION_TIMEOUT_MS, DEFAULT_HEARTBEAT_MS
from aclog.tools import serve_limits as lim
from aclog.tools.console import EXIT_USAGE, app, err, fail, show_library_warnings
from aclog.tools.params import DATA_DIR_ENV, JsonFlag


@app.command()
def serve(
    data_dir: Annotated[
        Path,
        typer.Option(
            "--data-dir",
            help="The aclog data directory (created if missing).",
            envvar=DATA_DIR_ENV,
            readable=False,
        ),
    ] = Path("aclog-data"),
    listen: Annotated[
        str, typer.Option("--listen", help="HOST:PORT to listen on (port 0: any free port).")
    ] = "127.0.0.1:9092",
    advertised: Annotated[
        str | None,
        typer.Option("--advertised", help="HOST:PORT clients connect to (default: the bound one)."),
    ] = None,
    node_id: Annotated[int, typer.Option("--node-id", help="This node's broker id.")] = 1,
    security_protocol: Annotated[
        str,
        typer.Option("--security-protocol", help="PLAINTEXT, SASL_PLAINTEXT or SASL_SSL."),
    ] = "PLAINTEXT",
    super_users: Annotated[
        list[str] | None,
        typer.Option(
            "--super-users", help="Principals always allowed, e.g. 'User:admin;User:ops'."
        ),
    ] = None,
    allow_everyone: Annotated[
        bool,
        typer.Option(
            "--allow-everyone-if-no-acl-found", help="Allow access to resources without ACLs."
        ),
    ] = False,
    tls_cert: Annotated[
        Path | None,
        typer.Option("--tls-cert", help="PEM certificate (chain) for SASL_SSL.", readable=False),
    ] = None,
    tls_key: Annotated[
        Path | None, typer.Option("--tls-key", help="PEM private key.", readable=False)
    ] = None,
    topics: Annotated[
        Path | None,
        typer.Option(
            "--topics",
            help="Topics to report, one per line: NAME or TOPIC:NAME, then an optional "
            "partition count.",
            readable=False,
        ),
    ] = None,
    max_frame_bytes: lim.MaxFrameBytes = lim.DEFAULTS.max_frame_bytes,
    frame_timeout: lim.FrameTimeout = lim.DEFAULTS.frame_timeout,
    sasl_server_max_receive_size: lim.SaslMaxReceiveSize = lim.DEFAULTS.max_pre_auth_frame_bytes,
    max_pre_auth_requests: lim.MaxPreAuthRequests = lim.DEFAULTS.max_pre_auth_requests,
    max_in_flight: lim.MaxInFlight = lim.DEFAULTS.max_in_flight_per_connection,
    max_buffered_bytes: lim.MaxBufferedBytes = None,
    max_unsent_bytes: lim.MaxUnsentBytes = lim.DEFAULTS.max_unsent_bytes_per_connection,
    socket_send_buffer_bytes: lim.SocketSendBuffer = lim.DEFAULTS.socket_send_buffer_bytes,
    socket_receive_buffer_bytes: lim.SocketReceiveBuffer = (
        lim.DEFAULTS.socket_receive_buffer_bytes
    ),
    write_timeout: lim.WriteTimeout = lim.DEFAULTS.write_timeout,
    queued_max_request_bytes: lim.QueuedMaxRequestBytes = None,
    max_connections: lim.MaxConnections = lim.DEFAULTS.max_connections,
    max_connections_per_ip: lim.MaxConnectionsPerIp = lim.DEFAULTS.max_connections_per_ip,
    connections_max_idle_ms: lim.IdleMs = int(lim.DEFAULTS.idle_timeout * 1000),
    log_events_per_ip: lim.LogEventsPerIp = lim.DEFAULTS.log_events_per_ip,
    log_events_interval_ms: lim.LogEventsIntervalMs = int(lim.DEFAULTS.log_events_interval * 1000),
    controller: Annotated[
        bool,
        typer.Option(
            "--controller",
            help="Share the data directory with other `aclog serve --controller` nodes: one "
            "is the active controller, the others stand by and take over when it stops "
            "heartbeating. Give each node its own --node-id.",
        ),
    ] = False,
    heartbeat_ms: Annotated[
        int,
        typer.Option("--heartbeat-ms", help="With --controller: how often the leader heartbeats."),
    ] = DEFAULT_HEARTBEAT_MS,
    election_timeout_ms: Annotated[
        int,
        typer.Option(
            "--election-timeout-ms",
            help="With --controller: how long the log may stand still before a standby takes over.",
        ),
    ] = DEFAULT_ELECTION_TIMEOUT_MS,
    scrub_interval_ms: Annotated[
        int,
        typer.Option(
            "--scrub-interval-ms",
            help="How often to re-read the acknowledged log and snapshots; while the log is "
            "found damaged, writes fail with KAFKA_STORAGE_ERROR naming the file and byte.",
        ),
    ] = 60_000,
    log_level: Annotated[
        str, typer.Option("--log-level", help="DEBUG, INFO, WARNING or ERROR (on stderr).")
    ] = "INFO",
    json_output: JsonFlag = False,
) -> None:
    """Serve the Kafka protocol: admin clients manage ACLs and SCRAM users and log in."""
    from aclog.image import ReplayError  # noqa: PLC0415 - on a run, not --help (issue 37)
    from aclog.log import LogError  # noqa: PLC0415
    from aclog.records import RecordDecodeError  # noqa: PLC0415
    from aclog.tools.data_dirs import require_log_target  # noqa: PLC0415
    from aclog.tools.exit_codes import fail_for  # noqa: PLC0415
    from aclog.tools.serve_banner import render_ready  # noqa: PLC0415
    from aclog.tools.writing import removed_on_failure  # noqa: PLC0415
    from aclog.wire import (  # noqa: PLC0415
        ConfigError,
        Limits,
        ListenerInfo,
        LoginSecretError,
        ServerConfig,
        TopicsFileError,
    )
    from aclog.wire import serve as run_listener  # noqa: PLC0415

    level = logging.getLevelName(log_level.strip().upper())
    if not isinstance(level, int):
        fail(f"unknown log level {log_level!r}; use DEBUG, INFO, WARNING or ERROR", EXIT_USAGE)
    show_library_warnings(False)  # the server's log shows them, with time and source
    logging.basicConfig(
        stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        limits = Limits.of_settings(
            max_frame_bytes=max_frame_bytes,
            frame_timeout=frame_timeout,
            sasl_server_max_receive_size=sasl_server_max_receive_size,
            max_pre_auth_requests=max_pre_auth_requests,
            max_in_flight=max_in_flight,
            max_buffered_bytes=max_buffered_bytes,
            max_unsent_bytes=max_unsent_bytes,
            socket_send_buffer_bytes=socket_send_buffer_bytes,
            socket_receive_buffer_bytes=socket_receive_buffer_bytes,
            write_timeout=write_timeout,
            queued_max_request_bytes=queued_max_request_bytes,
            max_connections=max_connections,
            max_connections_per_ip=max_connections_per_ip,
            connections_max_idle_ms=connections_max_idle_ms,
            log_events_per_ip=log_events_per_ip,
            log_events_interval_ms=log_events_interval_ms,
        )
        config = ServerConfig.of_settings(
            data_dir=data_dir,
            listen=listen,
            advertised=advertised,
            node_id=node_id,
            security_protocol=security_protocol,
            super_users=super_users or [],
            allow_everyone=allow_everyone,
            tls=(tls_cert, tls_key),
            topics=topics,
            limits=limits,
            quorum=(controller, heartbeat_ms, election_timeout_ms),
            scrub_interval_ms=scrub_interval_ms,
        )
    except ValueError as error:  # ConfigError, or a super user without a colon
        fail(str(error), EXIT_USAGE)
    require_log_target(data_dir)
    # A listener that never started leaves no data directory behind; once it has, clients
    # may have written to it and it stays.
    with removed_on_failure(data_dir) as keep:

        def ready(info: ListenerInfo) -> None:
            keep()
            render_ready(info, config, json_output)

        try:
            run_listener(
                config,
                on_ready=ready,
                on_stopping=lambda reason: err.print(f"aclog: {reason}: stopping", markup=False),
            )
        except (ConfigError, TopicsFileError, LogError, RecordDecodeError, ReplayError,
                LoginSecretError, OSError) as error:  # fmt: skip
            fail_for(error, f"serve on {listen} from {data_dir}")
    err.print("aclog: stopped", markup=False)
