"""Framed KRaft metadata records of types aclog skips, for tests: only the frame is real (the
reader skips these records by it); the bodies beyond their first fields are made up.

The real writer of Kafka's format is :mod:`aclog.kraft.writer`.
"""

from __future__ import annotations

import struct
import uuid

from aclog.kraft.encoding import NO_TAGS, compact_string, frame


def other_record(api_key: int, body: bytes = b"\x00", version: int = 0) -> bytes:
    """A framed record of a type aclog skips, with an arbitrary body."""
    return frame(api_key, version) + body


def topic_record(name: str, topic_id: uuid.UUID) -> bytes:
    return other_record(2, compact_string(name) + topic_id.bytes + NO_TAGS)


def feature_level_record(name: str, level: int) -> bytes:
    return other_record(12, compact_string(name) + struct.pack(">h", level) + NO_TAGS)


def register_broker_record(broker_id: int) -> bytes:
    # Not the real layout beyond the first fields; the reader skips it by its frame.
    return other_record(
        0, struct.pack(">i", broker_id) + b"\x11" * 16 + struct.pack(">q", 7) + NO_TAGS, version=3
    )
