"""The ids a plan gives the ACLs it loads into an authorizer (to show the effect of a change).

A plan compares bindings, which have no ids (a cluster's admin API shows none), yet an
authorizer keys its ACLs by id and refuses one id twice in a load. :func:`planning_id` derives
an ACL's id from its seven fields: the same ACL always gets the same id and two different ACLs
never share one, so the current ACLs, the additions and the removals can be loaded together in
any combination. This module is the one definition of those ids.

Pure; thread-safe. Cost: one SHA-1 (``uuid5``) per ACL.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable

from aclog.records import AccessControlEntryRecord, AclBinding

_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "aclog:desired:planning-id")


def planning_id(binding: AclBinding) -> uuid.UUID:
    """The id ``binding`` has in every authorizer a plan builds: a name-based UUID of its
    seven fields (enums as their codes), so distinct ACLs get distinct ids."""
    fields = [int(f) if isinstance(f, int) else f for f in binding.key]
    return uuid.uuid5(_NAMESPACE, json.dumps(fields, separators=(",", ":")))


def planning_records(bindings: Iterable[AclBinding]) -> list[AccessControlEntryRecord]:
    """``bindings`` as stored records under their :func:`planning_id`."""
    return [b.with_id(planning_id(b)) for b in bindings]
