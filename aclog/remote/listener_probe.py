"""Asking a listener whether it wants SASL, when a client without SASL settings is turned away.

A SASL listener (Kafka's or ``aclog serve``'s) answers ApiVersions before a login and closes the
connection at the next request; kafka-python then retries until its bootstrap timeout and says
only "Unable to bootstrap". :func:`sasl_mechanisms` asks the listener directly with a v1
SaslHandshake: a SASL listener answers with its mechanisms (error 0, or 33 for a mechanism it
lacks), a PLAINTEXT one with ILLEGAL_SASL_STATE (34) and none, anything else not at all.

Thread-safe (one short-lived socket per call). Cost: one TCP connection and one round trip,
bounded by ``timeout`` seconds.
"""

from __future__ import annotations

import socket
import struct
from contextlib import closing

from kafka.protocol.sasl import SaslHandshakeRequest, SaslHandshakeResponse

PROBE_MECHANISM = "SCRAM-SHA-256"
_UNSUPPORTED_MECHANISM = 33


def sasl_mechanisms(bootstrap: str, timeout: float = 2.0) -> list[str] | None:
    """The SASL mechanisms the listener at ``bootstrap`` (``HOST:PORT``) offers, or ``None``
    when it does not take SASL on this connection (PLAINTEXT, TLS, unreachable, not Kafka)."""
    host, _, port = bootstrap.rpartition(":")
    request = SaslHandshakeRequest(version=1, mechanism=PROBE_MECHANISM)
    request.with_header(correlation_id=1, client_id="aclog-cli")
    try:
        with closing(socket.create_connection((host.strip("[]"), int(port)), timeout)) as sock:
            sock.settimeout(timeout)
            sock.sendall(bytes(request.encode(header=True, framed=True)))
            payload = _frame(sock)
    except (OSError, ValueError):
        return None
    if payload is None:
        return None
    try:
        response = SaslHandshakeResponse.decode(payload, version=1, header=True)
    except Exception:
        return None
    if response.error_code not in (0, _UNSUPPORTED_MECHANISM) or not response.mechanisms:
        return None
    return [str(m) for m in response.mechanisms]


def _frame(sock: socket.socket, limit: int = 64 * 1024) -> bytes | None:
    """One size-prefixed response frame, or ``None`` when the peer closes or sends nonsense."""
    size_bytes = _exactly(sock, 4)
    if size_bytes is None:
        return None
    (size,) = struct.unpack(">i", size_bytes)
    return _exactly(sock, size) if 0 < size <= limit else None


def _exactly(sock: socket.socket, size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)
