"""Kafka's enum codes for ACLs and SCRAM, as written to the log and sent on the wire.

Each enum keeps Kafka's numeric codes exactly (``clients/.../resource/ResourceType.java`` and
friends), plus ``GLOB = 5`` for KIP-1042 patterns. ``from_code`` maps a code that is not known to
``UNKNOWN`` the way Kafka's ``fromCode`` does, so a newer writer never breaks an older reader.

Immutable; thread-safe. ``from_code`` is one dict lookup.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TypeVar

E = TypeVar("E", bound="KafkaEnum")


class KafkaEnum(IntEnum):
    """An ``IntEnum`` whose members are Kafka wire codes with Kafka's upper-case names."""

    @classmethod
    def from_code(cls: type[E], code: int) -> E:
        """Return the member for ``code``, or ``UNKNOWN`` when the code is not known."""
        return _BY_CODE[cls].get(code, cls["UNKNOWN"])  # type: ignore[return-value]

    @classmethod
    def parse(cls: type[E], text: str) -> E:
        """Parse a name case-insensitively, accepting ``DescribeConfigs``, ``describe-configs``
        and ``DESCRIBE_CONFIGS`` alike; raise ``ValueError`` listing the valid names."""
        key = _normalise(text)
        for member in cls:
            if _normalise(member.name) == key:
                return member
        names = ", ".join(m.name for m in cls)
        raise ValueError(f"unknown {cls.__name__} {text!r}; expected one of: {names}")


def _normalise(text: str) -> str:
    return text.replace("_", "").replace("-", "").strip().lower()


class ResourceType(KafkaEnum):
    """The kind of Kafka resource an ACL protects."""

    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(KafkaEnum):
    """How an ACL's resource name is matched. ANY and MATCH exist only in filters."""

    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4
    GLOB = 5

    @property
    def is_specific(self) -> bool:
        """True for the pattern types a stored ACL may have."""
        return self in (PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB)


class AclOperation(KafkaEnum):
    """An operation an ACL allows or denies. The code is also the KIP-430 bit position."""

    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14


NAMEABLE_OPERATIONS = tuple(
    op for op in AclOperation if op not in (AclOperation.UNKNOWN, AclOperation.ANY)
)
"""The operations an ACL (and a request) can name: every one but the filter-only ANY and the
placeholder UNKNOWN."""


class AclPermissionType(KafkaEnum):
    """Whether a matching ACL allows or denies."""

    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


class ScramMechanism(KafkaEnum):
    """A SCRAM mechanism; the code is the type byte of AlterUserScramCredentials."""

    UNKNOWN = 0
    SCRAM_SHA_256 = 1
    SCRAM_SHA_512 = 2

    @property
    def mechanism_name(self) -> str:
        """The SASL mechanism name, for example ``SCRAM-SHA-256``."""
        return self.name.replace("_", "-")


_BY_CODE: dict[type[KafkaEnum], dict[int, KafkaEnum]] = {
    cls: {m.value: m for m in cls}
    for cls in (ResourceType, PatternType, AclOperation, AclPermissionType, ScramMechanism)
}
