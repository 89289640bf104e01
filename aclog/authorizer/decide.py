"""The decision procedure over an :class:`AclIndex`, without super users or the ready gate.

For a request (principal, host, operation) on a resource (type, name), the ACLs "on the
resource" are those whose pattern applies to the name: LITERAL equal, PREFIXED a prefix (equal
included), LITERAL ``*``, GLOB matching. Of those, an ACL matches the request when it covers the
principal and host (:func:`~aclog.acl.matchers.covers`) and its operation fits
(:mod:`aclog.acl.operations`). Then: any matching DENY denies; else any matching ALLOW
allows; else the default applies only if no ACL at all is on the resource, and otherwise the
request is denied.

``host`` arguments here are already canonical (:func:`canonical_host`).

Thread-safe; pure but for the index's memo of the rules that apply to a name (see
:mod:`aclog.authorizer.names`). Each function is a few hash probes: one for a remembered name,
else one for the LITERAL name, one per distinct prefix length and per distinct GLOB suffix length
up to ``len(name)`` (those the name's characters allow), plus one GLOB match per candidate GLOB
pattern; then one per applicable pattern.
"""

from __future__ import annotations

from aclog.acl.glob import compile_glob
from aclog.acl.operations import ALLOW_OPS, DENY_OPS
from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.memo import first_sight, host_bits, learn
from aclog.authorizer.results import Decision
from aclog.authorizer.rules import MASKS, operations_of, rules_bits
from aclog.authorizer.rules import candidates as covering
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord

DENIED = 2
ALLOWED = 1
NO_MATCH = 0
NO_ACL = -1
"""Outcomes of :func:`decide`: a DENY matched, an ALLOW matched, ACLs exist on the resource but
none matched, or no ACL is on the resource at all (the default applies)."""

Ranked = tuple[int, AccessControlEntryRecord]

_ALLOW = AclPermissionType.ALLOW
_DENY = AclPermissionType.DENY


def decide(
    index: AclIndex,
    principal: str,
    host: str,
    operation: AclOperation,
    resource_type: ResourceType,
    name: str,
) -> int:
    """:data:`DENIED`, :data:`ALLOWED`, :data:`NO_MATCH` or :data:`NO_ACL`."""
    bits = request_bits(index, principal, host, resource_type, name)
    deny, allow = MASKS[operation]
    if bits & deny:
        return DENIED
    if bits & allow:
        return ALLOWED
    return NO_MATCH if bits else NO_ACL


def decision_of(outcome: int, allow_everyone: bool) -> Decision:
    """The :class:`Decision` for an outcome of :func:`decide`: ALLOWED for a matching ALLOW,
    and for a resource without ACLs when ``allow_everyone``; else DENIED."""
    if outcome == ALLOWED or (outcome == NO_ACL and allow_everyone):
        return Decision.ALLOWED
    return Decision.DENIED


def request_bits(
    index: AclIndex, principal: str, host: str, resource_type: ResourceType, name: str
) -> int:
    """The operation bits (:mod:`aclog.authorizer.rules`) of every ACL on the resource that covers
    the principal and host, plus :data:`~aclog.authorizer.rules.ON_RESOURCE` when any ACL is on
    the resource; 0 when none is. The caller tests the request's DENY and ALLOW masks
    (:data:`MASKS`).

    The hot path of ``authorize``: the index's memo (:mod:`aclog.authorizer.memo`) knows, for a
    name and principal asked before, the bits of the ACLs from any host, so the usual request is
    two probes; only host-specific and glob ACLs, when the name has some, are
    tested each time. A new principal on a known name costs one probe per applicable pattern,
    a new name the probes of :func:`~aclog.authorizer.memo.first_sight`.
    """
    names = index.by_type.get(resource_type)
    if names is None:
        return 0
    seen = names.memo.get(name)
    if seen is None:
        return first_sight(names, name, principal, host)
    bits = seen.get(principal)
    if bits is None:
        bits = learn(seen, principal)
    if seen.extras:
        bits |= host_bits(seen.extras, principal, host)
    return bits


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
    names = index.by_type.get(resource_type)
    if names is None:
        return [], False
    deny, allow = MASKS[operation]
    deny_ops, allow_ops = DENY_OPS[operation], ALLOW_OPS[operation]
    ranked: list[Ranked] = []
    on_resource = False
    for _, skipped, rules in names.applicable(name):
        on_resource = True
        if not rules_bits(rules, principal, host) & (deny | allow):
            continue  # no ACL of this pattern matches: skip the per-ACL checks
        for acl in covering(rules, principal, host):
            permission = acl.permission_type
            if (permission == _DENY and acl.operation in deny_ops) or (
                permission == _ALLOW and acl.operation in allow_ops
            ):
                ranked.append((skipped, acl))
    ranked.sort(key=lambda r: (r[0], r[1].pattern_type, r[1].permission_type, r[1].id.int))
    return ranked, on_resource


def operations(
    index: AclIndex, principal: str, host: str, resource_type: ResourceType, name: str
) -> tuple[set[AclOperation], set[AclOperation], bool]:
    """The operations of the ALLOW and of the DENY ACLs on the resource that cover the principal
    and host, and whether any ACL is on the resource: one lookup for every operation at once."""
    names = index.by_type.get(resource_type)
    if names is None:
        return set(), set(), False
    bits = 0
    on_resource = False
    for _, _, rules in names.applicable(name):
        on_resource = True
        bits |= rules_bits(rules, principal, host)
    allowed, denied = operations_of(bits)
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
