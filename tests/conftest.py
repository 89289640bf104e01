"""Settings for every test.

Hypothesis: no per-example deadline and no "too slow" health check. Both time the machine, not
the code: CI runs on shared machines whose load can stretch an example past 200 ms, which
failed unchanged code now and then. Speed is measured by ``make bench``, never by tests.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.real_kafka import KafkaBroker, kafka_home_or_fail, start_broker

settings.register_profile("aclog", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("aclog")


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """One real Kafka 4.0 KRaft broker for the whole session (skips without ``KAFKA_HOME``)."""
    kafka_home_or_fail()
    broker = start_broker(tmp_path_factory.mktemp("kafka"))
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture(scope="session")
def kafka_snapshot_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """A second broker that writes KRaft snapshots every 5 s and deletes old segments."""
    kafka_home_or_fail()
    broker = start_broker(tmp_path_factory.mktemp("kafka-snapshots"), snapshots=True)
    try:
        yield broker
    finally:
        broker.stop()
