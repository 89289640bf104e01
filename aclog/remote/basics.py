"""What a command meets of a cluster before it connects, without kafka-python: the error a
failed connection or an unanswered request raises, and the id that ACLs read from a cluster
carry. Their own module so that a command on a data directory, which names them in its
``except`` clauses and its output, does not import kafka-python (its package init loads the
admin client).

Data only; thread-safe. Cost: nothing.
"""

from __future__ import annotations

import uuid

REMOTE_ACL_ID = uuid.UUID(int=0)
"""The id of an ACL read from a cluster: Kafka does not expose ids (JSON shows ``null``)."""


class RemoteError(Exception):
    """The cluster could not be reached or did not answer; the message names the address."""
