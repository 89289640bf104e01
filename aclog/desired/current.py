"""The state a plan is computed against: the ACLs and SCRAM credentials a cluster or a data
directory holds now, as far as a plan needs them, and its fingerprint.

From a data directory's image the credentials' keys are at hand, so a plan can check whether a
user's password is the one a file names (:meth:`CurrentState.password_matches`); through the
admin API only mechanisms and iteration counts are visible, and a password cannot be checked;
nor can it in a history written by ``aclog follow``, whose credentials have empty keys.

The fingerprint is a SHA-256 over every ACL and every credential's (user, mechanism, iterations)
in a canonical order: equal states have equal fingerprints whatever order they were listed in,
and it holds no secret (no salt or key goes into it).

Immutable; thread-safe. Cost: building is O(ACLs + users); the fingerprint O(n log n).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from aclog.controller import salted_password, scram_keys
from aclog.image import MetadataImage, ScramDescribeResult, ScramImage
from aclog.records import AclBinding, ScramMechanism

CredentialKey = tuple[str, ScramMechanism]


@dataclass(frozen=True)
class CurrentState:
    """The ACL bindings (listing order, no repeats) and credentials' iteration counts of a
    cluster; ``credentials`` is the SCRAM image when the keys are known (a data directory).

    What the target can take: ``holds_glob``, whether it stores GLOB ACLs (a data directory and
    ``aclog serve`` do, Kafka does not); ``one_batch``, whether an apply commits as ONE batch
    (a data directory) rather than request by request (the admin API)."""

    acls: tuple[AclBinding, ...]
    users: Mapping[CredentialKey, int]
    credentials: ScramImage | None = field(default=None, compare=False)
    last_offset: int | None = field(default=None, compare=False)
    holds_glob: bool = field(default=True, compare=False)
    one_batch: bool = field(default=False, compare=False)

    @classmethod
    def from_image(cls, image: MetadataImage) -> CurrentState:
        """The state a data directory's image holds."""
        users = {
            (name, mechanism): credential.iterations
            for name, by_mechanism in image.scram.users.items()
            for mechanism, credential in by_mechanism.items()
        }
        acls = tuple(dict.fromkeys(acl.binding for acl in image.acls))
        return cls(acls, users, image.scram, image.provenance.last_offset, one_batch=True)

    @classmethod
    def from_described(
        cls,
        acls: Iterable[AclBinding],
        described: Iterable[ScramDescribeResult],
        *,
        holds_glob: bool = True,
    ) -> CurrentState:
        """The state a cluster's DescribeAcls and DescribeUserScramCredentials answers show;
        ``holds_glob``: whether the cluster stores GLOB ACLs."""
        users = {
            (result.user, info.mechanism): info.iterations
            for result in described
            for info in result.credentials
        }
        return cls(tuple(dict.fromkeys(acls)), users, holds_glob=holds_glob)

    @cached_property
    def fingerprint(self) -> str:
        """``sha256:<hex>`` of the state, independent of listing order."""
        acls = sorted(
            [
                int(a.resource_type),
                a.resource_name,
                int(a.pattern_type),
                a.principal,
                a.host,
                int(a.operation),
                int(a.permission_type),
            ]
            for a in self.acls
        )
        users = sorted([name, int(m), n] for (name, m), n in self.users.items())
        canonical = json.dumps({"acls": acls, "users": users}, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    @property
    def unknown_keys_reason(self) -> str:
        """Why a credential's password cannot be checked against this state (for a note)."""
        if self.credentials is None:
            return "the admin API shows no keys"
        return "its keys are not recorded: aclog follow cannot read them from a cluster"

    def password_matches(self, key: CredentialKey, password: str) -> bool | None:
        """Whether the stored credential for ``key`` is ``password``'s (``None``: the keys are
        not known here, or there is no such credential). Costs one PBKDF2."""
        if self.credentials is None:
            return None
        stored = self.credentials.credential(*key)
        # Empty keys are unknown keys, never a password's: ``aclog follow`` records a cluster's
        # credentials without them (the admin API shows none) and the controller refuses an
        # empty salt or salted password, so nothing else stores them.
        if stored is None or not stored.salt or not stored.stored_key:
            return None
        salted = salted_password(password, stored.salt, stored.iterations, key[1])
        stored_key, _ = scram_keys(salted, key[1])
        return hmac.compare_digest(stored_key, stored.stored_key)
