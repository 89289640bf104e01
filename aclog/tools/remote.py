"""``--bootstrap-server``: whether ``aclog acls`` and ``aclog users`` work on a data directory or
on any Kafka cluster.

:func:`choose_target` reads ``--data-dir``, ``--bootstrap-server``, ``--command-config`` and
their environment variables (``$ACLOG_DATA_DIR``, ``$ACLOG_BOOTSTRAP_SERVER``,
``$ACLOG_COMMAND_CONFIG``) into a :data:`Target`: a data directory or a :class:`RemoteTarget` (the
bootstrap address and the :mod:`~aclog.remote.command_config` settings).
:func:`open_admin` opens the target's writer (a
:class:`~aclog.controller.writer.MetadataWriter`): the
:class:`~aclog.controller.controller.Controller` of the data directory, or a
:class:`~aclog.remote.RemoteAdmin` connected to the cluster, so the commands share everything
but the backend. Usage errors exit 2, an unreachable cluster exits 3.

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
from typing import TYPE_CHECKING, Any

from aclog.remote import RemoteError, parse_bootstrap
from aclog.tools.console import EXIT_USAGE, fail, print_line
from aclog.tools.exit_codes import exit_code_for
from aclog.tools.params import BOOTSTRAP_SERVER_ENV, COMMAND_CONFIG_ENV, DATA_DIR_ENV
from aclog.tools.progress import waiting
from aclog.tools.writing import open_controller

if TYPE_CHECKING:
    from aclog.controller import MetadataWriter


@dataclass(frozen=True)
class RemoteTarget:
    """A cluster to manage: its bootstrap address and KafkaAdminClient settings."""

    bootstrap: str
    settings: dict[str, Any] = field(default_factory=dict)


Target = Path | RemoteTarget


def choose_target(
    data_dir: Path | None, bootstrap_server: str | None, command_config: Path | None
) -> Target:
    """The data directory or the cluster a command works on: exactly one of ``--data-dir`` and
    ``--bootstrap-server``. Without either, ``$ACLOG_DATA_DIR`` or ``$ACLOG_BOOTSTRAP_SERVER``
    (both set is a usage error), so the environment never overrides a flag; with a cluster,
    ``--command-config`` or else ``$ACLOG_COMMAND_CONFIG``. Usage errors exit 2."""
    if data_dir is not None and bootstrap_server is not None:
        fail("give either --data-dir or --bootstrap-server, not both", EXIT_USAGE)
    if command_config is not None and data_dir is not None:
        fail("--command-config configures the --bootstrap-server connection", EXIT_USAGE)
    if data_dir is None and bootstrap_server is None:
        data_dir, bootstrap_server = _from_environment()
    if bootstrap_server is None:
        if command_config is not None:
            fail("--command-config configures the --bootstrap-server connection", EXIT_USAGE)
        assert data_dir is not None  # _from_environment gives one of the two
        return data_dir
    if command_config is None and os.environ.get(COMMAND_CONFIG_ENV):
        command_config = Path(os.environ[COMMAND_CONFIG_ENV])
    try:
        bootstrap = parse_bootstrap(bootstrap_server)
        settings = _read_settings(command_config)
    except ValueError as error:
        fail(str(error), EXIT_USAGE)
    return RemoteTarget(bootstrap, settings)


def _read_settings(command_config: Path | None) -> dict[str, Any]:
    """The connection settings of a ``--command-config`` file (none without one)."""
    if command_config is None:
        return {}
    # imported here: reading a file may need cryptography (key stores), a data directory never
    from aclog.remote import read_command_config  # noqa: PLC0415

    return read_command_config(command_config, _warn)


def _from_environment() -> tuple[Path | None, str | None]:
    """(``$ACLOG_DATA_DIR``, ``$ACLOG_BOOTSTRAP_SERVER``): exactly one of them, or exit 2."""
    data_dir = os.environ.get(DATA_DIR_ENV) or None
    bootstrap = os.environ.get(BOOTSTRAP_SERVER_ENV) or None
    if data_dir and bootstrap:
        fail(
            f"both {DATA_DIR_ENV} and {BOOTSTRAP_SERVER_ENV} are set; give --data-dir or "
            "--bootstrap-server to choose",
            EXIT_USAGE,
        )
    if not data_dir and not bootstrap:
        fail(
            f"give --data-dir DIR or --bootstrap-server HOST:PORT (or set {DATA_DIR_ENV} or "
            f"{BOOTSTRAP_SERVER_ENV})",
            EXIT_USAGE,
        )
    return (Path(data_dir) if data_dir else None), bootstrap


def _warn(message: str) -> None:
    print_line(f"aclog: warning: {message}", stderr=True)


def data_dir_only(target: Target, option: str, reason: str) -> None:
    """Exit 2 when ``option`` (which needs a data directory) is used with a cluster."""
    if isinstance(target, RemoteTarget):
        fail(f"{option} needs --data-dir: {reason}", EXIT_USAGE)


@contextmanager
def open_admin(target: Target, *, create: bool = False) -> Iterator[MetadataWriter]:
    """The controller of a data directory, or an admin client connected to a cluster.

    ``create``: a missing data directory is created (and removed again if nothing is
    committed); otherwise it is exit 2. Connection failures and requests the cluster does not
    answer exit 3, naming the address.
    """
    if not isinstance(target, RemoteTarget):
        with open_controller(target, create=create) as controller:
            yield controller
        return
    # imported here: kafka-python's package init loads its admin client
    import kafka.errors as kafka_errors  # noqa: PLC0415

    from aclog.remote import RemoteAdmin, bootstrap_timeout_ms  # noqa: PLC0415

    seconds = bootstrap_timeout_ms(target.settings) / 1000
    try:
        with waiting(f"connecting to {target.bootstrap} (waiting up to {seconds:g} s)"):
            admin = RemoteAdmin.connect(target.bootstrap, target.settings)
    except RemoteError as error:
        fail(str(error), exit_code_for(error))
    try:
        yield admin
    except RemoteError as error:  # the message names the address
        fail(str(error), exit_code_for(error))
    except kafka_errors.IncompatibleBrokerVersion as error:
        message = f"{target.bootstrap} does not support this admin API: {error}"
        fail(message, exit_code_for(error))
    finally:
        admin.close()
