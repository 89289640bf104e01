"""Where a node is reached: :class:`Endpoint` and :func:`parse_endpoint`, the one parser of
``HOST:PORT`` text (used by the CLI, the listener's settings and tests).

Immutable; thread-safe.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass

from aclog.config_error import ConfigError

DEFAULT_PORT = 9092


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A host and a port. ``str()`` gives ``host:port`` (``[v6]:port`` for IPv6)."""

    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def is_wildcard(self) -> bool:
        """True for ``0.0.0.0``, ``::`` or an empty host: every interface, not reachable as is."""
        return self.host in ("", "0.0.0.0", "::")


def parse_endpoint(text: str, *, default_port: int = DEFAULT_PORT) -> Endpoint:
    """``HOST:PORT``, ``[IPv6]:PORT`` or just ``HOST``. Raises :class:`ConfigError`."""
    value = text.strip()
    if value.startswith("["):
        host, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise ConfigError(f"cannot read {text!r}: write an IPv6 address as [::1]:9092")
        port_text = rest[1:] if rest else ""
    elif value.count(":") > 1:
        raise ConfigError(f"cannot read {text!r}: write an IPv6 address as [::1]:9092")
    else:
        host, _, port_text = value.partition(":")
    if not host:
        raise ConfigError(f"cannot read {text!r}: the host is missing (e.g. 127.0.0.1:9092)")
    if not port_text:
        return Endpoint(host, default_port)
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ConfigError(f"cannot read {text!r}: the port must be a number from 0 to 65535")
    return Endpoint(host, int(port_text))


def check_listenable(endpoint: Endpoint) -> None:
    """Raise :class:`ConfigError` when ``endpoint``'s host names no address this machine can
    listen on (a typo, an unresolvable name), before anything is opened or created for a
    listener that could not start. Cost: one name lookup (the resolver's, possibly DNS)."""
    try:
        socket.getaddrinfo(
            endpoint.host or None, endpoint.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except (socket.gaierror, UnicodeError) as error:
        reason = error.strerror if isinstance(error, socket.gaierror) else str(error)
        raise ConfigError(
            f"cannot listen on {endpoint}: the host {endpoint.host!r} does not resolve "
            f"({reason}); give an IP address of this machine or a name it resolves, "
            "e.g. 127.0.0.1:9092 or 0.0.0.0:9092"
        ) from error
