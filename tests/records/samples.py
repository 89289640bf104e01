"""One fixed sample per (record type, version): the inputs of the golden-bytes tests."""

from __future__ import annotations

import uuid

from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    LeaderChangeRecord,
    NoOpRecord,
    PatternType,
    Record,
    RecordType,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    RequestContextRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
)

ACL_ID = uuid.UUID(bytes=bytes(range(16)))

SAMPLES: dict[tuple[RecordType, int], Record] = {
    (RecordType.ACCESS_CONTROL_ENTRY, 0): AccessControlEntryRecord(
        ACL_ID,
        ResourceType.TOPIC,
        "foo",
        PatternType.LITERAL,
        "User:alice",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    ),
    (RecordType.REMOVE_ACCESS_CONTROL_ENTRY, 0): RemoveAccessControlEntryRecord(ACL_ID),
    (RecordType.USER_SCRAM_CREDENTIAL, 0): UserScramCredentialRecord(
        "alice", ScramMechanism.SCRAM_SHA_256, b"salt", b"stored-key", b"server-key", 8192
    ),
    (RecordType.REMOVE_USER_SCRAM_CREDENTIAL, 0): RemoveUserScramCredentialRecord(
        "alice", ScramMechanism.SCRAM_SHA_512
    ),
    (RecordType.NO_OP, 0): NoOpRecord(),
    (RecordType.LEADER_CHANGE, 0): LeaderChangeRecord(leader_id=1, epoch=7),
    (RecordType.REQUEST_CONTEXT, 0): RequestContextRecord(
        "User:admin", "10.0.0.5", "adminclient-1", 1_795_000_000_000
    ),
    (RecordType.REQUEST_CONTEXT, 1): RequestContextRecord(
        "User:admin", "10.0.0.5", "adminclient-1", 1_795_000_000_000, "CreateAcls"
    ),
}
