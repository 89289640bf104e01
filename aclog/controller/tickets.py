"""The ticket of each mutation: how CreateAcls, DeleteAcls and AlterUserScramCredentials are
decided when the group commit that carries them runs.

A :class:`~aclog.controller.group.Ticket` pairs a ``decide`` function (an image in, records and
per-item results out, nothing changed) with the response that fails every item of the request
at once. Each decision first checks that the caller may ALTER the CLUSTER resource, then asks
the ACL or SCRAM control manager, against the pending image the earlier requests of the group
leave.

Plain functions over a :class:`Deciders` protocol rather than a mixin or an object of their own:
they hold no state, and they read the controller's authorizer and control managers when the
decision runs (as the controller's own methods did), so nothing is copied that could go stale.

Thread-safe to build; ``decide`` runs under the controller's commit lock. Cost: building a
ticket is O(1) (O(users) for SCRAM); deciding is the control manager's cost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from aclog.acl import ApiError
from aclog.acl.filters import AclFilter
from aclog.controller.acl_manager import AclControlManager
from aclog.controller.authorization import ClusterAuthorizer, check_cluster_access
from aclog.controller.group import Ticket
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.result import (
    AclCreateResult,
    AclDeleteResult,
    ControllerResult,
    ScramAlterResult,
)
from aclog.controller.scram_manager import ScramControlManager
from aclog.image import MetadataImage
from aclog.records import AclBinding, AclOperation

if TYPE_CHECKING:
    from aclog.controller.caller import Caller

T = TypeVar("T")


class Deciders(Protocol):
    """What deciding a request reads from its controller, at the time the decision runs."""

    authorizer: ClusterAuthorizer | None
    acl_manager: AclControlManager
    scram_manager: ScramControlManager


def check_caller(
    owner: Deciders, caller: Caller, operation: AclOperation, *, acl_api: bool
) -> ApiError | None:
    """``None`` when ``caller`` may do ``operation`` on the cluster, else every item's error."""
    return check_cluster_access(
        owner.authorizer, caller.principal, caller.client_address, operation, acl_api=acl_api
    )


def creating(
    owner: Deciders, acls: Sequence[AclBinding], caller: Caller
) -> Ticket[list[AclCreateResult]]:
    """CreateAcls: one result per binding, in request order."""
    return _checked(
        owner,
        caller,
        lambda image: owner.acl_manager.create_acls(image.acls, acls),
        lambda e: [AclCreateResult(e)] * len(acls),
        acl_api=True,
    )


def deleting(
    owner: Deciders, filters: Sequence[AclFilter], caller: Caller
) -> Ticket[list[AclDeleteResult]]:
    """DeleteAcls: one result per filter, in request order, each with the ACLs it removes."""
    return _checked(
        owner,
        caller,
        lambda image: owner.acl_manager.delete_acls(image.acls, filters),
        lambda e: [AclDeleteResult(e)] * len(filters),
        acl_api=True,
    )


def altering(
    owner: Deciders,
    upsertions: Sequence[ScramUpsertion],
    deletions: Sequence[ScramDeletion],
    caller: Caller,
) -> Ticket[list[ScramAlterResult]]:
    """AlterUserScramCredentials: the SCRAM manager's results; a denied or failed request
    answers each user it names once, in first-mention order (deletions first)."""
    users = list(dict.fromkeys([d.name for d in deletions] + [u.name for u in upsertions]))
    return _checked(
        owner,
        caller,
        lambda image: owner.scram_manager.alter(image.scram, upsertions, deletions),
        lambda e: [ScramAlterResult(u, e) for u in users],
        acl_api=False,
    )


def _checked(
    owner: Deciders,
    caller: Caller,
    decide: Callable[[MetadataImage], ControllerResult[T]],
    failed: Callable[[ApiError], T],
    *,
    acl_api: bool,
) -> Ticket[T]:
    """The ticket of a mutation: when it is decided, a caller who may not ALTER the cluster
    gets ``failed(denied)`` and no records; anyone else gets ``decide``'s records and results.
    ``failed`` also answers the request if its commit fails."""

    def decide_checked(image: MetadataImage) -> ControllerResult[T]:
        denied = check_caller(owner, caller, AclOperation.ALTER, acl_api=acl_api)
        if denied is not None:
            return ControllerResult((), failed(denied))
        return decide(image)

    return Ticket(decide_checked, caller, failed)
