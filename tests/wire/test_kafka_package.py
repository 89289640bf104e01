"""The listener loads kafka-python's protocol classes without its clients (about 85 ms of an
empty ``aclog serve``'s start), and the ``kafka`` package is still whole for whoever asks for
a name of its own afterwards, in the same process."""

from __future__ import annotations

from tests.fresh_interpreter import fresh_output

PROBE = """
import sys
from aclog.wire import serve  # what the serve command runs: node, writer, listener, its APIs
clients = sorted(m for m in sys.modules if m.split(".")[:2] in (["kafka", "admin"],
                 ["kafka", "consumer"], ["kafka", "producer"], ["kafka", "net"]))
print("clients at start:", clients)
from aclog.wire.protocol import decode_request  # noqa: F401  (protocol classes work)
import kafka
from kafka import KafkaAdminClient
from kafka.admin import KafkaAdminClient as Direct
import kafka.errors
print("then:", kafka.__version__ == __import__("kafka.version").version.__version__,
      KafkaAdminClient is Direct, kafka.errors.KafkaError.__name__)
"""


def _run(probe: str) -> list[str]:
    return fresh_output(probe).splitlines()


def test_serve_starts_without_kafka_pythons_clients_and_the_package_stays_whole() -> None:
    assert _run(PROBE) == ["clients at start: []", "then: True True KafkaError"]


def test_a_package_imported_before_is_left_as_it_is() -> None:
    probe = (
        "import kafka, aclog.wire, sys; "
        "print('__getattr__' in vars(kafka), 'kafka.admin.client' in sys.modules)"
    )
    assert _run(probe) == ["False True"]
