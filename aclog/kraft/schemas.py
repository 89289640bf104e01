"""Kafka's JSON message schemas for the KRaft metadata records aclog reads, and their api keys.

The four record types that carry ACL and SCRAM state are given to kafka-python's schema-driven
codec (``kafka.protocol.schemas.fields.StructField``) exactly as Kafka declares them in
``metadata/src/main/resources/common/metadata/*.json`` (spec section 11): validVersions "0",
flexibleVersions "0+". ``NoOpRecord`` (20) has no fields, so it needs no schema.

Every other metadata api key is skipped by its frame and only counted; :data:`RECORD_NAMES`
names the common ones for reports.

Immutable after import; thread-safe (the codec keeps per-version caches, filled idempotently).
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.schemas.fields import StructField

USER_SCRAM_CREDENTIAL = 11
ACCESS_CONTROL_ENTRY = 18
REMOVE_ACCESS_CONTROL_ENTRY = 19
NO_OP = 20
REMOVE_USER_SCRAM_CREDENTIAL = 22


def _field(name: str, type_: str) -> dict[str, Any]:
    return {"name": name, "type": type_, "versions": "0+"}


def _message(api_key: int, name: str, fields: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiKey": api_key,
        "type": "metadata",
        "name": name,
        "validVersions": "0",
        "flexibleVersions": "0+",
        "fields": fields,
    }


SCHEMAS: dict[int, dict[str, Any]] = {
    ACCESS_CONTROL_ENTRY: _message(
        ACCESS_CONTROL_ENTRY,
        "AccessControlEntryRecord",
        [
            _field("Id", "uuid"),
            _field("ResourceType", "int8"),
            _field("ResourceName", "string"),
            _field("PatternType", "int8"),
            _field("Principal", "string"),
            _field("Host", "string"),
            _field("Operation", "int8"),
            _field("PermissionType", "int8"),
        ],
    ),
    REMOVE_ACCESS_CONTROL_ENTRY: _message(
        REMOVE_ACCESS_CONTROL_ENTRY, "RemoveAccessControlEntryRecord", [_field("Id", "uuid")]
    ),
    USER_SCRAM_CREDENTIAL: _message(
        USER_SCRAM_CREDENTIAL,
        "UserScramCredentialRecord",
        [
            _field("Name", "string"),
            _field("Mechanism", "int8"),
            _field("Salt", "bytes"),
            _field("StoredKey", "bytes"),
            _field("ServerKey", "bytes"),
            _field("Iterations", "int32"),
        ],
    ),
    REMOVE_USER_SCRAM_CREDENTIAL: _message(
        REMOVE_USER_SCRAM_CREDENTIAL,
        "RemoveUserScramCredentialRecord",
        [_field("Name", "string"), _field("Mechanism", "int8")],
    ),
}
"""api key -> Kafka's JSON schema of that metadata record (without the ``about`` texts)."""

STRUCTS: dict[int, Any] = {key: StructField(schema) for key, schema in SCHEMAS.items()}
"""api key -> kafka-python's codec for the record's body."""

KNOWN_VERSIONS: dict[int, frozenset[int]] = {
    ACCESS_CONTROL_ENTRY: frozenset({0}),
    REMOVE_ACCESS_CONTROL_ENTRY: frozenset({0}),
    USER_SCRAM_CREDENTIAL: frozenset({0}),
    REMOVE_USER_SCRAM_CREDENTIAL: frozenset({0}),
    NO_OP: frozenset({0}),
}
"""The versions whose layout this build knows, per decoded api key."""

RECORD_NAMES: dict[int, str] = {
    0: "RegisterBrokerRecord",
    1: "UnregisterBrokerRecord",
    2: "TopicRecord",
    3: "PartitionRecord",
    4: "ConfigRecord",
    5: "PartitionChangeRecord",
    7: "FenceBrokerRecord",
    8: "UnfenceBrokerRecord",
    9: "RemoveTopicRecord",
    10: "DelegationTokenRecord",
    USER_SCRAM_CREDENTIAL: "UserScramCredentialRecord",
    12: "FeatureLevelRecord",
    14: "ClientQuotaRecord",
    15: "ProducerIdsRecord",
    17: "BrokerRegistrationChangeRecord",
    ACCESS_CONTROL_ENTRY: "AccessControlEntryRecord",
    REMOVE_ACCESS_CONTROL_ENTRY: "RemoveAccessControlEntryRecord",
    NO_OP: "NoOpRecord",
    21: "ZkMigrationStateRecord",
    REMOVE_USER_SCRAM_CREDENTIAL: "RemoveUserScramCredentialRecord",
    23: "BeginTransactionRecord",
    24: "EndTransactionRecord",
    25: "AbortTransactionRecord",
    26: "RemoveDelegationTokenRecord",
    27: "RegisterControllerRecord",
    28: "ClearElrRecord",
    29: "UnregisterControllerRecord",
}
"""Names of metadata api keys for reports; keys not listed print as ``api key <n>``."""

CONTROL_NAMES: dict[int, str] = {
    0: "AbortMarker",
    1: "CommitMarker",
    2: "LeaderChangeMessage",
    3: "SnapshotHeaderRecord",
    4: "SnapshotFooterRecord",
    5: "KRaftVersionRecord",
    6: "VotersRecord",
}
"""Kafka's ``ControlRecordType`` codes and the message each carries."""


def record_name(api_key: int) -> str:
    """``TopicRecord`` for api key 2; ``api key 99`` for a key this build does not name."""
    return RECORD_NAMES.get(api_key, f"api key {api_key}")


def control_name(control_type: int) -> str:
    """``LeaderChangeMessage`` for control type 2; ``control type 9`` for unknown types."""
    return CONTROL_NAMES.get(control_type, f"control type {control_type}")
