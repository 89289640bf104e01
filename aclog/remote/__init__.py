"""The third writer: a running Kafka cluster (or ``aclog serve``) managed through its admin API.

:class:`RemoteAdmin` implements :class:`~aclog.controller.writer.MetadataWriter` over the Kafka
protocol (kafka-python's admin client for bootstrap, SASL/TLS and routing);
:func:`bootstrap_admin_client` connects and names what went wrong (:class:`RemoteError`).
Sits above :mod:`aclog.controller` (whose request and result types it speaks) and below the
tools.
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.remote.admin import RemoteAdmin
    from aclog.remote.basics import REMOTE_ACL_ID, RemoteError
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
]

__getattr__ = lazy_face(__name__)
