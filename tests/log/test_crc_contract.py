"""The log's batch checksum is Kafka's CRC-32C: the ``crc32c`` extension the log calls directly
(so reading a log does not import kafka-python) gives kafka-python's pure-Python reference
value for any bytes, so batches stay readable by Kafka tools and by older aclog builds."""

from __future__ import annotations

from crc32c import crc32c
from hypothesis import given
from hypothesis import strategies as st
from kafka.record._crc32c import crc as kafka_reference_crc
from kafka.record.default_records import DefaultRecordBatch

from aclog.log.batch import build_batch, crc_ok


@given(st.binary(max_size=4096))
def test_the_checksum_is_kafkas_crc32c(data: bytes) -> None:
    assert crc32c(memoryview(data)) == kafka_reference_crc(data)


@given(st.lists(st.binary(max_size=64), min_size=1, max_size=8))
def test_a_built_batch_passes_kafka_pythons_check_and_ours(values: list[bytes]) -> None:
    batch = bytes(build_batch(values, 7, 3, 1))
    assert crc_ok(batch)
    assert DefaultRecordBatch(batch).validate_crc()
