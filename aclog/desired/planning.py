"""A plan: what to change so that a cluster holds a desired state, inside what the file owns.

:func:`plan` compares a :class:`~aclog.desired.state.DesiredState` with a
:class:`~aclog.desired.current.CurrentState`: the ACLs to add (declared, absent), the ACLs to
remove (present, owned, not declared), the SCRAM credentials to create or replace (absent,
other iterations, or, where keys are known, another password) and to delete (owned, not
declared), and, given an inventory, the effect on access (:mod:`aclog.questions.impact`).

A :class:`Plan` is a value: its JSON form (:meth:`Plan.to_dict`) is stable for the same inputs
and holds the fingerprint of the state it was computed against, the desired file's SHA-256, and
no password or key. ``aclog apply --plan-file`` reads it back (:func:`plan_from_dict`) and
refuses when the state has moved.

Pure; thread-safe. Cost: O(ACLs + users), one PBKDF2 per declared user whose keys are known,
and with an inventory the impact's cost.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aclog.desired.current import CurrentState
from aclog.desired.limits import glob_errors, plan_warnings
from aclog.desired.passwords import Passwords
from aclog.desired.plan_ids import planning_records
from aclog.desired.state import DesiredState
from aclog.image import acl_to_dict
from aclog.questions import ResourceImpact, impact_of_changing
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)

PLAN_FORMAT = 1


class PlanError(ValueError):
    """A desired state no plan can reach (a credential that needs a password the file does not
    name), or a plan file that cannot be read back."""


@dataclass(frozen=True)
class UserChange:
    """One SCRAM credential to create, replace or delete, and why."""

    name: str
    mechanism: ScramMechanism
    iterations: int | None
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "mechanism": self.mechanism.mechanism_name,
            "iterations": self.iterations,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Plan:
    """The changes that take the state with ``fingerprint`` to the desired state of the file
    with ``file_sha256``. ``unverified`` lists credentials whose password could not be checked
    (the admin API shows no keys, nor does a history ``aclog follow`` wrote), and
    ``unverified_reason`` says why (``None`` when none is unverified); ``impact`` is ``None``
    without an inventory; ``warnings`` say what applying it would meet (Kafka's cap of 10,000
    records per request, :func:`aclog.desired.limits.plan_warnings`)."""

    file: str
    file_sha256: str
    fingerprint: str
    add: tuple[AclBinding, ...] = ()
    remove: tuple[AclBinding, ...] = ()
    upsert: tuple[UserChange, ...] = ()
    delete: tuple[UserChange, ...] = ()
    unverified: tuple[str, ...] = ()
    impact: tuple[ResourceImpact, ...] | None = None
    unverified_reason: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def has_changes(self) -> bool:
        return bool(self.add or self.remove or self.upsert or self.delete)

    @property
    def has_deletions(self) -> bool:
        return bool(self.remove or self.delete)

    def changes_dict(self) -> dict[str, Any]:
        """The changes alone, as in :meth:`to_dict` (what two plans must share to be equal)."""
        return {
            "acls": {
                "add": [_binding_dict(a) for a in self.add],
                "remove": [_binding_dict(a) for a in self.remove],
            },
            "users": {
                "upsert": [u.to_dict() for u in self.upsert],
                "delete": [u.to_dict() for u in self.delete],
            },
        }

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON form: format, file, file_sha256, state_fingerprint, changes (as
        :meth:`changes_dict`), unverified, unverified_reason, warnings and impact."""
        return {
            "format": PLAN_FORMAT,
            "file": self.file,
            "file_sha256": self.file_sha256,
            "state_fingerprint": self.fingerprint,
            "has_changes": self.has_changes,
            **self.changes_dict(),
            "unverified": list(self.unverified),
            "unverified_reason": self.unverified_reason,
            "warnings": list(self.warnings),
            "impact": None if self.impact is None else [i.to_dict() for i in self.impact],
        }


def plan(
    desired: DesiredState,
    current: CurrentState,
    inventory: Sequence[tuple[ResourceType, str]] | None = None,
    *,
    passwords: Passwords | None = None,
    set_unverified: bool = False,
) -> Plan:
    """The plan from ``current`` to ``desired``; ``passwords`` by (user, mechanism) for the
    users whose entry names a source (:func:`aclog.desired.passwords.read_passwords`).
    ``set_unverified``: a declared password that cannot be checked (through the admin API, or
    in a history ``aclog follow`` wrote) is set anyway, so a changed password reaches a cluster
    (``--set-passwords``). :class:`PlanError` (one line per problem) when a credential needs a
    password the file does not name, or the file declares GLOB ACLs and ``current``'s target
    does not store them."""
    problems = glob_errors(desired, current)
    if problems:
        raise PlanError("\n".join(problems))
    add, remove = _acl_changes(desired, current)
    upsert, unverified = _user_upserts(desired, current, passwords or {}, set_unverified)
    wanted = {u.key for u in desired.users}
    delete = tuple(
        UserChange(name, mechanism, None, "not in the file")
        for name, mechanism in sorted(current.users)
        if (name, mechanism) not in wanted and desired.owns.owns_user(name)
    )
    impact = None
    if inventory is not None:
        impact = tuple(
            impact_of_changing(
                planning_records(current.acls),
                planning_records(add),
                planning_records(remove),
                inventory,
            )
        )
    return Plan(
        desired.path,
        desired.sha256,
        current.fingerprint,
        add,
        remove,
        upsert,
        delete,
        unverified,
        impact,
        current.unknown_keys_reason if unverified else None,
        plan_warnings(add, remove, current),
    )


def _acl_changes(
    desired: DesiredState, current: CurrentState
) -> tuple[tuple[AclBinding, ...], tuple[AclBinding, ...]]:
    """The ACLs to add (declared, absent; file order) and to remove (present, owned, not
    declared; sorted)."""
    present = set(current.acls)
    declared = set(desired.acls)
    add = tuple(a for a in desired.acls if a not in present)
    owned_gone = (a for a in current.acls if a not in declared and desired.owns.owns_acl(a))
    return add, tuple(sorted(owned_gone, key=lambda a: a.key))


def _user_upserts(
    desired: DesiredState, current: CurrentState, passwords: Passwords, set_unverified: bool
) -> tuple[tuple[UserChange, ...], tuple[str, ...]]:
    upserts: list[UserChange] = []
    unverified: list[str] = []
    for user in desired.users:
        label = f"{user.name} ({user.mechanism.mechanism_name})"
        iterations = current.users.get(user.key)
        password = passwords.get(user.key)
        if iterations is None:
            reason = "new"
        elif iterations != user.iterations:
            reason = f"iterations {iterations} -> {user.iterations}"
        elif password is None:
            continue
        else:
            matches = current.password_matches(user.key, password)
            if matches is None and not set_unverified:
                unverified.append(label)
                continue
            if matches:
                continue
            reason = "password differs" if matches is False else "password set (not checkable)"
        if password is None:
            raise PlanError(
                f"{desired.path}:{user.line}: user {label} needs a password to be "
                f"{'created' if iterations is None else 'changed'} ({reason}); add password_env "
                "or password_file"
            )
        upserts.append(UserChange(user.name, user.mechanism, user.iterations, reason))
    return tuple(upserts), tuple(unverified)


def _binding_dict(binding: AclBinding) -> dict[str, str]:
    row = acl_to_dict(binding.with_id(uuid.UUID(int=0)))
    del row["id"]
    return row


def plan_from_dict(data: Mapping[str, Any]) -> Plan:
    """A plan read back from its JSON form (without its impact); :class:`PlanError` when the
    data is not a plan this aclog wrote."""
    try:
        if data["format"] != PLAN_FORMAT:
            raise PlanError(f"plan format {data['format']!r} is not {PLAN_FORMAT}")
        return Plan(
            str(data["file"]),
            str(data["file_sha256"]),
            str(data["state_fingerprint"]),
            tuple(_binding(row) for row in data["acls"]["add"]),
            tuple(_binding(row) for row in data["acls"]["remove"]),
            tuple(_user_change(row) for row in data["users"]["upsert"]),
            tuple(_user_change(row) for row in data["users"]["delete"]),
            tuple(str(u) for u in data["unverified"]),
            None,
            data.get("unverified_reason"),
            tuple(str(w) for w in data.get("warnings", ())),
        )
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, PlanError):
            raise
        raise PlanError(
            f"not a plan written by aclog plan --out ({error!r} missing or bad)"
        ) from None


def _binding(row: Mapping[str, str]) -> AclBinding:
    return AclBinding(
        ResourceType[row["resource_type"]],
        row["resource_name"],
        PatternType[row["pattern_type"]],
        row["principal"],
        row["host"],
        AclOperation[row["operation"]],
        AclPermissionType[row["permission_type"]],
    )


def _user_change(row: Mapping[str, Any]) -> UserChange:
    mechanism = ScramMechanism.parse(str(row["mechanism"]))
    iterations = row["iterations"]
    return UserChange(
        str(row["name"]),
        mechanism,
        None if iterations is None else int(iterations),
        str(row["reason"]),
    )
