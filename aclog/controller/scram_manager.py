"""AlterUserScramCredentials: decide against the committed image, return records, change nothing.

Mirrors Kafka's ``ScramControlManager.alterCredentials`` (``reference/kafka-acl-spec.md`` §10.1):
rules apply per user NAME, deletions are processed before upsertions, each user gets exactly one
result, and a user with any failing change produces no record while other users still succeed.

Also the RFC 5802 key derivation (§10.2) and helpers for clients that start from a password.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

from aclog.acl import ApiError, Errors
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.result import ControllerResult, ScramAlterResult
from aclog.controller.scram_limits import DEFAULT_ITERATIONS, DEFAULT_SALT_BYTES
from aclog.controller.validation import scram_deletion_error, scram_upsertion_error
from aclog.image.scram import ScramImage
from aclog.records.enums import ScramMechanism
from aclog.records.types import (
    Record,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)

_HASHES = {ScramMechanism.SCRAM_SHA_256: "sha256", ScramMechanism.SCRAM_SHA_512: "sha512"}
_DUPLICATE = ApiError(
    Errors.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request"
)


def _hash_name(mechanism: ScramMechanism) -> str:
    try:
        return _HASHES[mechanism]
    except KeyError:
        raise ValueError(f"{mechanism.name} is not a SCRAM mechanism") from None


def salted_password(
    password: str, salt: bytes, iterations: int, mechanism: ScramMechanism
) -> bytes:
    """RFC 5802 ``Hi(password, salt, i)`` = PBKDF2-HMAC. The password is encoded as UTF-8 without
    SASLprep, as Kafka's ``ScramFormatter`` does (identical for ASCII passwords)."""
    return hashlib.pbkdf2_hmac(_hash_name(mechanism), password.encode("utf-8"), salt, iterations)


def scram_keys(salted: bytes, mechanism: ScramMechanism) -> tuple[bytes, bytes]:
    """``(StoredKey, ServerKey)``: StoredKey = H(HMAC(SaltedPassword, "Client Key")),
    ServerKey = HMAC(SaltedPassword, "Server Key"). Raises ``ValueError`` for an empty key."""
    if not salted:
        raise ValueError("the salted password must not be empty")
    name = _hash_name(mechanism)
    client_key = hmac.digest(salted, b"Client Key", name)
    stored_key = hashlib.new(name, client_key).digest()
    server_key = hmac.digest(salted, b"Server Key", name)
    return stored_key, server_key


def new_salt(length: int = DEFAULT_SALT_BYTES) -> bytes:
    """A fresh random salt for ``aclog users set`` (never called during replay)."""
    return secrets.token_bytes(length)


def upsertion_for_password(
    name: str,
    mechanism: ScramMechanism,
    password: str,
    iterations: int = DEFAULT_ITERATIONS,
    salt: bytes | None = None,
) -> ScramUpsertion:
    """The upsertion a client sends for ``password``: computes the salted password locally."""
    salt = new_salt() if salt is None else salt
    return ScramUpsertion(
        name, mechanism, iterations, salt, salted_password(password, salt, iterations, mechanism)
    )


class ScramControlManager:
    """Decides SCRAM credential changes. Stateless; thread-safe."""

    def alter(
        self,
        image: ScramImage,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
    ) -> ControllerResult[list[ScramAlterResult]]:
        """One result per user, in order of the user's first appearance (deletions first, then
        upsertions); a removal record per successful deletion, then an upsert record per
        successful upsertion, each group in request order. No changes: no results."""
        decisions = _Decisions(image)
        for deletion in deletions:
            decisions.add_deletion(deletion)
        for upsertion in upsertions:
            decisions.add_upsertion(upsertion)
        return ControllerResult(decisions.records(), decisions.results())


class _Decisions:
    """The per-user state of one AlterUserScramCredentials request. Each user has at most one
    pending change or one error, which is what makes the result atomic per user."""

    def __init__(self, image: ScramImage) -> None:
        self._image = image
        self._users: dict[str, None] = {}  # first-appearance order
        self._errors: dict[str, ApiError] = {}
        self._deletions: dict[str, ScramDeletion] = {}
        self._upsertions: dict[str, ScramUpsertion] = {}

    def add_deletion(self, deletion: ScramDeletion) -> None:
        name = self._admit(deletion.name)
        if name is None:
            return
        if self._deletions.pop(name, None) is not None:
            self._errors[name] = _DUPLICATE
            return
        error = scram_deletion_error(self._image, deletion)
        if error is None:
            self._deletions[name] = deletion
        else:
            self._errors[name] = error

    def add_upsertion(self, upsertion: ScramUpsertion) -> None:
        name = self._admit(upsertion.name)
        if name is None:
            return
        pending_deletion = self._deletions.pop(name, None)
        pending_upsertion = self._upsertions.pop(name, None)
        if pending_deletion is not None or pending_upsertion is not None:
            self._errors[name] = _DUPLICATE
            return
        error = scram_upsertion_error(upsertion)
        if error is None:
            self._upsertions[name] = upsertion
        else:
            self._errors[name] = error

    def _admit(self, name: str) -> str | None:
        """Record the user's appearance; ``None`` when an earlier error already stands."""
        self._users.setdefault(name)
        return None if name in self._errors else name

    def records(self) -> tuple[Record, ...]:
        records: list[Record] = [
            RemoveUserScramCredentialRecord(d.name, d.mechanism) for d in self._deletions.values()
        ]
        for upsertion in self._upsertions.values():
            stored_key, server_key = scram_keys(upsertion.salted_password, upsertion.mechanism)
            records.append(
                UserScramCredentialRecord(
                    upsertion.name,
                    upsertion.mechanism,
                    upsertion.salt,
                    stored_key,
                    server_key,
                    upsertion.iterations,
                )
            )
        return tuple(records)

    def results(self) -> list[ScramAlterResult]:
        return [
            ScramAlterResult(user, self._errors.get(user, ApiError.NONE)) for user in self._users
        ]
