"""The third writer: a running Kafka cluster (or ``aclog serve``) managed through its admin API.

:class:`RemoteAdmin` implements :class:`~aclog.controller.writer.MetadataWriter` over the Kafka
protocol (kafka-python's admin client for bootstrap, SASL/TLS and routing);
:func:`bootstrap_admin_client` connects and names what went wrong (:class:`RemoteError`);
:func:`read_command_config` reads a Kafka client properties file (``--command-config``, with
its key stores: :mod:`~aclog.remote.key_stores`) into the client's settings, a setting that
cannot work being a :class:`~aclog.config_error.ConfigError`.
Sits above :mod:`aclog.controller` (whose request and result types it speaks) and below the
tools.
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.remote.admin import RemoteAdmin
    from aclog.remote.basics import REMOTE_ACL_ID, RemoteError, parse_bootstrap
    from aclog.remote.command_config import read_command_config
    from aclog.remote.connection import bootstrap_admin_client, bootstrap_timeout_ms, describe_error
    from aclog.remote.messages import RemoteApiError, UnsupportedRemotely, api_error

__all__ = [
    "REMOTE_ACL_ID",
    "RemoteAdmin",
    "RemoteApiError",
    "RemoteError",
    "UnsupportedRemotely",
    "api_error",
    "bootstrap_admin_client",
    "bootstrap_timeout_ms",
    "describe_error",
    "parse_bootstrap",
    "read_command_config",
]

__getattr__ = lazy_face(__name__)
