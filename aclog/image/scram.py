"""The SCRAM credentials in a metadata image, the changes a batch makes to them, and describe.

A credential is what a server needs to check a SCRAM login (RFC 5802): salt, StoredKey, ServerKey
and the iteration count. Never the password or the salted password. Salts and keys never appear in
a ``repr`` or in :meth:`ScramImage.to_dict`.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

from aclog.acl import ApiError, Errors
from aclog.image.errors import ReplayError
from aclog.image.render import user_to_dict
from aclog.records.enums import ScramMechanism
from aclog.records.types import RemoveUserScramCredentialRecord, UserScramCredentialRecord

CredentialKey = tuple[str, ScramMechanism]
ScramChanges = Mapping[CredentialKey, "ScramCredential | None"]
"""Ordered changes by (user, mechanism): a credential is an upsertion, ``None`` a removal."""


@dataclass(frozen=True, eq=False, slots=True)
class ScramCredential:
    """Represents one stored SCRAM credential. Immutable; thread-safe.

    Equality compares the secrets with :func:`hmac.compare_digest` (constant time).
    """

    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    @classmethod
    def from_record(cls, record: UserScramCredentialRecord) -> ScramCredential:
        """The credential a record stores."""
        return cls(record.salt, record.stored_key, record.server_key, record.iterations)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScramCredential):
            return NotImplemented
        return (
            hmac.compare_digest(self.salt, other.salt)
            & hmac.compare_digest(self.stored_key, other.stored_key)
            & hmac.compare_digest(self.server_key, other.server_key)
            and self.iterations == other.iterations
        )

    def __hash__(self) -> int:
        return hash((self.salt, self.stored_key, self.server_key, self.iterations))

    def __repr__(self) -> str:
        return (
            "ScramCredential(salt=(redacted), stored_key=(redacted), server_key=(redacted), "
            f"iterations={self.iterations})"
        )


@dataclass(frozen=True, slots=True)
class CredentialInfo:
    """What describe reveals about one credential: its mechanism and iteration count."""

    mechanism: ScramMechanism
    iterations: int


@dataclass(frozen=True, slots=True)
class ScramDescribeResult:
    """The DescribeUserScramCredentials result for one user."""

    user: str
    error: ApiError = ApiError.NONE
    credentials: tuple[CredentialInfo, ...] = ()


@dataclass(frozen=True)
class ScramImage:
    """Represents the SCRAM credentials in the metadata image: user -> mechanism -> credential.

    Immutable; thread-safe. Users appear in the order their first credential was committed; a user
    with no credential left is absent.
    """

    users: Mapping[str, Mapping[ScramMechanism, ScramCredential]] = field(default_factory=dict)

    EMPTY: ClassVar[ScramImage]

    def __post_init__(self) -> None:
        if not isinstance(self.users, MappingProxyType):
            frozen = {name: MappingProxyType(dict(creds)) for name, creds in self.users.items()}
            object.__setattr__(self, "users", MappingProxyType(frozen))

    def credential(self, user: str, mechanism: ScramMechanism) -> ScramCredential | None:
        """The credential a SCRAM login by ``user`` with ``mechanism`` checks against."""
        return self.users.get(user, {}).get(mechanism)

    def describe(self, names: Sequence[str] | None) -> list[ScramDescribeResult]:
        """Answer DescribeUserScramCredentials (``kafka-acl-spec.md`` §10.3).

        ``None`` or an empty list describes every user, by name. Otherwise there is one result per
        distinct name, in order of first appearance: DUPLICATE_RESOURCE for a name given twice,
        RESOURCE_NOT_FOUND for a user without credentials, else (mechanism, iterations) per
        credential in mechanism-code order.
        """
        if not names:
            return [self._describe_one(name) for name in sorted(self.users)]
        counts: dict[str, int] = {}
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        results = []
        for name, count in counts.items():
            if count > 1:
                message = (
                    "Cannot describe SCRAM credentials for the same user twice in a single "
                    f"request: {name}"
                )
                results.append(
                    ScramDescribeResult(name, ApiError(Errors.DUPLICATE_RESOURCE, message))
                )
            else:
                results.append(self._describe_one(name))
        return results

    def _describe_one(self, name: str) -> ScramDescribeResult:
        credentials = self.users.get(name)
        if not credentials:
            message = f"Attempt to describe a user credential that does not exist: {name}"
            return ScramDescribeResult(name, ApiError(Errors.RESOURCE_NOT_FOUND, message))
        infos = tuple(
            CredentialInfo(mechanism, credentials[mechanism].iterations)
            for mechanism in sorted(credentials)
        )
        return ScramDescribeResult(name, ApiError.NONE, infos)

    def to_dict(self) -> list[dict[str, object]]:
        """Every user as :func:`aclog.image.render.user_to_dict`, sorted by name; no secrets."""
        return [user_to_dict(name, self.users[name]) for name in sorted(self.users)]


ScramImage.EMPTY = ScramImage()


class ScramDelta:
    """Represents changes to the SCRAM credentials of an image.

    Not thread-safe; owned by the task that replays records. With ``snapshot=True`` the records
    restate a whole image and :meth:`apply` first calls :meth:`finish_snapshot`.
    """

    def __init__(self, image: ScramImage, *, snapshot: bool = False) -> None:
        self._image = image
        self._snapshot = snapshot
        self._changes: dict[CredentialKey, ScramCredential | None] = {}

    @property
    def image(self) -> ScramImage:
        """The image these changes apply to."""
        return self._image

    @property
    def changes(self) -> ScramChanges:
        """The changes in commit order (the last change of a key decides its position)."""
        return MappingProxyType(self._changes)

    def replay(
        self, record: UserScramCredentialRecord | RemoveUserScramCredentialRecord, offset: int
    ) -> None:
        """Apply one SCRAM record; raise :class:`ReplayError` if it cannot apply."""
        if isinstance(record, UserScramCredentialRecord):
            self.replay_upsert(record, offset)
        else:
            self.replay_remove(record, offset)

    def replay_upsert(self, record: UserScramCredentialRecord, offset: int) -> None:
        """Insert or overwrite the credential for (name, mechanism), as Kafka does."""
        del offset  # an upsertion always applies
        self._set((record.name, record.mechanism), ScramCredential.from_record(record))

    def replay_remove(self, record: RemoveUserScramCredentialRecord, offset: int) -> None:
        """Remove the credential for (name, mechanism); it must exist."""
        key = (record.name, record.mechanism)
        if not self._present(key):
            raise ReplayError(
                f"cannot remove the {record.mechanism.mechanism_name} credential of user "
                f"{record.name!r}: it does not exist",
                offset,
            )
        if self._image.credential(*key) is not None:
            self._set(key, None)
        else:
            del self._changes[key]  # upserted and removed within this delta: nothing changed

    def finish_snapshot(self) -> None:
        """Mark every credential of the base image not replayed since as removed."""
        for name, credentials in self._image.users.items():
            for mechanism in credentials:
                self._changes.setdefault((name, mechanism), None)
        self._snapshot = False

    def apply(self) -> ScramImage:
        """The image with every change applied."""
        if self._snapshot:
            self.finish_snapshot()
        if not self._changes:
            return self._image
        users: dict[str, Mapping[ScramMechanism, ScramCredential]] = dict(self._image.users)
        touched: dict[str, dict[ScramMechanism, ScramCredential]] = {}
        for (name, mechanism), change in self._changes.items():
            if name not in touched:
                touched[name] = dict(users.get(name, {}))
            if change is None:
                touched[name].pop(mechanism, None)
            else:
                touched[name][mechanism] = change
        for name, credentials in touched.items():
            if credentials:
                users[name] = MappingProxyType(credentials)
            else:
                users.pop(name, None)
        return ScramImage(MappingProxyType(users))

    def _set(self, key: CredentialKey, change: ScramCredential | None) -> None:
        self._changes.pop(key, None)
        self._changes[key] = change

    def _present(self, key: CredentialKey) -> bool:
        if key in self._changes:
            return self._changes[key] is not None
        return self._image.credential(*key) is not None and not self._snapshot
