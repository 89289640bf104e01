"""The decision procedure over an :class:`AclIndex`, without super users or the ready gate.

For a request (principal, host, operation) on a resource (type, name), the ACLs "on the
resource" are those whose pattern applies to the name: LITERAL equal, PREFIXED a prefix (equal
included), LITERAL ``*``, GLOB matching. Of those, an ACL matches the request when it covers the
principal and host (:class:`IndexedAcl`) and its operation fits
(:mod:`aclog.authorizer.operations`). Then: any matching DENY denies; else any matching ALLOW
allows; else the default applies only if no ACL at all is on the resource, and otherwise the
request is denied.

``host`` arguments here are already canonical (:func:`canonical_host`).

Pure; thread-safe. Each function is one trie walk: O(len(name)) plus the candidate GLOBs.
"""

from __future__ import annotations

from aclog.authorizer import buckets
from aclog.authorizer.glob import compile_glob
from aclog.authorizer.index import AclIndex
from aclog.authorizer.operations import ALLOW_OPS, DENY_OPS
from aclog.records.enums import AclOperation, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord

DENIED = buckets.DENY
ALLOWED = buckets.ALLOW
NO_MATCH = buckets.NONE
NO_ACL = -1
"""Outcomes of :func:`decide`: a DENY matched, an ALLOW matched, ACLs exist on the resource but
none matched, or no ACL is on the resource at all (the default applies)."""

Ranked = tuple[int, AccessControlEntryRecord]


def decide(
    index: AclIndex,
    principal: str,
    host: str,
    operation: AclOperation,
    resource_type: ResourceType,
    name: str,
) -> int:
    """:data:`DENIED`, :data:`ALLOWED`, :data:`NO_MATCH` or :data:`NO_ACL`. Stops at the first
    matching DENY."""
    trie = index.trie(resource_type)
    if trie is None:
        return NO_ACL
    deny_ops, allow_ops = DENY_OPS[operation], ALLOW_OPS[operation]
    outcome = NO_ACL
    for _, _, container in trie.applicable(name):
        found = buckets.verdict(container, principal, host, deny_ops, allow_ops)
        if found == DENIED:
            return DENIED
        outcome = max(outcome, found)
    return outcome


def matching(
    index: AclIndex,
    principal: str,
    host: str,
    operation: AclOperation,
    resource_type: ResourceType,
    name: str,
) -> tuple[list[Ranked], bool]:
    """The ACLs that match the request, each with the name characters its pattern skips, most
    specific first; and whether any ACL is on the resource.

    Ties are broken by pattern type (LITERAL, PREFIXED, GLOB), then DENY before ALLOW, then id.
    """
    trie = index.trie(resource_type)
    if trie is None:
        return [], False
    deny_ops, allow_ops = DENY_OPS[operation], ALLOW_OPS[operation]
    ranked: list[Ranked] = []
    on_resource = False
    for _, skipped, container in trie.applicable(name):
        on_resource = True
        for entry in buckets.candidates(container, principal, host):
            if entry.operation in (deny_ops if entry.deny else allow_ops):
                ranked.append((skipped, entry.acl))
    ranked.sort(key=lambda r: (r[0], r[1].pattern_type, r[1].permission_type, r[1].id.int))
    return ranked, on_resource


def operations(
    index: AclIndex, principal: str, host: str, resource_type: ResourceType, name: str
) -> tuple[set[AclOperation], set[AclOperation], bool]:
    """The operations of the ALLOW and of the DENY ACLs on the resource that cover the principal
    and host, and whether any ACL is on the resource: one walk for every operation at once."""
    allowed: set[AclOperation] = set()
    denied: set[AclOperation] = set()
    trie = index.trie(resource_type)
    if trie is None:
        return allowed, denied, False
    on_resource = False
    for _, _, container in trie.applicable(name):
        on_resource = True
        for entry in buckets.candidates(container, principal, host):
            (denied if entry.deny else allowed).add(entry.acl.operation)
    return allowed, denied, on_resource


def skipped_characters(acl: AccessControlEntryRecord, name: str) -> int:
    """Specificity of ``acl`` for the resource ``name`` (which it must apply to): how many of the
    name's characters its pattern does not pin down. LITERAL equal 0; PREFIXED ``p``
    ``len(name) - len(p)``; GLOB ``len(name) - literal characters``; LITERAL ``*`` ``len(name)``
    (0 when the name is ``*`` itself, an exact match)."""
    if acl.pattern_type == PatternType.LITERAL:
        return 0 if acl.resource_name == name else len(name)
    if acl.pattern_type == PatternType.PREFIXED:
        return len(name) - len(acl.resource_name)
    return len(name) - compile_glob(acl.resource_name).literal_count
