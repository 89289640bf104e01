"""A Python port of Kafka's ``StandardAuthorizerData`` decision algorithm (KRaft, LITERAL and
PREFIXED only), to compare aclog's trie against Kafka's algorithm in the same runtime.

Sources: ``reference/kafka-acl-spec.md`` §2 (the sort order of stored ACLs), §6 (super users,
``allow.everyone.if.no.acl.found``), §7 (the decision procedure and the scan mechanics of
``findAclRule``/``checkSection``, including the wildcard quirk) and §8 (the ``Authorizer``
interface's default ``authorizeByResourceType``); ``reference/benchmarks.md`` §1.1 and §1.3.

What is ported faithfully:

- the ACLs are kept in one sorted collection in ``StandardAcl.compareTo`` order: resource type
  ascending, resource name **descending**, pattern type, operation, principal, host, permission;
- ``authorize`` runs ``checkSection`` twice. Pass 1 starts at the exemplar (type, name, UNKNOWN,
  "", "", UNKNOWN, UNKNOWN) and walks forward. A name that is a prefix of the requested name is
  considered, except a LITERAL one that is not an exact match, which is skipped ACL by ACL; a
  LITERAL ``*`` is considered wherever it is met; on any other name the scan jumps to a new
  exemplar at the longest common prefix (``matchesUpTo``) of the two names. The first matching
  DENY ends the decision. Pass 2 starts at (type, ``*``, LITERAL, ...) with the same rules;
- so Kafka's quirk is kept: LITERAL ``*`` ACLs do not apply to a name that starts with ``*`` and
  is longer than one character (spec §7 step 4, §14 quirk 1). aclog fixes this quirk, so the port
  and aclog may disagree on such names;
- a jump builds the new exemplar from the *exemplar's* name (``exemplar.resourceName()
  .substring(0, matchesUpTo)``), not the requested one. In pass 1 the two agree. In pass 2 the
  exemplar is ``*``: when the first non-prefix name after the ``*`` ACLs shares its first
  character with the requested name (possible only for names starting with a character below
  ``*``: space, ``!"#$%&'()``), a cut of 1 re-creates the same exemplar and Kafka's scan never
  ends, and a longer cut throws ``StringIndexOutOfBoundsException``. Read from the source (not in
  the spec) and reproduced with a standalone Java transcription of ``checkSection``; the port
  raises :class:`KafkaScanError` in both cases instead of hanging;
- ``findResult``: principal (the session principal or ``User:*``), then host (``*`` or equal
  text), then operation (ALL fits; ALLOW ACLs also fit by implication: DESCRIBE by READ, WRITE,
  DELETE, ALTER; DESCRIBE_CONFIGS by ALTER_CONFIGS; DENY only by the same operation);
- ``MatchingRuleBuilder``: DENY, else ALLOW, else the default rule when no ACL was considered at
  all (``hasResourceAcls`` counts ACLs of any principal, host or operation), else DENIED;
- ``authorizeByResourceType`` is the interface default: authorize ``hardcode`` first, then scan
  every ACL of the type and cancel ALLOW names by DENY names (spec §8), O(ACLs of the type).

Deliberate differences, all of which make the port *faster* than a literal transcription, so
speed-ups measured against it are conservative:

- the sorted collection is two-level: a ``SortedKeyList`` of *sections* (one per resource type,
  name and pattern type) each holding its ACLs in (operation, principal, host, permission) order.
  Iterating it visits the ACLs in exactly the order of Kafka's flat ``TreePSet`` and every
  ``tailSet`` exemplar lands on a section boundary, but ``matchesUpTo`` is computed once per
  section instead of once per ACL, and a skipped LITERAL section is skipped in O(1) (its ACLs are
  still counted in :attr:`KafkaPortAuthorizer.examined`);
- the collection is mutable (Kafka's ``AclCache`` is a persistent, copy-on-write structure) and
  :meth:`KafkaPortAuthorizer.load` is a bulk build (Kafka's ``loadSnapshot`` adds one at a time);
- no audit-log message is built and ``acls``/``authorizeByResourceType`` do not materialise
  ``AclBinding`` objects.

Not ported (other quirks of spec §14, irrelevant to the benchmark workloads): a stored principal
without a colon is compared as text rather than throwing, a session principal ``User:*`` is
answered rather than throwing, and hosts are compared as given (Kafka compares with
``getHostAddress()``; use canonical IP text). Names compare by code point, which equals Java's
UTF-16 order for characters up to U+FFFF (all benchmark names are ASCII).

Not thread-safe. ``authorize`` costs O(ACLs considered + jumps x log(sections)).
"""

from __future__ import annotations

import bisect
import uuid
from collections.abc import Iterable
from operator import attrgetter

from sortedcontainers import SortedKeyList

from aclog.authorizer.results import AuthorizerNotReadyError, Decision
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord

WILDCARD = "*"
WILDCARD_PRINCIPAL = "User:*"
HARDCODE = "hardcode"
"""The name the interface default ``authorizeByResourceType`` authorizes first."""

_LITERAL = PatternType.LITERAL
_PREFIXED = PatternType.PREFIXED
_UNKNOWN_PATTERN = chr(PatternType.UNKNOWN)
_LITERAL_PATTERN = chr(PatternType.LITERAL)
_ALL = AclOperation.ALL
_ALLOW = AclPermissionType.ALLOW
_DENY = AclPermissionType.DENY

# Section keys are strings that sort like (type, name descending, pattern type): the type as one
# character, each name character c flipped to chr(_FLIP - ord(c)), a terminator greater than every
# flipped character (so "abc" sorts before its prefix "ab"), then the pattern type as one character.
_FLIP = 0x10FFFE
_END = chr(0x10FFFF)
_ASCII_FLIP = str.maketrans({chr(c): chr(_FLIP - c) for c in range(128)})

_O = AclOperation
_IMPLIED = {
    _O.DESCRIBE: (_O.DESCRIBE, _O.READ, _O.WRITE, _O.DELETE, _O.ALTER),
    _O.DESCRIBE_CONFIGS: (_O.DESCRIBE_CONFIGS, _O.ALTER_CONFIGS),
}
_ALLOW_FITS = {op: frozenset({_ALL, op, *_IMPLIED.get(op, ())}) for op in AclOperation}
"""For a requested operation, the operations of the ALLOW ACLs that grant it (``findResult``)."""
_DENY_FITS = {op: frozenset({_ALL, op}) for op in AclOperation}


def flipped(name: str) -> str:
    """``name`` with every character flipped so that ascending order of the results is Java's
    descending ``String`` order (without the terminator)."""
    if name.isascii():
        return name.translate(_ASCII_FLIP)
    if "\U0010ffff" in name:
        raise ValueError("resource names may not contain U+10FFFF")
    return "".join([chr(_FLIP - ord(c)) for c in name])


def unflipped(text: str) -> str:
    """The inverse of :func:`flipped`."""
    return "".join([chr(_FLIP - ord(c)) for c in text])


_FLIPPED_WILDCARD = flipped(WILDCARD)


class KafkaScanError(RuntimeError):
    """Kafka's ``checkSection`` would throw or never return for this request (see
    :meth:`KafkaPortAuthorizer._check_section`)."""


def section_key(resource_type: int, name: str, pattern_type: int) -> str:
    """The sort key of (type, name, pattern type) in ``StandardAcl.compareTo`` order."""
    return chr(resource_type) + flipped(name) + _END + chr(pattern_type)


def matches_up_to(resource: str, pattern: str) -> int:
    """Kafka's ``matchesUpTo``: the length of the common prefix of the two names."""
    if resource.startswith(pattern):
        return len(pattern)
    limit = min(len(resource), len(pattern))
    i = 0
    while i < limit and resource[i] == pattern[i]:
        i += 1
    return i


def _acl_order(acl: AccessControlEntryRecord) -> tuple[int, str, str, int]:
    return (acl.operation, acl.principal, acl.host, acl.permission_type)


class _Section:
    """The ACLs of one (resource type, resource name, pattern type), in Kafka's order."""

    __slots__ = ("acls", "key", "name", "pattern", "rtype")

    def __init__(self, rtype: ResourceType, name: str, pattern: PatternType) -> None:
        self.rtype = rtype
        self.name = name
        self.pattern = pattern
        self.key = section_key(rtype, name, pattern)
        self.acls: list[AccessControlEntryRecord] = []


PatternKey = tuple[ResourceType, str, PatternType]


class KafkaPortAuthorizer:
    """Kafka's ``StandardAuthorizer`` decision algorithm over a sorted ACL collection.

    :attr:`examined` is the number of ACLs the last :meth:`authorize` call stepped over (Kafka's
    ``iterator.next()`` calls, counting the first ACL of a section the scan jumps away from).
    """

    def __init__(
        self, super_users: Iterable[str] = (), allow_everyone_if_no_acl_found: bool = False
    ) -> None:
        self.super_users = frozenset(super_users)
        self.allow_everyone = allow_everyone_if_no_acl_found
        self._sections: SortedKeyList = SortedKeyList(key=attrgetter("key"))
        self._by_pattern: dict[PatternKey, _Section] = {}
        self._by_id: dict[uuid.UUID, AccessControlEntryRecord] = {}
        self._ready = False
        self.examined = 0

    def __len__(self) -> int:
        return len(self._by_id)

    # -- mutations --------------------------------------------------------------------------

    def load(self, acls: Iterable[AccessControlEntryRecord]) -> None:
        """Replace every ACL (a bulk build) and mark the initial load complete.

        ``ValueError`` for a repeated id, an identical ACL or a pattern type other than LITERAL
        or PREFIXED (``AclCache.addAcl`` throws on the first two)."""
        by_id: dict[uuid.UUID, AccessControlEntryRecord] = {}
        by_pattern: dict[PatternKey, _Section] = {}
        for acl in acls:
            if acl.id in by_id:
                raise ValueError(f"ACL id {acl.id} appears twice")
            by_id[acl.id] = acl
            key = (acl.resource_type, acl.resource_name, acl.pattern_type)
            section = by_pattern.get(key)
            if section is None:
                _check_pattern(acl)
                section = by_pattern[key] = _Section(*key)
            section.acls.append(acl)
        for section in by_pattern.values():
            section.acls.sort(key=_acl_order)
            orders = [_acl_order(a) for a in section.acls]
            if any(orders[i] == orders[i + 1] for i in range(len(orders) - 1)):
                raise ValueError(f"identical ACLs on {section.name!r}")
        self._sections = SortedKeyList(by_pattern.values(), key=attrgetter("key"))
        self._by_pattern = by_pattern
        self._by_id = by_id
        self._ready = True

    def complete_initial_load(self) -> None:
        self._ready = True

    def add(self, acl: AccessControlEntryRecord) -> None:
        """``AclCache.addAcl``: ``ValueError`` if the id or an identical ACL is stored."""
        if acl.id in self._by_id:
            raise ValueError(f"ACL id {acl.id} is already stored")
        key = (acl.resource_type, acl.resource_name, acl.pattern_type)
        section = self._by_pattern.get(key)
        if section is None:
            _check_pattern(acl)
            section = _Section(*key)
            self._by_pattern[key] = section
            self._sections.add(section)
        order = _acl_order(acl)
        at = bisect.bisect_left(section.acls, order, key=_acl_order)
        if at < len(section.acls) and _acl_order(section.acls[at]) == order:
            raise ValueError("an identical ACL is already stored")
        section.acls.insert(at, acl)
        self._by_id[acl.id] = acl

    def remove(self, acl_id: uuid.UUID) -> None:
        """``AclCache.removeAcl``: ``KeyError`` if no ACL has the id."""
        acl = self._by_id.pop(acl_id)
        key = (acl.resource_type, acl.resource_name, acl.pattern_type)
        section = self._by_pattern[key]
        at = bisect.bisect_left(section.acls, _acl_order(acl), key=_acl_order)
        del section.acls[at]
        if not section.acls:
            self._sections.remove(section)
            del self._by_pattern[key]

    # -- queries ----------------------------------------------------------------------------

    def acls(self) -> list[AccessControlEntryRecord]:
        """Every ACL in Kafka's order (``acls(AclBindingFilter.ANY)``)."""
        return [acl for section in self._sections for acl in section.acls]

    def authorize(
        self,
        principal: str,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
    ) -> Decision:
        """``StandardAuthorizerData.authorize`` for one LITERAL resource."""
        if principal in self.super_users:
            return Decision.ALLOWED
        if not self._ready:
            raise AuthorizerNotReadyError("the Kafka port has not loaded its ACLs")
        allow_ops, deny_ops = _ALLOW_FITS[operation], _DENY_FITS[operation]
        flipped_name = flipped(name)
        found, on_first, examined = self._check_section(
            resource_type,
            name,
            flipped_name,
            _UNKNOWN_PATTERN,
            principal,
            host,
            allow_ops,
            deny_ops,
        )
        if found != _DENY:
            found2, on_second, examined2 = self._check_section(
                resource_type,
                name,
                _FLIPPED_WILDCARD,
                _LITERAL_PATTERN,
                principal,
                host,
                allow_ops,
                deny_ops,
            )
            examined += examined2
            on_first = on_first or on_second
            if found2 is not None:
                found = found2
        self.examined = examined
        if found == _DENY:
            return Decision.DENIED
        if found == _ALLOW:
            return Decision.ALLOWED
        if not on_first and self.allow_everyone:
            return Decision.ALLOWED
        return Decision.DENIED

    def _check_section(
        self,
        rtype: ResourceType,
        name: str,
        exemplar_name: str,
        pattern_char: str,
        principal: str,
        host: str,
        allow_ops: frozenset[AclOperation],
        deny_ops: frozenset[AclOperation],
    ) -> tuple[AclPermissionType | None, bool, int]:
        """One ``checkSection`` pass: (DENY, ALLOW or None; any ACL considered; ACLs examined).

        ``exemplar_name`` is the exemplar's name, flipped (:func:`flipped`)."""
        sections = self._sections
        type_char = chr(rtype)
        it = sections.islice(
            sections.bisect_key_left(type_char + exemplar_name + _END + pattern_char)
        )
        length = len(name)
        principals, hosts = (principal, WILDCARD_PRINCIPAL), (WILDCARD, host)
        found: AclPermissionType | None = None
        on_resource = False
        examined = 0
        while True:
            section = next(it, None)
            if section is None:
                break
            if section.rtype != rtype:
                examined += 1
                break
            acl_name = section.name
            upto = matches_up_to(name, acl_name)
            if upto == len(acl_name):
                if section.pattern == _LITERAL and upto != length:
                    examined += len(section.acls)  # skipped one by one in Kafka
                    continue
            elif not (acl_name == WILDCARD and section.pattern == _LITERAL):
                examined += 1
                # Kafka cuts the *exemplar's* name, not the requested one. They agree in pass 1;
                # in pass 2 the exemplar is "*", so a cut longer than 1 throws and a cut of 1
                # names the same exemplar again, and the scan would never end.
                if upto > len(exemplar_name):
                    raise KafkaScanError(
                        f"StringIndexOutOfBoundsException: {unflipped(exemplar_name)!r}"
                        f".substring(0, {upto}) while authorizing {name!r}"
                    )
                if upto == len(exemplar_name):
                    raise KafkaScanError(
                        f"checkSection would loop forever: the scan for {name!r} jumps back to "
                        f"its exemplar {unflipped(exemplar_name)!r} at {acl_name!r}"
                    )
                exemplar_name = exemplar_name[:upto]
                it = sections.islice(
                    sections.bisect_key_left(type_char + exemplar_name + _END + pattern_char)
                )
                continue
            on_resource = True
            acls = section.acls
            examined += len(acls)
            for index, acl in enumerate(acls):
                if acl.principal not in principals:  # Kafka: matchingPrincipals.contains
                    continue
                if acl.host not in hosts:
                    continue
                if acl.permission_type == _ALLOW:
                    if acl.operation in allow_ops:
                        found = _ALLOW
                elif acl.operation in deny_ops:
                    return _DENY, True, examined - (len(acls) - index - 1)
        return found, on_resource, examined

    def authorize_by_resource_type(
        self, principal: str, host: str, operation: AclOperation, resource_type: ResourceType
    ) -> Decision:
        """The ``Authorizer`` interface default (spec §8): O(ACLs of the type)."""
        if resource_type in (ResourceType.ANY, ResourceType.UNKNOWN) or operation in (
            AclOperation.ANY,
            AclOperation.UNKNOWN,
        ):
            raise ValueError("authorizeByResourceType needs a known type and operation")
        if self.authorize(principal, host, operation, resource_type, HARDCODE) == Decision.ALLOWED:
            return Decision.ALLOWED
        deny_literal: set[str] = set()
        deny_prefixed: set[str] = set()
        allow_literal: set[str] = set()
        allow_prefixed: set[str] = set()
        wildcard_allow = False
        sections = self._sections
        start = sections.bisect_key_left(chr(resource_type))
        stop = sections.bisect_key_left(chr(resource_type + 1))
        fits = (operation, _ALL)
        principals, hosts = (principal, WILDCARD_PRINCIPAL), (WILDCARD, host)
        for section in sections.islice(start, stop):
            literal = section.pattern == _LITERAL
            acl_name = section.name
            for acl in section.acls:
                if acl.host not in hosts:
                    continue
                if acl.principal not in principals:
                    continue
                if acl.operation not in fits:
                    continue
                if acl.permission_type == _DENY:
                    if literal:
                        if acl_name == WILDCARD:
                            return Decision.DENIED
                        deny_literal.add(acl_name)
                    else:
                        deny_prefixed.add(acl_name)
                    continue
                if acl.permission_type != _ALLOW:
                    continue
                if literal:
                    if acl_name == WILDCARD:
                        wildcard_allow = True
                        continue
                    allow_literal.add(acl_name)
                else:
                    allow_prefixed.add(acl_name)
        if wildcard_allow:
            return Decision.ALLOWED
        for literal, names in ((True, allow_literal), (False, allow_prefixed)):
            for allowed in names:
                if literal and allowed in deny_literal:
                    continue
                if any(allowed[:i] in deny_prefixed for i in range(1, len(allowed) + 1)):
                    continue
                return Decision.ALLOWED
        return Decision.DENIED


def _check_pattern(acl: AccessControlEntryRecord) -> None:
    if acl.pattern_type not in (_LITERAL, _PREFIXED):
        raise ValueError(
            f"the Kafka port stores LITERAL and PREFIXED ACLs only, not {acl.pattern_type.name}"
        )
