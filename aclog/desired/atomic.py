"""Applying a plan to a data directory as ONE batch: every ACL creation and removal and every
SCRAM change of the plan, led by one request context (who, from where, which file and its
SHA-256), committed atomically or not at all.

The plan is decided as one controller ticket, under the commit lock, against the pending image:
if that image's fingerprint is not the plan's (someone committed in between), or the caller may
not ALTER the cluster, or any single item fails the controller's checks, the ticket produces no
records and nothing is written. Otherwise the ACL and SCRAM control managers' records go into one
batch, and the image advances only by replaying it (as every commit does).

Thread-safe as the controller's commits are. Cost: one commit; deciding is O(changes).
"""

from __future__ import annotations

from aclog.acl import ApiError, Errors
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller
from aclog.controller.group import Ticket
from aclog.controller.result import ControllerResult
from aclog.controller.tickets import check_caller
from aclog.desired.apply import (
    ApplyResult,
    ItemResult,
    acl_items,
    exact_filter,
    round_keys,
    scram_changes,
    scram_rounds,
    user_items,
)
from aclog.desired.current import CurrentState
from aclog.desired.passwords import Passwords
from aclog.desired.planning import Plan
from aclog.image import MetadataImage
from aclog.records import AclOperation, Record, ScramMechanism

NOT_APPLIED = ApiError(Errors.INVALID_REQUEST, "not applied: another item of the plan failed")


def apply_atomically(
    plan: Plan, controller: Controller, passwords: Passwords, caller: Caller
) -> ApplyResult:
    """Commit ``plan`` to ``controller``'s log as one batch, or nothing (see the module)."""
    upsertions, deletions = scram_changes(plan, passwords)

    def decide(image: MetadataImage) -> ControllerResult[ApplyResult]:
        denied = check_caller(controller, caller, AclOperation.ALTER, acl_api=True)
        if denied is not None:
            return _refused(f"{caller.principal} may not alter the cluster: {denied.message}")
        now = CurrentState.from_image(image).fingerprint
        if now != plan.fingerprint:
            return _refused(
                f"the state changed while applying ({plan.fingerprint} planned, {now} now); "
                "nothing was applied: run aclog plan again"
            )
        created = controller.acl_manager.create_acls(image.acls, plan.add)
        removed = controller.acl_manager.delete_acls(
            image.acls, [exact_filter(a) for a in plan.remove]
        )
        scram_records: list[Record] = []
        errors: dict[tuple[str, ScramMechanism], ApiError] = {}
        for round_upserts, round_deletes in scram_rounds(upsertions, deletions):
            # Each round names a user once, so rounds are independent of each other's records.
            altered = controller.scram_manager.alter(image.scram, round_upserts, round_deletes)
            scram_records += altered.records
            by_user = {r.user: r.error for r in altered.response}
            for key in round_keys(round_upserts, round_deletes):
                errors[key] = by_user[key[0]]
        items = [
            *acl_items("add", plan.add, created.response),
            *acl_items("remove", plan.remove, removed.response),
            *user_items(plan, errors),
        ]
        if any(not item.error.is_success for item in items):
            return ControllerResult((), _none_applied(items))
        records = (*created.records, *removed.records, *scram_records)
        return ControllerResult(records, ApplyResult(tuple(items), committed=bool(records)))

    def failed(error: ApiError) -> ApplyResult:
        return ApplyResult((), committed=False, refused=f"the commit failed: {error.message}")

    return controller.commit(Ticket(decide, caller, failed))


def _refused(reason: str) -> ControllerResult[ApplyResult]:
    return ControllerResult((), ApplyResult((), committed=False, refused=reason))


def _none_applied(items: list[ItemResult]) -> ApplyResult:
    """Every item that would have succeeded is marked not applied: nothing was committed."""
    marked = tuple(
        item if not item.error.is_success else ItemResult(item.action, item.subject, NOT_APPLIED)
        for item in items
    )
    return ApplyResult(marked, committed=False)
