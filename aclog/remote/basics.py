"""What a command meets of a cluster before it connects, without kafka-python: its bootstrap
address as a person writes it (:func:`parse_bootstrap`), the error a failed connection or an
unanswered request raises, and the id that ACLs read from a cluster carry. Their own module so
that a command on a data directory, which names them in its ``except`` clauses and its output,
does not import kafka-python (its package init loads the admin client).

Data and a pure function; thread-safe. Cost: O(length of the address).
"""

from __future__ import annotations

import uuid

REMOTE_ACL_ID = uuid.UUID(int=0)
"""The id of an ACL read from a cluster: Kafka does not expose ids (JSON shows ``null``)."""


class RemoteError(Exception):
    """The cluster could not be reached or did not answer; the message names the address."""


def parse_bootstrap(text: str) -> str:
    """``HOST:PORT[,HOST:PORT...]`` checked (IPv6 as ``[::1]:9092``), spaces around each
    address dropped; raises ValueError naming the option (``--bootstrap-server``)."""
    servers = [part.strip() for part in text.split(",") if part.strip()]
    if not servers:
        raise ValueError("--bootstrap-server needs HOST:PORT")
    for server in servers:
        host, sep, port = server.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"--bootstrap-server {server!r} is not HOST:PORT")
    return ",".join(servers)
