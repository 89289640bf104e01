"""The Kafka distribution the ``java`` and ``failover-kafka`` suites run against: where it is,
what it is, and how a node of it on 127.0.0.1 is configured (the real-Kafka tests use it too).

Thread-safe (reads files). Cost: a directory listing and one small file read.
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def kafka_home() -> Path | None:
    """``$KAFKA_HOME``, else ``../shared/kafka`` beside the checkout, if it holds ``libs/*.jar``."""
    configured = os.environ.get("KAFKA_HOME")
    home = Path(configured) if configured else REPO.parent / "shared" / "kafka"
    libs = home / "libs"
    return home.resolve() if libs.is_dir() and any(libs.glob("*.jar")) else None


def kafka_distribution() -> str:
    """Version and commit of the distribution, from its README (``none`` without one)."""
    home = kafka_home()
    if home is None:
        return "none"
    try:
        text = (home / "README.md").read_text()
    except OSError:
        return "none"
    version = re.search(r"Apache Kafka (\S+)", text)
    commit = re.search(r"commit `([0-9a-f]{7})[0-9a-f]*`", text)
    return " ".join(m.group(1) for m in (version, commit) if m) or str(home)


NODE_PROPERTIES = """\
process.roles=broker,controller
node.id={node}
controller.quorum.voters={voters}
listeners=PLAINTEXT://127.0.0.1:{plain},SASL_PLAINTEXT://127.0.0.1:{sasl},\
CONTROLLER://127.0.0.1:{controller}
advertised.listeners=PLAINTEXT://127.0.0.1:{plain},SASL_PLAINTEXT://127.0.0.1:{sasl}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,\
SASL_PLAINTEXT:SASL_PLAINTEXT
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=\
org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=\
org.apache.kafka.common.security.scram.ScramLoginModule required;
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:admin;User:ANONYMOUS
allow.everyone.if.no.acl.found=false
log.dirs={data}
num.partitions=1
num.network.threads=2
num.io.threads=2
group.initial.rebalance.delay.ms=0
"""
"""A combined KRaft node (broker and controller) on 127.0.0.1, the settings every Kafka 3.5+
download understands: PLAINTEXT (``User:ANONYMOUS``, a super user), SASL_PLAINTEXT with SCRAM
(super user ``admin``), ``StandardAuthorizer``; ``{voters}`` lists the quorum's controllers."""


def free_ports(count: int) -> list[int]:
    """``count`` distinct loopback ports free now (held open together, so none repeats)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
