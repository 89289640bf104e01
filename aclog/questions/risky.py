"""Risky grants: ALLOW ACLs that give more than a grant usually should.

- ``any_principal``: the principal is ``User:*`` (or a GLOB principal matching everything):
  every authenticated principal, and ANONYMOUS on an unauthenticated listener. An error when
  the operation is sensitive, else a warning.
- ``wildcard_resource``: the resource is every name of its type (LITERAL ``*``, or a GLOB of
  stars only). A warning.
- ``all_operations``: the operation is ALL, which includes every sensitive one. A warning; an
  error on the CLUSTER, where ALL includes ALTER (managing every ACL) and CLUSTER_ACTION.
- ``any_host_sensitive``: a sensitive operation allowed from any host (``*``), where an
  administrative grant can usually name its hosts. Info.

Sensitive operations: ALTER, ALTER_CONFIGS, CLUSTER_ACTION, IDEMPOTENT_WRITE on the cluster,
DELETE, and ALL. DENY ACLs are never risky.

Pure; thread-safe; O(ACLs).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from aclog.questions.coverage import is_universal, principal_span, resource_span
from aclog.questions.findings import Finding, Severity
from aclog.questions.pattern_text import short_acl
from aclog.records import AccessControlEntryRecord, AclOperation, AclPermissionType, ResourceType

_O = AclOperation
SENSITIVE_OPERATIONS = frozenset({_O.ALL, _O.ALTER, _O.ALTER_CONFIGS, _O.CLUSTER_ACTION, _O.DELETE})
"""Sensitive on every resource type; IDEMPOTENT_WRITE is sensitive on the cluster too."""


def is_sensitive(acl: AccessControlEntryRecord) -> bool:
    """True when ``acl``'s operation is sensitive on its resource type."""
    return is_sensitive_operation(acl.operation, acl.resource_type)


def is_sensitive_operation(operation: AclOperation, resource_type: ResourceType) -> bool:
    """True when ``operation`` is sensitive on ``resource_type``."""
    if operation in SENSITIVE_OPERATIONS:
        return True
    return resource_type == ResourceType.CLUSTER and operation == _O.IDEMPOTENT_WRITE


def risky_grants(acls: Iterable[AccessControlEntryRecord]) -> list[Finding]:
    """The risky-grant findings for ``acls``, ACL by ACL."""
    return [
        finding
        for acl in acls
        if acl.permission_type == AclPermissionType.ALLOW
        for finding in risks_of(acl)
    ]


def risks_of(acl: AccessControlEntryRecord) -> Iterator[Finding]:
    """The risky-grant findings of one ALLOW ACL, in the order the module lists the kinds."""
    what = short_acl(acl)
    sensitive = is_sensitive(acl)
    if is_universal(principal_span(acl)):
        severity = Severity.ERROR if sensitive else Severity.WARNING
        reason = f"{what}: any principal may {acl.operation.name}, including ANONYMOUS"
        yield Finding("any_principal", severity, reason, (acl,))
    if is_universal(resource_span(acl)):
        kind = acl.resource_type.name.lower().replace("_", " ")
        reason = f"{what}: applies to every {kind}, present and future"
        yield Finding("wildcard_resource", Severity.WARNING, reason, (acl,))
    if acl.operation == _O.ALL:
        on_cluster = acl.resource_type == ResourceType.CLUSTER
        severity = Severity.ERROR if on_cluster else Severity.WARNING
        reason = f"{what}: ALL grants every operation, the sensitive ones included"
        yield Finding("all_operations", severity, reason, (acl,))
    if sensitive and acl.host == "*":
        reason = f"{what}: a sensitive operation allowed from any host"
        yield Finding("any_host_sensitive", Severity.INFO, reason, (acl,))
