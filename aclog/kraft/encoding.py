"""Encoding KRaft metadata record values by hand from Kafka's message schemas (spec section
12): the framed values of the record types KRaft shares with aclog (AccessControlEntryRecord
18, RemoveAccessControlEntryRecord 19, UserScramCredentialRecord 11,
RemoveUserScramCredentialRecord 22 and NoOpRecord 20, all version 0), the control records'
messages Kafka's raft layer writes (LeaderChangeMessage, SnapshotHeaderRecord,
KRaftVersionRecord, SnapshotFooterRecord), and Kafka's compact strings and bytes they are made
of. Independent of the reader (:mod:`aclog.kraft.codec` decodes with kafka-python's schema
codec), so the two check each other; :mod:`aclog.kraft.writer` puts the values in batches.

Pure functions; thread-safe. Cost: O(bytes encoded).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from aclog.kraft.codec import FRAME_VERSION
from aclog.kraft.schemas import (
    ACCESS_CONTROL_ENTRY,
    NO_OP,
    REMOVE_ACCESS_CONTROL_ENTRY,
    REMOVE_USER_SCRAM_CREDENTIAL,
    USER_SCRAM_CREDENTIAL,
)
from aclog.records import (
    AccessControlEntryRecord,
    NoOpRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)
from aclog.varint import uvarint

NO_TAGS = b"\x00"
"""An empty tagged-field section: the end of every flexible-version body written here."""
_INT8 = struct.Struct(">b")


def compact_string(text: str) -> bytes:
    """Kafka's COMPACT_STRING: ``uvarint(length + 1)`` then the UTF-8 bytes."""
    return compact_bytes(text.encode("utf-8"))


def compact_bytes(raw: bytes) -> bytes:
    """Kafka's COMPACT_BYTES: ``uvarint(length + 1)`` then the bytes."""
    return uvarint(len(raw) + 1) + raw


def int8(value: int) -> bytes:
    """Kafka's ``int8``: one signed byte."""
    return _INT8.pack(value)


def frame(api_key: int, version: int = 0) -> bytes:
    """The frame before a metadata record's body: frame version, api key, version (uvarints)."""
    return uvarint(FRAME_VERSION) + uvarint(api_key) + uvarint(version)


def encode_body(record: Record) -> tuple[int, bytes]:
    """(api key, version-0 body) of one of the five record types KRaft shares with aclog;
    ``TypeError`` for a record KRaft has no metadata record for."""
    if isinstance(record, AccessControlEntryRecord):
        return ACCESS_CONTROL_ENTRY, (
            record.id.bytes
            + int8(record.resource_type)
            + compact_string(record.resource_name)
            + int8(record.pattern_type)
            + compact_string(record.principal)
            + compact_string(record.host)
            + int8(record.operation)
            + int8(record.permission_type)
            + NO_TAGS
        )
    if isinstance(record, RemoveAccessControlEntryRecord):
        return REMOVE_ACCESS_CONTROL_ENTRY, record.id.bytes + NO_TAGS
    if isinstance(record, UserScramCredentialRecord):
        return USER_SCRAM_CREDENTIAL, (
            compact_string(record.name)
            + int8(record.mechanism)
            + compact_bytes(record.salt)
            + compact_bytes(record.stored_key)
            + compact_bytes(record.server_key)
            + struct.pack(">i", record.iterations)
            + NO_TAGS
        )
    if isinstance(record, RemoveUserScramCredentialRecord):
        return REMOVE_USER_SCRAM_CREDENTIAL, (
            compact_string(record.name) + int8(record.mechanism) + NO_TAGS
        )
    if isinstance(record, NoOpRecord):
        return NO_OP, NO_TAGS
    raise TypeError(f"KRaft has no metadata record for {type(record).__name__}")


def encode_record(record: Record) -> bytes:
    """The framed KRaft value of ``record`` at version 0 (what a data batch holds)."""
    api_key, body = encode_body(record)
    return frame(api_key) + body


def leader_change_value(leader_id: int, voters: Sequence[int] = ()) -> bytes:
    """LeaderChangeMessage v0: Version, LeaderId, Voters, GrantingVoters, no tags."""
    array = uvarint(len(voters) + 1) + b"".join(struct.pack(">i", v) + NO_TAGS for v in voters)
    return struct.pack(">hi", 0, leader_id) + array + array + NO_TAGS


def snapshot_header_value(timestamp_ms: int) -> bytes:
    """SnapshotHeaderRecord v0: Version, LastContainedLogTimestamp, no tags."""
    return struct.pack(">hq", 0, timestamp_ms) + NO_TAGS


def snapshot_footer_value() -> bytes:
    """SnapshotFooterRecord v0: Version, no tags."""
    return struct.pack(">h", 0) + NO_TAGS


def kraft_version_value(level: int = 1) -> bytes:
    """KRaftVersionRecord v0: Version, KRaftVersion, no tags."""
    return struct.pack(">hh", 0, level) + NO_TAGS
