"""What is written: record types, their Avro schemas, the codec and redaction."""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.records.bulk_encode import encode_many
    from aclog.records.codec import DecodedRecord, RecordDecodeError, decode, decode_framed, encode
    from aclog.records.collector import call_paused, gc_paused, release_freed_heap
    from aclog.records.enums import (
        NAMEABLE_OPERATIONS,
        AclOperation,
        AclPermissionType,
        PatternType,
        ResourceType,
        ScramMechanism,
    )
    from aclog.records.render import (
        acl_text,
        json_value,
        record_class_named,
        record_summary,
        record_to_dict,
    )
    from aclog.records.types import (
        RECORD_TYPES,
        AccessControlEntryRecord,
        AclBinding,
        LeaderChangeRecord,
        NoOpRecord,
        Record,
        RecordType,
        RemoveAccessControlEntryRecord,
        RemoveUserScramCredentialRecord,
        RequestContextRecord,
        UserScramCredentialRecord,
        kafka_uuid_bytes_text,
        kafka_uuid_text,
        new_acl_id,
        parse_kafka_uuid,
    )

__all__ = [
    "RECORD_TYPES",
    "AccessControlEntryRecord",
    "AclBinding",
    "AclOperation",
    "NAMEABLE_OPERATIONS",
    "AclPermissionType",
    "DecodedRecord",
    "LeaderChangeRecord",
    "NoOpRecord",
    "PatternType",
    "Record",
    "RecordDecodeError",
    "RecordType",
    "RemoveAccessControlEntryRecord",
    "RemoveUserScramCredentialRecord",
    "RequestContextRecord",
    "ResourceType",
    "ScramMechanism",
    "UserScramCredentialRecord",
    "acl_text",
    "call_paused",
    "decode",
    "decode_framed",
    "encode",
    "encode_many",
    "gc_paused",
    "json_value",
    "kafka_uuid_bytes_text",
    "kafka_uuid_text",
    "parse_kafka_uuid",
    "new_acl_id",
    "record_class_named",
    "record_summary",
    "record_to_dict",
    "release_freed_heap",
]

__getattr__ = lazy_face(__name__)
