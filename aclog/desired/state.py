"""A desired state: what a desired-state file (``docs/as-code.md``) asks the cluster to hold.

:class:`DesiredState` is the validated file: the ACL bindings it declares (roles already
expanded), the SCRAM users with where each password comes from, and :class:`Ownership`, the part
of the cluster the file manages. A plan never adds or removes anything outside that part.

Immutable; thread-safe. Cost: ownership checks are O(principals + prefixes) per ACL.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from aclog.records import AclBinding, ScramMechanism


@dataclass(frozen=True)
class Ownership:
    """The ACLs and users a file manages: everything (``owns: all``), or those of the listed
    principals plus the ACLs whose resource name starts with one of the listed prefixes.

    A principal is compared as a string (``User:*`` owns the ACLs granted to the wildcard, not
    every principal's); a SCRAM user ``alice`` is owned through the principal ``User:alice``.
    """

    everything: bool = False
    principals: frozenset[str] = frozenset()
    resource_prefixes: tuple[str, ...] = ()

    def owns_acl(self, acl: AclBinding) -> bool:
        """Whether a plan may add or remove ``acl``."""
        return (
            self.everything
            or acl.principal in self.principals
            or acl.resource_name.startswith(self.resource_prefixes)
        )

    def owns_user(self, name: str) -> bool:
        """Whether a plan may create, change or delete the SCRAM credentials of ``name``."""
        return self.everything or f"User:{name}" in self.principals

    def to_dict(self) -> str | dict[str, list[str]]:
        """The ``owns:`` value of the file format."""
        if self.everything:
            return "all"
        return {
            "principals": sorted(self.principals),
            "resource_prefixes": list(self.resource_prefixes),
        }


@dataclass(frozen=True)
class PasswordSource:
    """Where a user's password is read when a plan or an apply needs it: an environment
    variable or a file (its first line). Never the password itself."""

    env: str | None = None
    file: Path | None = None

    def describe(self) -> str:
        return f"${self.env}" if self.env is not None else f"file {self.file}"


@dataclass(frozen=True)
class DesiredUser:
    """One SCRAM credential the file asks for. ``password`` is ``None`` when the file names no
    source: the credential must then exist already (its password is managed elsewhere)."""

    name: str
    mechanism: ScramMechanism
    iterations: int
    password: PasswordSource | None
    line: int

    @property
    def key(self) -> tuple[str, ScramMechanism]:
        return (self.name, self.mechanism)


@dataclass(frozen=True)
class DesiredState:
    """A validated desired-state file. ``acls`` are in file order without repeats, each with
    the line it was declared on; ``sha256`` is the hex digest of the file's bytes."""

    path: str
    sha256: str
    owns: Ownership
    acls: tuple[AclBinding, ...] = ()
    users: tuple[DesiredUser, ...] = ()
    acl_lines: Mapping[AclBinding, int] = field(default_factory=dict)


def describe_binding(acl: AclBinding) -> str:
    """``ALLOW User:alice READ on TOPIC orders (LITERAL) from *``."""
    return (
        f"{acl.permission_type.name} {acl.principal} {acl.operation.name} on "
        f"{acl.resource_type.name} {acl.resource_name} ({acl.pattern_type.name}) from {acl.host}"
    )
