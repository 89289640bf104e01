"""Why a request is allowed or denied: the reason, the deciding ACL and every matching ACL.

:func:`explanation` is :meth:`Authorizer.explain <aclog.authorizer.authorizer.Authorizer.explain>`
once the request's arguments, super users and readiness are checked: the same decision as
:func:`~aclog.authorizer.decide.decide`, with the ACLs behind it (DESIGN.md §3: the deciding ACL
is the most specific matching DENY if any, else the most specific matching ALLOW).

Pure; thread-safe (reads one immutable :class:`AclIndex`). O(len(name)) + candidate GLOBs +
sorting the matches.
"""

from __future__ import annotations

import aclog.authorizer.decide as core
from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.results import Decision, Explanation, describe_acl
from aclog.records.enums import AclOperation, AclPermissionType, ResourceType


def explanation(
    index: AclIndex,
    principal: str,
    canonical: str,
    operation: AclOperation,
    resource_type: ResourceType,
    name: str,
    allow_everyone: bool,
) -> Explanation:
    """The decision on the request by the ACLs of ``index`` (``canonical``: the client's host in
    canonical form; ``allow_everyone``: the decision for a resource without ACLs), with why."""
    ranked, on_resource = core.matching(index, principal, canonical, operation, resource_type, name)
    acls = [acl for _, acl in ranked]
    deny = next((acl for acl in acls if acl.permission_type == AclPermissionType.DENY), None)
    if deny is not None:
        return Explanation(Decision.DENIED, f"denied by {describe_acl(deny)}", deny, acls)
    if acls:
        return Explanation(Decision.ALLOWED, f"allowed by {describe_acl(acls[0])}", acls[0], acls)
    if not on_resource:
        setting = "true" if allow_everyone else "false"
        decision = Decision.ALLOWED if allow_everyone else Decision.DENIED
        reason = f"no ACL on the resource; allow.everyone.if.no.acl.found={setting}"
        return Explanation(decision, reason)
    reason = "ACLs exist on the resource but none allows this principal/host/operation"
    return Explanation(Decision.DENIED, reason)
