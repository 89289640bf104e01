"""The records aclog writes: one frozen dataclass per record type.

Types 11, 18, 19, 20 and 22 mirror KRaft's metadata records of the same api keys field for field;
128 and 129 are aclog's own (KRaft keeps leader changes in control batches and does not record who
asked for a change). Every committed batch that a client request produced starts with a
:class:`RequestContextRecord`, so history can say who changed what, and when.

Immutable; thread-safe. Construction is one dataclass ``__init__``.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, fields
from enum import IntEnum
from operator import attrgetter

from aclog.records.enums import (
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)

AclKey = tuple[int, str, int, str, str, int, int]
"""An ACL's identity: (resource type, name, pattern type, principal, host, operation,
permission); the enums as members or as their codes, which compare and hash alike."""


def acl_key(acl: AclBinding | AccessControlEntryRecord) -> AclKey:
    """An ACL's seven fields as a plain tuple. The enum fields stay members: an ``IntEnum``
    member equals its code and hashes like it (``int.__hash__``, in C), so this tuple and the
    tuple of codes are the same dict key."""
    key: AclKey = _ACL_KEY(acl)
    return key


def acl_keys(acls: Iterable[AclBinding | AccessControlEntryRecord]) -> list[AclKey]:
    """``[acl_key(acl) for acl in acls]`` with no Python call per ACL."""
    return list(map(_ACL_KEY, acls))


class RecordType(IntEnum):
    """The type code written in every record's frame."""

    USER_SCRAM_CREDENTIAL = 11
    ACCESS_CONTROL_ENTRY = 18
    REMOVE_ACCESS_CONTROL_ENTRY = 19
    NO_OP = 20
    REMOVE_USER_SCRAM_CREDENTIAL = 22
    LEADER_CHANGE = 128
    REQUEST_CONTEXT = 129


@dataclass(frozen=True, slots=True)
class AclBinding:
    """An ACL without its id: a resource pattern plus an entry, as a client asks for it.

    Two bindings are the same ACL when all seven fields are equal (strings compared exactly).
    """

    resource_type: ResourceType
    resource_name: str
    pattern_type: PatternType
    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType

    @property
    def key(self) -> AclKey:
        """The seven fields as a plain tuple: ACL identity, cheap to hash (see :func:`acl_key`)."""
        return acl_key(self)

    def with_id(self, acl_id: uuid.UUID) -> AccessControlEntryRecord:
        """The record that stores this ACL under ``acl_id``."""
        return AccessControlEntryRecord(
            acl_id,
            self.resource_type,
            self.resource_name,
            self.pattern_type,
            self.principal,
            self.host,
            self.operation,
            self.permission_type,
        )


ACL_KEY_FIELDS: tuple[str, ...] = tuple(field.name for field in fields(AclBinding))
"""The names of an ACL's seven identity fields, in :data:`AclKey` order (an
:class:`AccessControlEntryRecord` has these after its ``id``)."""

_ACL_KEY = attrgetter(*ACL_KEY_FIELDS)


@dataclass(frozen=True, slots=True)
class AccessControlEntryRecord:
    """One ACL as committed: a resource pattern plus an entry, identified by a random UUID."""

    id: uuid.UUID
    resource_type: ResourceType
    resource_name: str
    pattern_type: PatternType
    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType

    @property
    def key(self) -> AclKey:
        """The same identity tuple as :attr:`AclBinding.key`."""
        return acl_key(self)

    @property
    def binding(self) -> AclBinding:
        """The ACL without its id (what identity and duplicate checks compare)."""
        return AclBinding(
            self.resource_type,
            self.resource_name,
            self.pattern_type,
            self.principal,
            self.host,
            self.operation,
            self.permission_type,
        )


@dataclass(frozen=True, slots=True)
class RemoveAccessControlEntryRecord:
    """The removal of the ACL with this id."""

    id: uuid.UUID


@dataclass(frozen=True, slots=True)
class UserScramCredentialRecord:
    """A SCRAM credential for (name, mechanism); never the password or the salted password."""

    name: str
    mechanism: ScramMechanism
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    def __repr__(self) -> str:
        # Secrets never reach logs or tracebacks through repr.
        return (
            f"UserScramCredentialRecord(name={self.name!r}, mechanism={self.mechanism.name}, "
            f"salt=(redacted), stored_key=(redacted), server_key=(redacted), "
            f"iterations={self.iterations})"
        )


@dataclass(frozen=True, slots=True)
class RemoveUserScramCredentialRecord:
    """The removal of the SCRAM credential for (name, mechanism)."""

    name: str
    mechanism: ScramMechanism


@dataclass(frozen=True, slots=True)
class NoOpRecord:
    """A record with no effect; the active controller writes it as a heartbeat."""


@dataclass(frozen=True, slots=True)
class LeaderChangeRecord:
    """Controller ``leader_id`` took leadership for ``epoch`` (the batch's leader epoch)."""

    leader_id: int
    epoch: int


@dataclass(frozen=True, slots=True)
class RequestContextRecord:
    """Who asked for the change the rest of its batch holds, from where, and when.

    ``timestamp_ms`` is when the controller accepted the request (milliseconds since the epoch);
    ``api`` names what asked: a Kafka API (``CreateAcls``) or a CLI command (``aclog acls add``).
    """

    principal: str
    client_address: str
    client_id: str
    timestamp_ms: int
    api: str | None = None


Record = (
    AccessControlEntryRecord
    | RemoveAccessControlEntryRecord
    | UserScramCredentialRecord
    | RemoveUserScramCredentialRecord
    | NoOpRecord
    | LeaderChangeRecord
    | RequestContextRecord
)

RECORD_TYPES: dict[type[Record], RecordType] = {
    AccessControlEntryRecord: RecordType.ACCESS_CONTROL_ENTRY,
    RemoveAccessControlEntryRecord: RecordType.REMOVE_ACCESS_CONTROL_ENTRY,
    UserScramCredentialRecord: RecordType.USER_SCRAM_CREDENTIAL,
    RemoveUserScramCredentialRecord: RecordType.REMOVE_USER_SCRAM_CREDENTIAL,
    NoOpRecord: RecordType.NO_OP,
    LeaderChangeRecord: RecordType.LEADER_CHANGE,
    RequestContextRecord: RecordType.REQUEST_CONTEXT,
}


def record_type_name(record_type: int) -> str:
    """The class name for a type code (``AccessControlEntryRecord``), or ``type <n>``."""
    for cls, code in RECORD_TYPES.items():
        if code == record_type:
            return cls.__name__
    return f"type {record_type}"


def new_acl_id() -> uuid.UUID:
    """A random ACL id that Kafka's ``Uuid.randomUuid`` could also have produced.

    Kafka never hands out the all-zero UUID, the UUID 0...01, or one whose base64 text starts
    with ``-`` (it would read as a command-line flag), so neither do we.
    """
    while True:
        candidate = uuid.uuid4()
        if candidate.int > 1 and not kafka_uuid_text(candidate).startswith("-"):
            return candidate


def kafka_uuid_text(value: uuid.UUID) -> str:
    """Kafka's text form of a UUID: URL-safe base64 of the 16 bytes, without padding."""
    return kafka_uuid_bytes_text(value.bytes)


def kafka_uuid_bytes_text(raw: bytes) -> str:
    """:func:`kafka_uuid_text` of the UUID whose 16 bytes are ``raw``."""
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def parse_kafka_uuid(text: str) -> uuid.UUID:
    """Parse Kafka's base64 form or the usual hex form; raise ``ValueError`` otherwise."""
    if len(text) == 22:
        try:
            return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))
        except (ValueError, TypeError):
            pass
    try:
        return uuid.UUID(text)
    except ValueError:
        raise ValueError(
            f"{text!r} is not an ACL id: give Kafka's 22-character base64 form "
            "or a hex UUID like 123e4567-e89b-12d3-a456-426614174000"
        ) from None
