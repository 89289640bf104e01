"""``authorizeByResourceType`` extended to GLOB: is there at least one resource name of this type
for which authorize would answer ALLOWED?

Kafka's default implementation (``reference/kafka-acl-spec.md`` §8) first authorizes the name
``hardcode``, then scans the ACLs of the type, keeping those that cover the principal and host and
whose operation is the requested one or ALL (no implication), and looks for a kept ALLOW that no
kept DENY cancels. aclog keeps those steps and makes the answer checkable: it returns ALLOWED only
together with a concrete name that the full decision procedure allows.

1. If ``hardcode`` is allowed (super user, an ACL, or the allow-everyone default), that is the
   name.
2. A kept DENY that applies to every name (LITERAL ``*``, or a GLOB made only of ``*``) means no
   name can be allowed: DENIED.
3. Kafka's cancellations drop kept ALLOWs for which no name can work: a LITERAL allow by a
   LITERAL deny of the same name or a PREFIXED deny of a non-empty prefix of it (equal included);
   a PREFIXED allow by a PREFIXED deny of a non-empty prefix of its prefix; a GLOB allow by a
   PREFIXED deny of a non-empty prefix of its literal prefix.
4. Each remaining ALLOW proposes a few names it applies to, built with a character that no kept
   DENY's pattern contains: the LITERAL name; for PREFIXED ``p``, ``p`` plus that character, ``p``,
   and ``p`` plus a run longer than any GLOB deny; for LITERAL ``*`` the same three without ``p``;
   for a GLOB, its pattern with every ``?`` replaced by that character and every ``*`` by one,
   none, or a long run of it. The first proposal the decision procedure allows is the answer.

For ACL sets Kafka can express (LITERAL and PREFIXED with non-empty names) step 4 always succeeds
for an ALLOW that survives step 3, so the answer equals Kafka's. With GLOBs the answer is sound
(ALLOWED always comes with a name that is allowed) but not complete: when every proposal of
every ALLOW is denied, for instance by several GLOB DENYs that together cover an ALLOW GLOB,
the answer is DENIED even if some unusual name would be allowed. Like Kafka, it does not look for
names allowed only through implied operations or through the default, except ``hardcode``.

Pure; thread-safe. O(ACLs of the type) to scan, plus up to three decisions per kept ALLOW.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from aclog.acl.glob import compile_glob
from aclog.acl.matchers import WILDCARD_RESOURCE
from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.rules import candidates
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord

PROBE_NAME = "hardcode"
"""The name Kafka's default ``authorizeByResourceType`` authorizes first."""

_FIRST_FRESH = 0xE000  # the Private Use Area: characters real names rarely contain


def find_allowed_name(
    index: AclIndex,
    principal: str,
    host: str,
    operation: AclOperation,
    resource_type: ResourceType,
    allows: Callable[[str], bool],
) -> str | None:
    """A name of ``resource_type`` that ``allows`` (the full decision for this request) accepts,
    found as the module docstring describes; ``None`` when there is none to be found."""
    if allows(PROBE_NAME):
        return PROBE_NAME
    if index.names(resource_type) is None:
        return None
    kept_allows, kept_denies = _kept(index, principal, host, operation, resource_type)
    if any(_applies_to_every_name(d) for d in kept_denies):
        return None
    literal_denies = {d.resource_name for d in kept_denies if d.pattern_type == PatternType.LITERAL}
    prefix_denies = {
        d.resource_name
        for d in kept_denies
        if d.pattern_type == PatternType.PREFIXED and d.resource_name
    }
    fresh = fresh_character(kept_denies)
    run = 1 + max(
        (len(d.resource_name) for d in kept_denies if d.pattern_type == PatternType.GLOB),
        default=0,
    )
    for acl in kept_allows:
        if _cancelled(acl, literal_denies, prefix_denies):
            continue
        for name in proposals(acl, fresh, run):
            if allows(name):
                return name
    return None


def _kept(
    index: AclIndex,
    principal: str,
    host: str,
    operation: AclOperation,
    resource_type: ResourceType,
) -> tuple[list[AccessControlEntryRecord], list[AccessControlEntryRecord]]:
    allows: list[AccessControlEntryRecord] = []
    denies: list[AccessControlEntryRecord] = []
    names = index.names(resource_type)
    if names is None:
        return allows, denies
    fits = (operation, AclOperation.ALL)
    for _, rules in names.containers():
        for acl in candidates(rules, principal, host):
            if acl.operation in fits:
                if acl.permission_type == AclPermissionType.DENY:
                    denies.append(acl)
                elif acl.permission_type == AclPermissionType.ALLOW:
                    allows.append(acl)
    return allows, denies


def _applies_to_every_name(acl: AccessControlEntryRecord) -> bool:
    if acl.pattern_type == PatternType.LITERAL:
        return acl.resource_name == WILDCARD_RESOURCE
    if acl.pattern_type == PatternType.GLOB:
        glob = compile_glob(acl.resource_name)
        return glob.literal_count == 0 and glob.min_length == 0  # only stars
    return False


def _has_prefix_in(text: str, prefixes: set[str]) -> bool:
    """True when a non-empty prefix of ``text`` (``text`` included) is in ``prefixes``."""
    return any(text[:i] in prefixes for i in range(1, len(text) + 1))


def _cancelled(
    acl: AccessControlEntryRecord, literal_denies: set[str], prefix_denies: set[str]
) -> bool:
    name = acl.resource_name
    if acl.pattern_type == PatternType.LITERAL:
        if name == WILDCARD_RESOURCE:
            return False
        return name in literal_denies or _has_prefix_in(name, prefix_denies)
    if acl.pattern_type == PatternType.PREFIXED:
        return _has_prefix_in(name, prefix_denies)
    return _has_prefix_in(compile_glob(name).literal_prefix, prefix_denies)


def fresh_character(acls: Iterable[AccessControlEntryRecord]) -> str:
    """A character (from the Private Use Area) that no resource name of ``acls`` contains."""
    used = {char for acl in acls for char in acl.resource_name}
    code = _FIRST_FRESH
    while chr(code) in used:
        code += 1
    return chr(code)


def proposals(acl: AccessControlEntryRecord, fresh: str, run: int) -> Iterator[str]:
    """A few names ``acl``'s pattern applies to, built with ``fresh`` (step 4 of the module
    docstring): the LITERAL name itself, or the stem / the GLOB with wildcards filled by one,
    no and ``run`` fresh characters, in that order."""
    name = acl.resource_name
    if acl.pattern_type == PatternType.LITERAL and name != WILDCARD_RESOURCE:
        yield name
        return
    if acl.pattern_type in (PatternType.LITERAL, PatternType.PREFIXED):
        stem = "" if acl.pattern_type == PatternType.LITERAL else name
        yield from (stem + fresh, stem, stem + fresh * run)
        return
    glob = compile_glob(name)
    for stars in (1, 0, run):
        candidate = _instantiate(name, fresh, stars)
        if glob.matches(candidate):  # the one definition of GLOB has the last word
            yield candidate


def _instantiate(pattern: str, fresh: str, stars: int) -> str:
    """A name ``pattern`` should match: ``?`` -> ``fresh``, ``*`` -> ``fresh * stars``."""
    out: list[str] = []
    chars = iter(pattern)
    for char in chars:
        if char == "\\":
            out.append(next(chars, ""))
        elif char == "*":
            out.append(fresh * stars)
        elif char == "?":
            out.append(fresh)
        else:
            out.append(char)
    return "".join(out)
