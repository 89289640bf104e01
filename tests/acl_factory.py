"""ACL records and bindings for tests: one builder instead of a copy in every test file.

:func:`acl_binding` makes a binding to create; :func:`acl_record` makes an ALLOW, LITERAL ACL on
a topic (by default ``User:x`` reading from any host) whose id is a UUID or the small integer
``n`` as ``UUID(int=n)``: tests name their ACLs by number and resource name and state only what
differs.
"""

from __future__ import annotations

import uuid
from typing import Any

from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord, AclBinding


def acl_record(
    acl_id: int | uuid.UUID,
    name: str,
    principal: str = "User:x",
    host: str = "*",
    *,
    rt: Any = ResourceType.TOPIC,
    op: Any = AclOperation.READ,
) -> AccessControlEntryRecord:
    """An ALLOW, LITERAL ACL of ``principal`` from ``host`` for ``op`` on the ``rt`` resource
    ``name`` (``rt`` and ``op`` may be raw codes, as a record read from bytes may hold)."""
    return AccessControlEntryRecord(
        acl_id if isinstance(acl_id, uuid.UUID) else uuid.UUID(int=acl_id),
        rt,
        name,
        PatternType.LITERAL,
        principal,
        host,
        op,
        AclPermissionType.ALLOW,
    )


def acl_binding(name: str, principal: str = "User:alice") -> AclBinding:
    """A binding that lets ``principal`` READ the topic ``name`` from any host (LITERAL)."""
    return AclBinding(
        ResourceType.TOPIC,
        name,
        PatternType.LITERAL,
        principal,
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )
