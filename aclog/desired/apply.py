"""Applying a plan: on a data directory as ONE atomic batch, or through the admin API item by
item (creations, then deletions, then SCRAM changes), with a result per item either way.

Before anything is written, :func:`check_plan` refuses a plan whose deletions were not allowed
(``--allow-delete``) and a plan file computed against another state or another file. On a data
directory the state is checked again inside the commit (:mod:`aclog.desired.atomic`), so a
change that lands between the plan and the commit is refused, never overwritten; if any item
would fail there, nothing is committed.

Not thread-safe beyond what the writer is. Cost: one request per kind of change and part
(remote: 10,000 creations or 1,000 removals a request), or
one commit (data directory), plus one PBKDF2 per credential upserted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aclog.acl import ApiError, Errors
from aclog.acl.filters import AclFilter
from aclog.controller import (
    AclCreateResult,
    AclDeleteResult,
    ScramDeletion,
    ScramUpsertion,
    upsertion_for_password,
)
from aclog.controller.caller import Caller
from aclog.controller.writer import MetadataWriter
from aclog.desired.limits import CREATE_PART, DELETE_PART, request_parts
from aclog.desired.passwords import Passwords
from aclog.desired.planning import Plan, UserChange
from aclog.desired.state import describe_binding
from aclog.records import AclBinding, ScramMechanism

NO_RESULT = ApiError(Errors.UNKNOWN_SERVER_ERROR, "the cluster sent no result for this user")


class ApplyRefused(RuntimeError):
    """A plan that must not be applied as it is; the message says why and what to do."""


@dataclass(frozen=True)
class ItemResult:
    """The outcome of one change of a plan."""

    action: str  # add / remove (ACLs), upsert / delete (SCRAM credentials)
    subject: dict[str, Any]
    error: ApiError = ApiError.NONE

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            **self.subject,
            "error_code": self.error.code,
            "error_message": self.error.message,
        }


@dataclass(frozen=True)
class ApplyResult:
    """Every item's outcome; ``committed`` is False when nothing was written (a refusal, or a
    data-directory apply where some item failed)."""

    items: tuple[ItemResult, ...] = ()
    committed: bool = True
    refused: str | None = None
    offsets: tuple[int, int] | None = field(default=None)

    @property
    def failures(self) -> list[ItemResult]:
        return [i for i in self.items if not i.error.is_success]

    def to_dict(self) -> dict[str, Any]:
        return {
            "committed": self.committed,
            "refused": self.refused,
            "results": [i.to_dict() for i in self.items],
        }


def check_plan(plan: Plan, *, allow_delete: bool, saved: Plan | None = None) -> None:
    """Raise :class:`ApplyRefused` when ``plan`` (just computed) must not be applied: it deletes
    without ``allow_delete``, or ``saved`` (from ``plan --out``) was computed against another
    state or file, or holds other changes."""
    if saved is not None:
        if saved.fingerprint != plan.fingerprint:
            raise ApplyRefused(
                f"the state has changed since the plan was made ({saved.fingerprint} then, "
                f"{plan.fingerprint} now); run aclog plan again and review it"
            )
        if saved.file_sha256 != plan.file_sha256 or saved.changes_dict() != plan.changes_dict():
            raise ApplyRefused(
                f"{plan.file} (or a password it names) has changed since the plan was made; run "
                "aclog plan again and review it"
            )
    if plan.has_deletions and not allow_delete:
        doomed = [f"  remove ACL {describe_binding(a)}" for a in plan.remove]
        doomed += [f"  delete user {u.name} ({u.mechanism.mechanism_name})" for u in plan.delete]
        raise ApplyRefused(
            "the plan deletes what the file owns but no longer declares; nothing was applied. "
            "Give --allow-delete to apply it, or declare these again:\n" + "\n".join(doomed)
        )


def exact_filter(acl: AclBinding) -> AclFilter:
    """The DeleteAcls filter that matches exactly this ACL."""
    return AclFilter(
        acl.resource_type,
        acl.resource_name,
        acl.pattern_type,
        acl.principal,
        acl.host,
        acl.operation,
        acl.permission_type,
    )


def scram_changes(
    plan: Plan, passwords: Passwords
) -> tuple[list[ScramUpsertion], list[ScramDeletion]]:
    """The upsertions (salted and hashed here; the password goes no further) and deletions."""
    upsertions = []
    for change in plan.upsert:
        password = passwords.get((change.name, change.mechanism))
        if password is None or change.iterations is None:
            raise ApplyRefused(f"no password for user {change.name}; name one in the file")
        upsertions.append(
            upsertion_for_password(change.name, change.mechanism, password, change.iterations)
        )
    deletions = [ScramDeletion(d.name, d.mechanism) for d in plan.delete]
    return upsertions, deletions


def acl_items(
    action: str, acls: Sequence[AclBinding], results: Sequence[AclCreateResult | AclDeleteResult]
) -> list[ItemResult]:
    """One item per ACL with its result (a writer answers one result per item, in order)."""
    return [ItemResult(action, acl_subject(a), r.error) for a, r in zip(acls, results, strict=True)]


ScramRound = tuple[list[ScramUpsertion], list[ScramDeletion]]


def scram_rounds(
    upsertions: list[ScramUpsertion], deletions: list[ScramDeletion]
) -> list[ScramRound]:
    """The changes split into requests that name each user at most once (Kafka refuses to
    alter one user twice in a request): a user's second mechanism goes into the next round."""
    rounds: list[tuple[set[str], ScramRound]] = []

    def place(name: str) -> ScramRound:
        for users, changes in rounds:
            if name not in users:
                users.add(name)
                return changes
        rounds.append(({name}, ([], [])))
        return rounds[-1][1]

    for deletion in deletions:
        place(deletion.name)[1].append(deletion)
    for upsertion in upsertions:
        place(upsertion.name)[0].append(upsertion)
    return [changes for _, changes in rounds]


def user_subject(change: UserChange) -> dict[str, Any]:
    return {"user": change.name, "mechanism": change.mechanism.mechanism_name}


def acl_subject(acl: AclBinding) -> dict[str, Any]:
    return {"acl": describe_binding(acl)}


def apply_remote(
    plan: Plan, writer: MetadataWriter, passwords: Passwords, caller: Caller
) -> ApplyResult:
    """Apply through the admin API: CreateAcls, then DeleteAcls (one exact filter per ACL), each
    in requests under Kafka's cap of 10,000 records (:mod:`aclog.desired.limits`), then
    AlterUserScramCredentials; each item's result as the cluster answers it."""
    upsertions, deletions = scram_changes(plan, passwords)
    items: list[ItemResult] = []
    for adds in request_parts(plan.add, CREATE_PART):
        items += acl_items("add", adds, writer.create_acls(list(adds), caller))
    for removes in request_parts(plan.remove, DELETE_PART):
        removed = writer.delete_acls([exact_filter(a) for a in removes], caller)
        items += acl_items("remove", removes, removed)
    errors: dict[tuple[str, ScramMechanism], ApiError] = {}
    for round_upserts, round_deletes in scram_rounds(upsertions, deletions):
        answered = writer.alter_scram(round_upserts, round_deletes, caller)
        results = {r.user: r.error for r in answered}
        for key in round_keys(round_upserts, round_deletes):
            errors[key] = results.get(key[0], NO_RESULT)
    items += user_items(plan, errors)
    return ApplyResult(tuple(items), committed=bool(items))


def round_keys(
    upsertions: list[ScramUpsertion], deletions: list[ScramDeletion]
) -> list[tuple[str, ScramMechanism]]:
    """The (user, mechanism) of every change of a round."""
    return [(d.name, d.mechanism) for d in deletions] + [(u.name, u.mechanism) for u in upsertions]


def user_items(plan: Plan, errors: dict[tuple[str, ScramMechanism], ApiError]) -> list[ItemResult]:
    """One item per credential change of the plan, deletions first, with its result."""
    return [
        ItemResult(action, user_subject(c), errors.get((c.name, c.mechanism), NO_RESULT))
        for action, changes in (("delete", plan.delete), ("upsert", plan.upsert))
        for c in changes
    ]
