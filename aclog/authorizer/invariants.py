"""Structural checks of an :class:`AclIndex`, for tests and debugging.

:func:`check_index` raises ``AssertionError`` naming the first broken invariant:

- every ACL sits where its pattern says (:mod:`aclog.authorizer.names`): LITERAL ``*`` beside the
  maps, other LITERAL names under their name, PREFIXED under their prefix, GLOB under its
  literal prefix, else its literal suffix, else in ``rest``, grouped by pattern;
- each pattern's :class:`Rules` is non-empty and equals a fresh build of its ACLs; it has
  ``groups`` when it holds more than ``SMALL`` ACLs (and only above ``SMALL // 2``), each group
  holding exactly the ACLs of its destination;
- no empty GLOB group or published type; a :class:`PrefixSlot` only where GLOBs start with the
  prefix; sizes add up; ``unprefixed`` says whether
  any GLOB sits in ``suffixes`` or ``rest``; each remembered name maps to exactly the rules that
  apply to it, their extras, and for each remembered principal the bits those rules give it;
- each :class:`ShardedMap` has 2**b shards for its shift, every key in its hash's shard,
  and ``probes`` (with ``lengths``) equal to the distinct key lengths and edge characters
  (none for a map without an edge).

Pure; thread-safe. O(ACLs + patterns).
"""

from __future__ import annotations

from collections.abc import Iterable

from aclog.acl.matchers import WILDCARD_RESOURCE
from aclog.authorizer import grouped
from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.glob_slots import GlobRules, PrefixSlot, glob_key, slot_parts
from aclog.authorizer.grouped import destination
from aclog.authorizer.names import NameIndex
from aclog.authorizer.rules import ON_RESOURCE, Rules, Seen, build
from aclog.authorizer.shards import HASH_BITS, ShardedMap, mark, probes_of
from aclog.records.enums import PatternType, ResourceType

LITERAL, PREFIXED, GLOB = PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB


def _fail(message: str) -> None:
    raise AssertionError(message)


def check_index(index: AclIndex) -> None:
    """Raise ``AssertionError`` if ``index`` breaks an invariant (see the module docstring)."""
    total = 0
    for resource_type in index.resource_types:
        names = index.names(resource_type)
        assert names is not None
        total += _check_names(resource_type, names)
    if total != len(index):
        _fail(f"index size {len(index)} but {total} ACLs stored")


def _check_names(resource_type: ResourceType, names: NameIndex) -> int:
    for table in (names.literal, names.prefixes, names.suffixes):
        _check_map(table)  # type: ignore[arg-type]
    count = 0
    if names.wildcard is not None:
        count += _check_rules(names.wildcard, resource_type, LITERAL, WILDCARD_RESOURCE)
    for name, rules in names.literal.items():
        if name == WILDCARD_RESOURCE:
            _fail("a LITERAL '*' ACL is stored among the names instead of beside them")
        count += _check_rules(rules, resource_type, LITERAL, name)
    for prefix, slot in names.prefixes.items():
        prefixed, globs = slot_parts(slot)
        if isinstance(slot, PrefixSlot) and not slot.globs:
            _fail(f"prefix slot {prefix!r} has no GLOB: its rules belong in the map")
        if prefixed is not None:
            count += _check_rules(prefixed, resource_type, PREFIXED, prefix)
        count += _check_globs(globs or (), resource_type, ("prefix", prefix))
    for suffix, group in names.suffixes.items():
        if not group:
            _fail(f"suffix group {suffix!r} is empty")
        count += _check_globs(group, resource_type, ("suffix", suffix))
    count += _check_globs(names.rest, resource_type, ("rest", ""))
    for name, seen in list(names.memo.items()):
        _check_seen(names, resource_type, name, seen)
    for name, found in list(names.once.items()):
        if tuple(found) != tuple(rules for _, _, rules in names.applicable(name)):
            _fail(f"{resource_type.name} index keeps other rules for {name!r}")
    if names.unprefixed != bool(names.suffixes.size or names.rest):
        _fail(f"{resource_type.name} index says unprefixed={names.unprefixed}")
    if count != names.size:
        _fail(f"{resource_type.name} index size {names.size} but {count} ACLs stored")
    if count == 0:
        _fail(f"{resource_type.name} index is empty but still published")
    return count


def _check_seen(names: NameIndex, resource_type: ResourceType, name: str, seen: Seen) -> None:
    found, extras = seen.rules, seen.extras
    where = f"{resource_type.name} index"
    if found != tuple(rules for _, _, rules in names.applicable(name)):
        _fail(f"{where} remembers other rules for {name!r}")
    if extras != tuple(rules.extra for rules in found if rules.extra is not None):
        _fail(f"{where} remembers other host-specific or glob ACLs for {name!r}")
    for principal, bits in list(seen.items()):
        fresh = ON_RESOURCE if found else 0
        for rules in found:
            fresh |= rules.get(principal, 0) | rules.wild
        if bits != fresh:
            _fail(f"{where} remembers bits {bits} for {principal!r} on {name!r}, not {fresh}")


def _check_globs(
    group: Iterable[GlobRules], resource_type: ResourceType, where: tuple[str, str]
) -> int:
    count = 0
    patterns = set()
    for glob, rules in group:
        if glob_key(glob) != where:
            _fail(f"GLOB {glob.pattern!r} is filed under {where}")
        if glob.pattern in patterns:
            _fail(f"GLOB {glob.pattern!r} appears twice under {where}")
        patterns.add(glob.pattern)
        count += _check_rules(rules, resource_type, GLOB, glob.pattern)
    return count


def _check_rules(rules: Rules, resource_type: ResourceType, kind: PatternType, pattern: str) -> int:
    if not rules.acls:
        _fail(f"empty rules for {kind.name} {pattern!r}")
    for acl in rules.acls:
        if (acl.resource_type, acl.pattern_type, acl.resource_name) != (
            resource_type,
            kind,
            pattern,
        ):
            _fail(f"ACL {acl.id} is stored under {resource_type.name} {kind.name} {pattern!r}")
    fresh = build(rules.acls)
    if (fresh.exact, fresh.wild) != (rules.exact, rules.wild) or _extra(fresh) != _extra(rules):
        _fail(f"the rules of {kind.name} {pattern!r} do not match their ACLs")
    _check_groups(rules, f"{kind.name} {pattern!r}")
    return len(rules.acls)


def _check_groups(rules: Rules, where: str) -> None:
    count = len(rules.acls)
    if rules.groups is None:
        if count > grouped.SMALL:
            _fail(f"the rules of {where} hold {count} ACLs without groups")
        return
    if count <= grouped.SMALL // 2:
        _fail(f"the rules of {where} keep groups for {count} ACLs")
    members = [acl for group in rules.groups.values() for acl in group]
    if sorted(a.id.int for a in members) != sorted(a.id.int for a in rules.acls):
        _fail(f"the groups of {where} do not hold its ACLs")
    for key, group in rules.groups.items():
        if not group or any(destination(acl) != key for acl in group):
            _fail(f"the group {key} of {where} holds ACLs of another destination")


def _extra(rules: Rules) -> object:
    extra = rules.extra
    return None if extra is None else (extra.hosted, set(extra.globby))


def _check_map(table: ShardedMap[object]) -> None:
    count = len(table.shards)
    if count != 1 << (HASH_BITS - table.shift):
        _fail(f"a map has {count} shards and shift {table.shift}")
    marks = set()
    size = 0
    for index, shard in enumerate(table.shards):
        for key in shard:
            if (hash(key) >> table.shift) % count != index:
                _fail(f"key {key!r} is in shard {index} of {count}")
            if table.edge is not None:
                marks.add(mark(key, table.edge))
        size += len(shard)
    if size != table.size or probes_of(marks) != table.probes:
        _fail(f"a map counts {table.size} keys of lengths {table.probes}")
    if table.lengths != tuple(length for length, _ in table.probes):
        _fail(f"a map has lengths {table.lengths} for probes {table.probes}")
