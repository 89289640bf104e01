"""What a node tells clients about the cluster, and how it asks whether a caller may act on it.

- :class:`ClusterView`: the brokers a client should use and the controller id (Metadata and
  DescribeCluster list them), derived from the writer's :meth:`leader`;
- :class:`ClusterAccess`: the controller's cluster authorizer, backed by the trie authorizer;
- :func:`default_cluster_id`: a stable Kafka-style cluster id for a data directory.

Immutable values and stateless functions; thread-safe. Cost: O(1) each.
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass
from pathlib import Path

from aclog.authorizer import Authorizer, Decision
from aclog.config_error import ConfigError
from aclog.controller.quorum_state import QuorumState
from aclog.controller.validation import CLUSTER_NAME
from aclog.node.endpoint import Endpoint, parse_endpoint
from aclog.records import AclOperation, ResourceType

NO_CONTROLLER = -1
"""The controller id Kafka reports while no controller is known."""


@dataclass(frozen=True, slots=True)
class Broker:
    """A node as Metadata and DescribeCluster list it."""

    node_id: int
    endpoint: Endpoint


@dataclass(frozen=True, slots=True)
class ClusterView:
    """The brokers a client should use and the controller id, as this node sees them."""

    brokers: tuple[Broker, ...]
    controller_id: int

    @classmethod
    def of(cls, me: Broker, leader: QuorumState | None) -> ClusterView:
        """This node is the broker and the controller while it leads; otherwise clients are
        sent to the leader where it announced it listens. While no leader is known (or its
        address cannot be read) this node lists itself and reports no controller (clients
        retry)."""
        if leader is None:
            return cls((me,), NO_CONTROLLER)
        if leader.leader_id == me.node_id:
            return cls((me,), me.node_id)
        try:
            endpoint = parse_endpoint(leader.listener or "")
        except ConfigError:
            return cls((me,), NO_CONTROLLER)
        return cls((Broker(leader.leader_id, endpoint),), leader.leader_id)


class ClusterAccess:
    """The controller's :class:`~aclog.controller.ClusterAuthorizer`, backed by the trie
    authorizer: may this principal do this operation on CLUSTER ``kafka-cluster``?"""

    def __init__(self, authorizer: Authorizer) -> None:
        self.authorizer = authorizer

    def authorize_cluster(self, principal: str, host: str, operation: AclOperation) -> bool:
        decision = self.authorizer.authorize(
            principal, host, operation, ResourceType.CLUSTER, CLUSTER_NAME
        )
        return decision is Decision.ALLOWED


def default_cluster_id(data_dir: Path) -> str:
    """A Kafka-style cluster id (22 characters of URL-safe base64) derived from the data
    directory's absolute path, so it stays the same across restarts."""
    digest = uuid.uuid5(uuid.NAMESPACE_URL, f"aclog:{data_dir.resolve()}").bytes
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
