"""``--bootstrap-server``: whether ``aclog acls`` and ``aclog users`` work on a data directory or
on any Kafka cluster.

:func:`choose_target` reads ``--data-dir``, ``--bootstrap-server``, ``--command-config`` and
``$ACLOG_DATA_DIR`` into a :data:`Target`: a data directory or a :class:`RemoteTarget` (the
bootstrap address and the :mod:`~aclog.tools.command_config` settings).
:func:`open_admin` opens the target's backend: the
:class:`~aclog.controller.controller.Controller` of the data directory, or a
:class:`~aclog.tools.remote_admin.RemoteAdmin` with the same method shapes, so the commands
share everything but the backend. Usage errors exit 2, an unreachable cluster exits 3.

Not thread-safe: for the CLI's one command thread. Cost: choosing reads the command config
file; opening rebuilds the data directory's image (snapshot and log tail) or bootstraps an
admin client.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import kafka.errors as kafka_errors
import typer

from aclog.controller.controller import Controller
from aclog.tools.command_config import read_command_config
from aclog.tools.common import open_controller
from aclog.tools.console import EXIT_FAILURE, EXIT_IO, EXIT_USAGE, fail
from aclog.tools.progress import waiting
from aclog.tools.remote_admin import RemoteAdmin
from aclog.tools.remote_connection import RemoteError, bootstrap_timeout_ms

DATA_DIR_ENV = "ACLOG_DATA_DIR"

BootstrapServer = Annotated[
    str | None,
    typer.Option(
        "--bootstrap-server",
        metavar="HOST:PORT",
        help="Manage a running Kafka cluster (or `aclog serve`) through its admin API instead "
        "of a data directory; excludes --data-dir. Kafka does not expose ACL ids: in JSON "
        'output "id" is null.',
    ),
]
CommandConfig = Annotated[
    Path | None,
    typer.Option(
        "--command-config",
        metavar="FILE",
        help="With --bootstrap-server: Kafka client properties (security.protocol, "
        "sasl.mechanism, sasl.jaas.config or sasl.username/sasl.password, ssl.cafile, "
        "ssl.endpoint.identification.algorithm, request.timeout.ms, ...).",
    ),
]


@dataclass(frozen=True)
class RemoteTarget:
    """A cluster to manage: its bootstrap address and KafkaAdminClient settings."""

    bootstrap: str
    settings: dict[str, Any] = field(default_factory=dict)


Target = Path | RemoteTarget


def parse_bootstrap(text: str) -> str:
    """``HOST:PORT[,HOST:PORT...]`` checked (IPv6 as ``[::1]:9092``); raises ValueError."""
    servers = [part.strip() for part in text.split(",") if part.strip()]
    if not servers:
        raise ValueError("--bootstrap-server needs HOST:PORT")
    for server in servers:
        host, sep, port = server.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"--bootstrap-server {server!r} is not HOST:PORT")
    return ",".join(servers)


def choose_target(
    data_dir: Path | None, bootstrap_server: str | None, command_config: Path | None
) -> Target:
    """The data directory or the cluster a command works on: exactly one of ``--data-dir`` and
    ``--bootstrap-server``; without either, ``$ACLOG_DATA_DIR`` (so the environment never
    conflicts with ``--bootstrap-server``). Usage errors exit 2."""
    if data_dir is None and bootstrap_server is None and os.environ.get(DATA_DIR_ENV):
        data_dir = Path(os.environ[DATA_DIR_ENV])
    if data_dir is not None and bootstrap_server is not None:
        fail("give either --data-dir or --bootstrap-server, not both", EXIT_USAGE)
    if command_config is not None and bootstrap_server is None:
        fail("--command-config configures the --bootstrap-server connection", EXIT_USAGE)
    if bootstrap_server is None:
        if data_dir is None:
            fail(
                f"give --data-dir DIR (or set {DATA_DIR_ENV}) or --bootstrap-server HOST:PORT",
                EXIT_USAGE,
            )
        return data_dir
    try:
        bootstrap = parse_bootstrap(bootstrap_server)
        settings = read_command_config(command_config) if command_config else {}
    except ValueError as error:
        fail(str(error), EXIT_USAGE)
    return RemoteTarget(bootstrap, settings)


def data_dir_only(target: Target, option: str, reason: str) -> None:
    """Exit 2 when ``option`` (which needs a data directory) is used with a cluster."""
    if isinstance(target, RemoteTarget):
        fail(f"{option} needs --data-dir: {reason}", EXIT_USAGE)


@contextmanager
def open_admin(target: Target) -> Iterator[Controller | RemoteAdmin]:
    """The controller of a data directory, or an admin client connected to a cluster.

    Connection failures and requests the cluster does not answer exit 3, naming the address.
    """
    if not isinstance(target, RemoteTarget):
        with open_controller(target) as controller:
            yield controller
        return
    seconds = bootstrap_timeout_ms(target.settings) / 1000
    try:
        with waiting(f"connecting to {target.bootstrap} (waiting up to {seconds:g} s)"):
            admin = RemoteAdmin.connect(target.bootstrap, target.settings)
    except RemoteError as error:
        fail(str(error), EXIT_IO)
    try:
        yield admin
    except RemoteError as error:
        fail(str(error), EXIT_IO)
    except kafka_errors.IncompatibleBrokerVersion as error:
        fail(f"{target.bootstrap} does not support this admin API: {error}", EXIT_FAILURE)
    finally:
        admin.close()
