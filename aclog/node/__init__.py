"""One aclog node, assembled: the writer (:mod:`aclog.controller`) plus the broker side that
follows the log (:mod:`aclog.broker`), as ``aclog serve`` runs them behind its listener.

Sits above the broker and the controller and below :mod:`aclog.wire`, which only speaks the
Kafka protocol to a :class:`Node`. Modules: :mod:`~aclog.node.node` (the node),
:mod:`~aclog.node.writers` (which writer, and how the loader follows it),
:mod:`~aclog.node.cluster` (what clients are told about the cluster),
:mod:`~aclog.node.published` (read-your-writes), :mod:`~aclog.node.scrub` (re-reading what
was acknowledged; writes stop while it finds damage), :mod:`~aclog.node.endpoint`,
:mod:`~aclog.node.topics` and :mod:`~aclog.node.login_secret` (what a node reads at start),
:mod:`~aclog.node.limits` (what its listener lets each client take).
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.config_error import ConfigError
    from aclog.node.cluster import Broker, ClusterAccess, ClusterView, default_cluster_id
    from aclog.node.endpoint import Endpoint, check_listenable, parse_endpoint
    from aclog.node.limits import Limits
    from aclog.node.login_secret import SECRET_FILE, LoginSecretError
    from aclog.node.node import Node, NodeSettings
    from aclog.node.published import PublishedOffset
    from aclog.node.topics import TopicInventory, TopicsFileError, load_topics
    from aclog.node.writers import NodeWriter, open_node_writer

__all__ = [
    "Broker",
    "ClusterAccess",
    "ClusterView",
    "ConfigError",
    "Endpoint",
    "Limits",
    "LoginSecretError",
    "Node",
    "NodeSettings",
    "NodeWriter",
    "SECRET_FILE",
    "PublishedOffset",
    "TopicInventory",
    "TopicsFileError",
    "default_cluster_id",
    "load_topics",
    "open_node_writer",
    "check_listenable",
    "parse_endpoint",
]

__getattr__ = lazy_face(__name__)
