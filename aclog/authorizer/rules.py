"""The ACLs of one resource pattern, folded into bit masks so that a request is a dict probe.

A :class:`Rules` holds every ACL whose resource pattern is one (type, pattern type, pattern). For
authorization it keeps, per principal, the OR of the ACLs' *operation bits*: bit
``POSITION[op]`` for an ALLOW of operation ``op``, that plus 15 for a DENY (Kafka's codes stop at
14, so every mask fits in 30 bits, one CPython int digit). ``POSITION[op]`` is ``(op - 1) % 15``:
ANY gets bit 0, which no request may ask for (:mod:`aclog.authorizer.decide` uses it to say "some
ACL is on the resource"), and ALL, READ, WRITE, CREATE, DELETE, ALTER and DESCRIBE get bits 1 to
7, so the ALLOW bits of the usual ACLs OR to ints below 256, which CPython preallocates: the hot
path's ``|`` allocates nothing and reads no int object from memory. A request for operation ``o``
is denied by any bit of ``MASKS[o][0]`` (``o`` or ALL, shifted) and allowed by any bit of
``MASKS[o][1]`` (``o``, ALL and the operations implying ``o``), so the ACLs of a pattern decide
with ``rules.get(principal, 0) | wild`` and two ``&``:

- ``exact`` (the :class:`Rules` object itself is that dict): principal text -> bits of the ACLs
  for that principal from any host;
- ``wild``: bits of the ``User:*`` ACLs from any host;
- ``extra`` (usually ``None``): host-specific ACLs keyed by canonical host, then by principal
  (``None`` for ``User:*``), so that a request from a host no ACL names costs one probe; and the
  ACLs whose principal or host is a glob (GLOB ACLs), tested one by one.

An ACL whose permission is neither ALLOW nor DENY adds no bit: it is on the resource but never
matches; no entry holds 0 bits. ``acls`` keeps the records themselves for listing, explaining
and removal; a pattern with many ACLs also keeps them in ``groups`` by destination (see
:mod:`aclog.authorizer.grouped`), so that a change recomputes one entry, not all.

Immutable; thread-safe. :func:`build` is O(ACLs of the pattern); :func:`rules_bits` is one dict
probe (plus two more and one GLOB match per glob field pair when ``extra`` is set).
"""

from __future__ import annotations

from collections.abc import Iterable

from aclog.acl.glob import Glob
from aclog.acl.matchers import (
    WILDCARD_HOST,
    WILDCARD_PRINCIPAL,
    Matcher,
    canonical_host,
    covers,
    field_matches,
    host_matcher,
    principal_matcher,
)
from aclog.acl.operations import ALLOW_OPS, DENY_OPS
from aclog.records.enums import AclOperation, AclPermissionType, PatternType
from aclog.records.types import AccessControlEntryRecord

DENY_SHIFT = 15
_ALLOW = AclPermissionType.ALLOW
_DENY = AclPermissionType.DENY
_GLOB = PatternType.GLOB


POSITION = tuple((op - 1) % 15 for op in range(15))
"""The bit position of each operation code (see the module docstring)."""
ALLOW_BIT = tuple(1 << position for position in POSITION)
"""The bit of an ALLOW ACL, by operation code."""
DENY_BIT = tuple(1 << (position + DENY_SHIFT) for position in POSITION)
"""The bit of a DENY ACL, by operation code."""


def _mask(operations: Iterable[int], bit: tuple[int, ...]) -> int:
    mask = 0
    for op in operations:
        mask |= bit[op]
    return mask


MASKS: dict[AclOperation, tuple[int, int]] = {
    op: (_mask(DENY_OPS[op], DENY_BIT), _mask(ALLOW_OPS[op], ALLOW_BIT)) for op in AclOperation
}
"""For a requested operation, (the bits that deny it, the bits that allow it). Read-only: a plain
dict because the hot path probes it."""

REQUEST_MASKS: dict[AclOperation, tuple[int, int]] = {
    op: masks for op, masks in MASKS.items() if op != AclOperation.ANY
}
""":data:`MASKS` without ANY, so that the authorize fast path's one probe also rejects ANY."""


ON_RESOURCE = ALLOW_BIT[AclOperation.ANY]
"""The bit :func:`aclog.authorizer.decide.request_bits` sets when some ACL is on the resource: the
ALLOW bit of operation ANY (bit 0), which no request may ask for, so no mask of a valid request
holds it; a low bit keeps the usual results below 256, ints CPython never allocates."""


_OPERATION_BITS = tuple((op, ALLOW_BIT[op], DENY_BIT[op]) for op in AclOperation)


Globby = tuple[tuple[Matcher, Matcher, int], ...]
"""(principal matcher, host matcher, bits) per distinct (principal, host) text of glob ACLs."""
Hosted = dict[str, dict[str | None, int]]
"""Canonical host -> principal (``None``: any principal) -> bits of the ACLs for that host."""
Groups = dict[tuple[object, ...], tuple[AccessControlEntryRecord, ...]]


class Extra:
    """Represents the rarely present part of :class:`Rules`: host-specific and glob ACLs."""

    __slots__ = ("globby", "hosted")

    def __init__(
        self,
        hosted: Hosted,
        globby: Globby,
    ) -> None:
        self.hosted = hosted
        self.globby = globby


class Rules(dict[str, int]):
    """Represents the ACLs of one resource pattern (see the module docstring). Immutable once
    built.

    The object is itself the ``exact`` map (principal text -> bits), so that the hot path reads
    one object and its table, not an object, a dict and its table: among a million patterns each
    object read is a likely cache and TLB miss. Compared and hashed by identity, like any pattern's
    rules; :attr:`exact` gives the entries as a plain dict. :func:`build` fills one in place;
    :func:`rules_of` makes one from parts.
    """

    __slots__ = ("acls", "extra", "groups", "wild")

    acls: tuple[AccessControlEntryRecord, ...]
    wild: int
    extra: Extra | None
    groups: Groups | None

    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__  # type: ignore[assignment]

    def __bool__(self) -> bool:
        return True  # a pattern's rules are never "empty", even with no exact entry

    @property
    def exact(self) -> dict[str, int]:
        """Principal text -> bits of the ACLs for that principal from any host (a copy)."""
        return dict(self)


def rules_of(
    acls: tuple[AccessControlEntryRecord, ...],
    exact: dict[str, int],
    wild: int,
    extra: Extra | None,
    groups: Groups | None = None,
) -> Rules:
    """The :class:`Rules` with these parts (``exact`` is copied)."""
    rules = Rules(exact)
    rules.acls, rules.wild, rules.extra, rules.groups = acls, wild, extra, groups
    return rules


def operation_bit(acl: AccessControlEntryRecord) -> int:
    """The bit ``acl`` contributes: its operation, shifted for a DENY; 0 for other permissions."""
    return permission_bit(acl.permission_type, acl.operation)


def permission_bit(permission: AclPermissionType, operation: AclOperation) -> int:
    """The bit of an ACL of ``permission`` for ``operation`` (see :func:`operation_bit`)."""
    if permission == _ALLOW:
        return ALLOW_BIT[operation]
    if permission == _DENY:
        return DENY_BIT[operation]
    return 0


def build(acls: tuple[AccessControlEntryRecord, ...]) -> Rules:
    """The rules of ``acls``, which must be non-empty and share one resource pattern; without
    ``groups`` (:func:`aclog.authorizer.grouped.build_rules` adds them for big patterns).

    The loop runs once per ACL of a bulk load, so it inlines the common case (a LITERAL or
    PREFIXED ACL from any host: its principal is exact text or the wildcard) and leaves the
    others to :func:`_add_others`."""
    exact = Rules()  # filled in place: the rules are their own exact map
    wild = 0
    others: list[AccessControlEntryRecord] = []
    allow_bit, deny_bit = ALLOW_BIT, DENY_BIT
    if acls[0].pattern_type == _GLOB:
        others = list(acls)
    else:
        for acl in acls:
            if acl.host != WILDCARD_HOST:
                others.append(acl)
                continue
            permission = acl.permission_type
            if permission == _ALLOW:
                bit = allow_bit[acl.operation]
            elif permission == _DENY:
                bit = deny_bit[acl.operation]
            else:
                continue  # on the resource, but never matches
            principal = acl.principal
            if principal == WILDCARD_PRINCIPAL:
                wild |= bit
            else:
                exact[principal] = exact.get(principal, 0) | bit
    extra = None
    if others:
        wild, extra = _add_others(others, exact, wild)
    exact.acls, exact.wild, exact.extra, exact.groups = acls, wild, extra, None
    return exact


def _add_others(
    acls: list[AccessControlEntryRecord], exact: dict[str, int], wild: int
) -> tuple[int, Extra | None]:
    """Fold host-specific and GLOB ACLs into ``exact`` (changed in place), ``wild`` (returned)
    and a new :class:`Extra`."""
    hosted: Hosted = {}
    globby: dict[tuple[str, str], tuple[Matcher, Matcher, int]] = {}
    for acl in acls:
        bit = operation_bit(acl)
        if not bit:
            continue
        is_glob = acl.pattern_type == _GLOB
        who, where = principal_matcher(acl.principal, is_glob), host_matcher(acl.host, is_glob)
        if where is None and not isinstance(who, Glob):
            if who is None:
                wild |= bit
            else:
                exact[who] = exact.get(who, 0) | bit
        elif isinstance(where, str) and not isinstance(who, Glob):
            by_principal = hosted.setdefault(where, {})
            by_principal[who] = by_principal.get(who, 0) | bit
        else:
            texts = (acl.principal, acl.host)
            old = globby.get(texts, (who, where, 0))[2]
            globby[texts] = (who, where, old | bit)
    return wild, extra_of(hosted, tuple(globby.values()))


def extra_of(hosted: Hosted, globby: Globby) -> Extra | None:
    """The :class:`Extra` of these entries, or ``None`` when there are none."""
    return Extra(hosted, globby) if hosted or globby else None


def extra_bits(extra: Extra, principal: str, host: str) -> int:
    """The bits of the host-specific and glob ACLs that cover ``principal`` from ``host``."""
    bits = 0
    by_principal = extra.hosted.get(host)
    if by_principal is not None:
        bits = by_principal.get(principal, 0) | by_principal.get(None, 0)
    for who, where, bit in extra.globby:
        if field_matches(who, principal) and field_matches(where, host):
            bits |= bit
    return bits


def rules_bits(rules: Rules, principal: str, host: str) -> int:
    """The bits of the ACLs of ``rules`` that cover ``principal`` from ``host`` (canonical)."""
    bits = rules.get(principal, 0) | rules.wild
    if rules.extra is not None:
        bits |= extra_bits(rules.extra, principal, host)
    return bits


def operations_of(bits: int) -> tuple[set[AclOperation], set[AclOperation]]:
    """The operations of the ALLOW bits and of the DENY bits in ``bits``."""
    allowed = {op for op, allow, _ in _OPERATION_BITS if bits & allow}
    denied = {op for op, _, deny in _OPERATION_BITS if bits & deny}
    return allowed, denied


def candidates(rules: Rules, principal: str, host: str) -> list[AccessControlEntryRecord]:
    """The ACLs of ``rules`` that cover ``principal`` from ``host``, whatever their operation
    and permission. O(ACLs of the pattern), with :func:`covers` inlined for LITERAL and
    PREFIXED ACLs (exact principal or ``User:*``, host ``*`` or equal once canonical)."""
    acls = rules.acls
    if acls[0].pattern_type == _GLOB:
        return [acl for acl in acls if covers(acl, principal, host)]
    return [
        acl
        for acl in acls
        if acl.principal in (principal, WILDCARD_PRINCIPAL)
        and (acl.host == WILDCARD_HOST or canonical_host(acl.host) == host)
    ]


class Seen(dict[str, int]):
    """Represents what the memo knows of one name (:mod:`aclog.authorizer.memo`): principal ->
    bits, the applicable ``rules`` and their ``extras``. One object, so that a remembered name
    and principal read one dict and its table."""

    __slots__ = ("extras", "rules")

    rules: tuple[Rules, ...]
    extras: tuple[Extra, ...]
