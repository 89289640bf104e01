"""The SCRAM changes a client asks for, as the controller receives them.

Immutable; thread-safe. Salts and salted passwords never appear in a ``repr``.
"""

from __future__ import annotations

from dataclasses import dataclass

from aclog.records.enums import ScramMechanism


@dataclass(frozen=True, slots=True)
class ScramDeletion:
    """Delete the credential of ``name`` for ``mechanism``."""

    name: str
    mechanism: ScramMechanism


@dataclass(frozen=True, slots=True)
class ScramUpsertion:
    """Create or replace the credential of ``name`` for ``mechanism``.

    The client sends the salted password (RFC 5802 ``Hi(password, salt, iterations)``); the
    controller derives StoredKey and ServerKey from it and stores neither it nor the password.
    """

    name: str
    mechanism: ScramMechanism
    iterations: int
    salt: bytes
    salted_password: bytes

    def __repr__(self) -> str:
        return (
            f"ScramUpsertion(name={self.name!r}, mechanism={self.mechanism.name}, "
            f"iterations={self.iterations}, salt=(redacted), salted_password=(redacted))"
        )
