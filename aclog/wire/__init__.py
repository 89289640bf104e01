"""The Kafka-protocol listener: stock admin clients (kafka-python, confluent-kafka/librdkafka)
manage ACLs and SCRAM users, describe the cluster and topics, and log in with SASL/SCRAM.

Layout: :mod:`~aclog.wire.config` (settings; the limits are :mod:`aclog.node.limits`),
:mod:`~aclog.wire.protocol` (strict decoding on kafka-python's message classes),
:mod:`~aclog.wire.apis` (one module per API),
:mod:`~aclog.wire.scram` (the SCRAM server), :mod:`~aclog.wire.dispatch` (one frame in, one
response out), :mod:`~aclog.wire.intake` (framing, what a connection may read),
:mod:`~aclog.wire.budget` (request bytes per connection and server-wide),
:mod:`~aclog.wire.connection` (answering in order, slow readers), :mod:`~aclog.wire.server`
(connections per address) and :mod:`~aclog.wire.event_log` (what the server's log says of
them, within a bound per address). What the listener serves, the writer plus the broker side that
follows the log, is a :class:`~aclog.node.Node`.
"""

from aclog.wire.kafka_package import defer_client_imports

defer_client_imports()  # before the modules below import kafka-python's protocol classes

from aclog.node import (  # noqa: E402
    ConfigError,
    Endpoint,
    Limits,
    LoginSecretError,
    TopicInventory,
    TopicsFileError,
    load_topics,
    parse_endpoint,
)
from aclog.wire.config import SecurityProtocol, ServerConfig  # noqa: E402
from aclog.wire.server import ListenerInfo, Server, serve  # noqa: E402

__all__ = [
    "ConfigError",
    "Endpoint",
    "Limits",
    "ListenerInfo",
    "LoginSecretError",
    "SecurityProtocol",
    "Server",
    "ServerConfig",
    "TopicInventory",
    "TopicsFileError",
    "load_topics",
    "parse_endpoint",
    "serve",
]
