"""Building and changing the :class:`Rules` of one pattern, incrementally when it is big.

A small pattern (at most :data:`SMALL` ACLs, nearly all of them) is rebuilt whole on a change:
cheaper than any bookkeeping. A big one (Kafka's benchmark puts 255 host-specific ACLs on each
name) also keeps its ACLs in ``groups`` by *destination*: the entry of :class:`Rules` their bits
go to (``("exact", principal)``, ``("wild",)``, ``("hosted", principal or None, host)`` or
``("globby", principal text, host text)``). A change then copies the dicts (C-speed), touches the
groups of the changed ACLs and recomputes only their entries: O(ACLs of the pattern) in C plus
O(changed groups) in Python, instead of O(ACLs of the pattern) in Python.

Pure; thread-safe (the inputs are never changed).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar, cast
from uuid import UUID

from aclog.acl.glob import Glob
from aclog.acl.matchers import (
    WILDCARD_HOST,
    WILDCARD_PRINCIPAL,
    canonical_host,
    host_matcher,
    principal_matcher,
)
from aclog.authorizer.rules import Groups, Hosted, Rules, build, extra_of, operation_bit, rules_of
from aclog.records.enums import PatternType
from aclog.records.types import AccessControlEntryRecord

SMALL = 16
"""The most ACLs a pattern has without ``groups``; a grouped pattern drops them below half."""

Key = tuple[object, ...]
Records = Sequence[AccessControlEntryRecord]
K = TypeVar("K")
T = TypeVar("T")
Grouped = Mapping[PatternType, Mapping[str, T]]
"""Something per pattern, by pattern type then pattern text."""
_WILD: Key = ("wild",)


def build_rules(acls: tuple[AccessControlEntryRecord, ...]) -> Rules:
    """The rules of ``acls`` (non-empty, one pattern), with ``groups`` when they are many."""
    rules = build(acls)
    rules.groups = groups_of(acls)
    return rules


def groups_of(acls: Records) -> Groups | None:
    """The ``groups`` of the rules of ``acls``: by destination when they are more than
    :data:`SMALL`, else ``None``."""
    if len(acls) <= SMALL:
        return None
    grouped: dict[Key, list[AccessControlEntryRecord]] = {}
    for acl in acls:
        grouped.setdefault(destination(acl), []).append(acl)
    return {key: tuple(group) for key, group in grouped.items()}


def destination(acl: AccessControlEntryRecord) -> Key:
    """Which entry of :class:`Rules` the bits of ``acl`` go to (see the module docstring)."""
    if acl.pattern_type != PatternType.GLOB:
        principal = None if acl.principal == WILDCARD_PRINCIPAL else acl.principal
        if acl.host == WILDCARD_HOST:
            return _WILD if principal is None else ("exact", principal)
        return ("hosted", principal, canonical_host(acl.host))
    who, where = principal_matcher(acl.principal, True), host_matcher(acl.host, True)
    if isinstance(who, Glob) or isinstance(where, Glob):
        return ("globby", acl.principal, acl.host)
    if where is None:
        return _WILD if who is None else ("exact", who)
    return ("hosted", who, where)


def edited(old: Rules | None, removed: Records, added: Records) -> Rules | None:
    """``old`` (``None``: no ACL yet) without the ACLs of ``removed`` (matched by id; ``KeyError``
    for one it does not hold) and with ``added``; ``None`` when no ACL is left."""
    if old is None or old.groups is None:
        acls = () if old is None else old.acls
        if removed:
            gone = {acl.id.int for acl in removed}
            kept = tuple(acl for acl in acls if acl.id.int not in gone)
            if len(acls) - len(kept) != len(gone):
                present = {acl.id.int for acl in acls}
                raise KeyError(UUID(int=next(i for i in gone if i not in present)))
            acls = kept
        acls = (*acls, *added)
        return build_rules(acls) if acls else None
    return _regrouped(old, old.groups, removed, added)


def _regrouped(
    old: Rules,
    groups: Groups,
    removed: Records,
    added: Records,
) -> Rules | None:
    groups = groups.copy()
    changed: set[Key] = set()
    for acl in removed:
        key = destination(acl)
        changed.add(key)
        group = groups.get(key, ())
        kept = tuple(a for a in group if a.id.int != acl.id.int)
        if len(kept) == len(group):
            raise KeyError(acl.id)
        if kept:
            groups[key] = kept
        else:
            del groups[key]
    fresh: dict[Key, list[AccessControlEntryRecord]] = {}
    for acl in added:
        fresh.setdefault(destination(acl), []).append(acl)
    for key, more in fresh.items():
        groups[key] = (*groups.get(key, ()), *more)
    acls = tuple(itertools.chain.from_iterable(groups.values()))
    if len(acls) <= SMALL // 2:
        return build(acls) if acls else None
    return _recomputed(old, groups, acls, changed | fresh.keys())


def _recomputed(
    old: Rules, groups: Groups, acls: tuple[AccessControlEntryRecord, ...], changed: set[Key]
) -> Rules:
    """``old``'s entries with those of the ``changed`` destinations recomputed from ``groups``."""
    exact = old.exact.copy()
    wild = old.wild
    hosted: Hosted = {} if old.extra is None else old.extra.hosted.copy()
    globby = () if old.extra is None else old.extra.globby
    for key in changed:
        bits = _bits(groups.get(key, ()))
        kind = key[0]
        if kind == "wild":
            wild = bits
        elif kind == "exact":
            _put(exact, cast(str, key[1]), bits)
        elif kind == "hosted":
            _put_hosted(hosted, cast(str | None, key[1]), cast(str, key[2]), bits)
    if any(key[0] == "globby" for key in changed):
        globby = tuple(
            (
                principal_matcher(cast(str, key[1]), True),
                host_matcher(cast(str, key[2]), True),
                bits,
            )
            for key, group in groups.items()
            if key[0] == "globby" and (bits := _bits(group))
        )
    return rules_of(acls, exact, wild, extra_of(hosted, globby), groups)


def _bits(acls: Iterable[AccessControlEntryRecord]) -> int:
    bits = 0
    for acl in acls:
        bits |= operation_bit(acl)
    return bits


def _put_hosted(hosted: Hosted, principal: str | None, host: str, bits: int) -> None:
    """Set one (host, principal) entry of ``hosted`` (a copy: its inner dicts are shared with the
    published rules, so the one changed is copied first); drop a host left with no entry."""
    by_principal = dict(hosted.get(host, {}))
    _put(by_principal, principal, bits)
    if by_principal:
        hosted[host] = by_principal
    else:
        hosted.pop(host, None)


def _put(entries: dict[K, int], key: K, bits: int) -> None:
    if bits:
        entries[key] = bits
    else:
        entries.pop(key, None)
