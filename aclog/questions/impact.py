"""What adding (or removing) ACLs would change: KIP-1042's "effects of adding an ACL".

Given the current ACLs, the ACLs about to be added (and removed) and an inventory of resources,
it lists the resources each changed ACL applies to and, per resource, every (principal,
operation) whose decision flips. The principals examined on a resource are those named by ACLs
that already apply to it plus the changed ACLs' principals (a wildcard or GLOB principal stands
for itself: a caller literally named ``User:finance-*`` is matched by the pattern, so its
decision is the pattern's).
The host examined is the changed ACL's host when it is an IP address, else ``0.0.0.0`` (a client
that no host-specific ACL names).

Pure; thread-safe. Cost: two authorizer builds plus, per affected resource, one ``authorize``
per (principal, supported operation), before and after.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from aclog.authorizer import AclFilter, Authorizer, Decision, pattern_applies, supported_operations
from aclog.records import AccessControlEntryRecord, PatternType, ResourceType

ANY_OTHER_HOST = "0.0.0.0"


@dataclass(frozen=True)
class DecisionChange:
    """One (principal, host, operation) whose decision on a resource would change."""

    principal: str
    host: str
    operation: str
    before: Decision
    after: Decision


@dataclass(frozen=True)
class ResourceImpact:
    """A resource a changed ACL applies to, and the decisions it would change there."""

    resource_type: ResourceType
    name: str
    changes: list[DecisionChange] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "resource_type": self.resource_type.name,
            "resource_name": self.name,
            "changes": [
                {
                    "principal": c.principal,
                    "host": c.host,
                    "operation": c.operation,
                    "before": c.before.value,
                    "after": c.after.value,
                }
                for c in self.changes
            ],
        }


def impact_of_adding(
    current: Iterable[AccessControlEntryRecord],
    added: Sequence[AccessControlEntryRecord],
    inventory: Sequence[tuple[ResourceType, str]],
    *,
    allow_everyone_if_no_acl_found: bool = False,
) -> list[ResourceImpact]:
    """The inventory resources any of ``added`` applies to, in inventory order, each with the
    decisions that would change."""
    return impact_of_changing(
        current, added, (), inventory, allow_everyone_if_no_acl_found=allow_everyone_if_no_acl_found
    )


def impact_of_changing(
    current: Iterable[AccessControlEntryRecord],
    added: Sequence[AccessControlEntryRecord],
    removed: Sequence[AccessControlEntryRecord],
    inventory: Sequence[tuple[ResourceType, str]],
    *,
    allow_everyone_if_no_acl_found: bool = False,
) -> list[ResourceImpact]:
    """The inventory resources any of ``added`` or ``removed`` applies to, in inventory order,
    each with the decisions that adding ``added`` and removing ``removed`` (matched by their
    seven fields, not their ids) would change."""
    before = _authorizer(current, allow_everyone_if_no_acl_found)
    gone = {acl.key for acl in removed}
    kept = [acl for acl in before.acls(AclFilter()) if acl.key not in gone]
    after = _authorizer([*kept, *added], allow_everyone_if_no_acl_found)
    changed = [*added, *removed]
    impacts = []
    for resource_type, name in inventory:
        applying = [a for a in changed if _applies(a, resource_type, name)]
        if applying:
            changes = _changes(before, after, applying, resource_type, name)
            impacts.append(ResourceImpact(resource_type, name, changes))
    return impacts


def _authorizer(acls: Iterable[AccessControlEntryRecord], allow_everyone: bool) -> Authorizer:
    authorizer = Authorizer(allow_everyone_if_no_acl_found=allow_everyone)
    authorizer.load(acls)
    return authorizer


def _applies(acl: AccessControlEntryRecord, resource_type: ResourceType, name: str) -> bool:
    return acl.resource_type == resource_type and pattern_applies(
        acl.pattern_type, acl.resource_name, name
    )


def _changes(
    before: Authorizer,
    after: Authorizer,
    applying: list[AccessControlEntryRecord],
    resource_type: ResourceType,
    name: str,
) -> list[DecisionChange]:
    on_resource = before.acls(AclFilter(resource_type, name, PatternType.MATCH))
    principals = list(dict.fromkeys([a.principal for a in on_resource + applying]))
    hosts = list(dict.fromkeys(_host(a.host) for a in applying))
    changes = []
    for principal in principals:
        for host in hosts:
            for operation in sorted(supported_operations(resource_type)):
                old = before.authorize(principal, host, operation, resource_type, name)
                new = after.authorize(principal, host, operation, resource_type, name)
                if old != new:
                    changes.append(DecisionChange(principal, host, operation.name, old, new))
    return changes


def _host(host: str) -> str:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return ANY_OTHER_HOST
    return host
