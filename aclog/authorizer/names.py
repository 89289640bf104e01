"""The ACLs of one resource type, indexed by resource pattern so that a name is answered with a
few hash probes instead of a walk.

Where each ACL's :class:`Rules` live (one ``Rules`` per distinct pattern):

- LITERAL ``*``: ``wildcard``, beside everything; it applies to every name, including names that
  start with ``*`` (a deliberate fix of Kafka's scan quirk);
- other LITERAL names: ``literal``, keyed by the name: one probe with the requested name;
- PREFIXED prefixes: ``prefixes``, keyed by the prefix: the prefix's :class:`Rules` themselves,
  or a :class:`PrefixSlot` when GLOBs start with that prefix (:func:`slot_parts`). A request
  probes one slice ``name[:k]`` per distinct prefix length ``k`` whose prefixes may end with
  ``name[k - 1]`` (``prefixes.probes``), so its cost follows the number of distinct prefix
  lengths, not the number of ACLs, and a length costs little when the name cannot match there;
- GLOB patterns with a literal prefix: in the slot of that prefix (``globs``), tested only for
  names that start with it;
- GLOB patterns that start with a wildcard but end with a literal suffix (``*.dlq``):
  ``suffixes``, keyed by the suffix, probed with ``name[-k:]`` per distinct suffix length (the
  same way: only where ``name[-k]`` starts a stored suffix; stored suffixes are never empty);
- GLOB patterns with neither (``*a*``, ``?*``): ``rest``, tested for every name.

Every map is a :class:`ShardedMap`: copy-on-write by shard. A writer holds a transaction token and
calls :meth:`NameIndex.owned`, then :meth:`NameIndex.apply` with the whole batch; published
indexes are never changed again.

A published index also remembers, in ``memo`` and ``once``, what applies to the last names asked
(their rules, and each principal's bits; :mod:`aclog.authorizer.memo`); they start empty with
every new index, so a change never leaves a stale entry.

Thread-safe for readers (the memo is the one thing they write; see its module).
:meth:`NameIndex.applicable` costs one probe per distinct prefix length and
per distinct suffix length up to ``len(name)`` whose edge character the name has, plus one GLOB
match per GLOB pattern in the slots found and in ``rest``.
:meth:`NameIndex.apply` is O(ACLs of the changed patterns + touched shards).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from typing import cast

from aclog.acl.glob import Glob, compile_glob
from aclog.acl.matchers import WILDCARD_RESOURCE
from aclog.authorizer.glob_slots import (
    GlobChange,
    Globs,
    PrefixSlot,
    Slot,
    filed_globs,
    glob_key,
    matching_globs,
    merged_globs,
    slot_parts,
)
from aclog.authorizer.grouped import Grouped, Records, build_rules, edited
from aclog.authorizer.rules import Rules, Seen
from aclog.authorizer.shards import ShardedMap
from aclog.records.enums import PatternType

LITERAL = PatternType.LITERAL
PREFIXED = PatternType.PREFIXED
GLOB = PatternType.GLOB


class NameIndex:
    """Represents the ACLs of one resource type (see the module docstring).

    Immutable once published; thread-safe for readers.
    """

    __slots__ = (
        "literal",
        "memo",
        "once",
        "owner",
        "prefixes",
        "rest",
        "size",
        "suffixes",
        "unprefixed",
        "wildcard",
    )

    def __init__(self, owner: object) -> None:
        self.owner = owner
        self.wildcard: Rules | None = None
        self.literal: ShardedMap[Rules] = ShardedMap(owner)
        self.prefixes: ShardedMap[Slot] = ShardedMap(owner, edge=-1)
        self.suffixes: ShardedMap[Globs] = ShardedMap(owner, edge=0)
        self.rest: Globs = ()
        self.unprefixed = False  # some GLOB without a literal prefix: suffixes or rest
        self.size = 0
        self.memo: dict[str, Seen] = {}  # see aclog.authorizer.memo
        self.once: dict[str, list[Rules]] = {}  # names seen once, with their rules

    def owned(self, token: object) -> NameIndex:
        """This index if ``token`` owns it, else a copy owned by ``token``. O(1): the copy
        shares the maps until :meth:`apply` changes one."""
        if self.owner is token:
            return self
        copy = NameIndex.__new__(NameIndex)
        copy.owner = token
        copy.wildcard, copy.rest, copy.size = self.wildcard, self.rest, self.size
        copy.unprefixed = self.unprefixed
        copy.memo = {}  # the copy will change: nothing remembered of this index applies to it
        copy.once = {}
        copy.literal, copy.prefixes, copy.suffixes = self.literal, self.prefixes, self.suffixes
        return copy

    # -- reading ----------------------------------------------------------------------------

    def applicable(self, name: str) -> Iterator[tuple[PatternType, int, Rules]]:
        """Every (pattern type, name characters skipped, rules) whose pattern applies to
        ``name``, in no particular order (see the module docstring for the cost)."""
        n = len(name)
        if self.wildcard is not None:
            yield LITERAL, 0 if name == WILDCARD_RESOURCE else n, self.wildcard
        found = self.literal.get(name)
        if found is not None:
            yield LITERAL, 0, found
        for size, ends in self.prefixes.probes:
            if size > n:
                break
            if size and name[size - 1] not in ends:
                continue
            slot = self.prefixes.get(name[:size])
            if slot is not None:
                prefixed, globs = slot_parts(slot)
                if prefixed is not None:
                    yield PREFIXED, n - size, prefixed
                yield from matching_globs(globs or (), name)
        if self.unprefixed:
            yield from self.glob_suffix_and_rest(name)

    def glob_suffix_and_rest(self, name: str) -> Iterator[tuple[PatternType, int, Rules]]:
        """The part of :meth:`applicable` for the GLOBs without a literal prefix: those filed
        under a suffix of ``name``, and ``rest``."""
        n = len(name)
        for size, starts in self.suffixes.probes:
            if size > n:
                break
            if name[n - size] not in starts:
                continue
            yield from matching_globs(self.suffixes.get(name[n - size :]) or (), name)
        yield from matching_globs(self.rest, name)

    def containers(self) -> Iterator[tuple[PatternType, Rules]]:
        """Every pattern's rules with its pattern type. O(patterns)."""
        if self.wildcard is not None:
            yield LITERAL, self.wildcard
        for found in self.literal.values():
            yield LITERAL, found
        for slot in self.prefixes.values():
            prefixed, globs = slot_parts(slot)
            if prefixed is not None:
                yield PREFIXED, prefixed
            for _, found in globs or ():
                yield GLOB, found
        for group in self.suffixes.values():
            for _, found in group:
                yield GLOB, found
        for _, found in self.rest:
            yield GLOB, found

    def exact(self, pattern_type: PatternType, pattern: str) -> Rules | None:
        """The rules of exactly (``pattern_type``, ``pattern``), or ``None``. A GLOB pattern must
        be valid."""
        if pattern_type == LITERAL:
            return self.wildcard if pattern == WILDCARD_RESOURCE else self.literal.get(pattern)
        if pattern_type == PREFIXED:
            slot = self.prefixes.get(pattern)
            return None if slot is None else slot_parts(slot)[0]
        if pattern_type != GLOB:
            return None
        for glob, found in self._globs_at(compile_glob(pattern)):
            if glob.pattern == pattern:
                return found
        return None

    def _globs_at(self, glob: Glob) -> Globs:
        where, key = glob_key(glob)
        if where == "prefix":
            slot = self.prefixes.get(key)
            return () if slot is None else slot_parts(slot)[1] or ()
        if where == "suffix":
            return self.suffixes.get(key) or ()
        return self.rest

    # -- writing (owned index only) ---------------------------------------------------------

    def apply(self, added: Grouped[Records], removed: Grouped[Records]) -> None:
        """Apply one batch in place: for each pattern (by pattern type, then pattern), remove the
        ACLs in ``removed`` (matched by id), then add those in ``added``. ``KeyError`` for an
        ACL that pattern does not hold, ``ValueError`` for an invalid GLOB or pattern type."""
        self.memo = {}  # already empty unless the index was read before the change; be sure
        self.once = {}
        bulk = not self.size and not removed  # a load: nothing to look up or remove
        for kind in added.keys() | removed.keys():
            _check_stored(kind)
            adds = added.get(kind, {})
            if bulk:
                self.size += sum(map(len, adds.values()))
                built = {name: build_rules(tuple(acls)) for name, acls in adds.items()}
                self._filed(kind, built, _fresh(kind, added))
            else:
                self._filed(kind, self._edited(kind, adds, removed.get(kind, {})), False)

    def load(self, built: Grouped[Rules], size: int) -> None:
        """File rules built elsewhere (:mod:`aclog.authorizer.table_load`) into this owned, empty
        index as :meth:`apply` files those it builds for a bulk load of ``size`` ACLs."""
        self.size += size
        for kind in built.keys() | ():  # the order of apply's ``added.keys() | removed.keys()``
            _check_stored(kind)
            self._filed(kind, built[kind], _fresh(kind, built))

    def _filed(self, kind: PatternType, changed: Mapping[str, Rules | None], fresh: bool) -> None:
        """File the new rules of patterns of ``kind`` (``None``: the pattern has no ACL left);
        ``fresh``: a bulk load's, into an empty map that no GLOB shares (:meth:`_load`)."""
        if fresh:
            self._load(kind, cast(Mapping[str, Rules], changed))
        elif kind == LITERAL:
            changed = dict(changed)
            if WILDCARD_RESOURCE in changed:
                self.wildcard = changed.pop(WILDCARD_RESOURCE)
            if changed:
                self.literal = self.literal.owned(self.owner)
                self.literal.update(changed)
        elif kind == PREFIXED:
            self._apply_slots(changed, {})
        else:
            self._apply_globs(changed)

    def _load(self, kind: PatternType, built: Mapping[str, Rules]) -> None:
        """File the built rules of LITERAL or PREFIXED patterns (by pattern text) into this
        owned index, whose map of that kind is empty and which holds no GLOB (so each prefix's
        slot is its rules): one fill of the map, not a slot merge per prefix. A bulk load of
        PREFIXED ACLs spent a quarter of its time merging slots that cannot exist yet."""
        if WILDCARD_RESOURCE in built and kind == LITERAL:
            built = dict(built)
            self.wildcard = built.pop(WILDCARD_RESOURCE)
        if kind == PREFIXED:
            self.prefixes = self.prefixes.owned(self.owner)
            self.prefixes.fill(built.items(), len(built))
        else:
            self.literal = self.literal.owned(self.owner)
            self.literal.fill(built.items(), len(built))

    def _edited(
        self, kind: PatternType, adds: Mapping[str, Records], removes: Mapping[str, Records]
    ) -> dict[str, Rules | None]:
        changed: dict[str, Rules | None] = {}
        for name in itertools.chain(adds, (name for name in removes if name not in adds)):
            old = self.exact(kind, name)
            new = edited(old, removes.get(name, ()), adds.get(name, ()))
            self.size += (0 if new is None else len(new.acls)) - (
                0 if old is None else len(old.acls)
            )
            changed[name] = new
        return changed

    def _apply_globs(self, changed: Mapping[str, Rules | None]) -> None:
        slots, suffixes, rest = filed_globs(changed)
        if slots:
            self._apply_slots({}, slots)
        if suffixes:
            self.suffixes = self.suffixes.owned(self.owner)
            self.suffixes.update(
                {k: merged_globs(self.suffixes.get(k), c) for k, c in suffixes.items()}
            )
        self.rest = merged_globs(self.rest, rest) or ()
        self.unprefixed = bool(self.suffixes.size or self.rest)

    def _apply_slots(
        self, prefixed: Mapping[str, Rules | None], globs: Mapping[str, Mapping[str, GlobChange]]
    ) -> None:
        """Replace the PREFIXED rules of the prefixes in ``prefixed`` and the GLOB patterns in
        ``globs`` (by literal prefix, then pattern); drop slots left empty."""
        updates: dict[str, Slot | None] = {}
        for key in prefixed.keys() | globs.keys():
            old = self.prefixes.get(key) if self.prefixes.size else None
            old_prefixed, old_globs = (None, None) if old is None else slot_parts(old)
            new = prefixed.get(key, old_prefixed)
            merged = merged_globs(old_globs, globs.get(key, {}))
            updates[key] = new if merged is None else PrefixSlot(new, merged)
        self.prefixes = self.prefixes.owned(self.owner)
        self.prefixes.update(updates)


def _check_stored(kind: PatternType) -> None:
    if kind not in (LITERAL, PREFIXED, GLOB):  # before any rules are built, as always
        raise ValueError(f"pattern type {kind.name} cannot be stored")


def _fresh(kind: PatternType, added: Grouped[object]) -> bool:
    """Whether a bulk load fills an empty map with ``kind``: no GLOB shares its slots."""
    return kind == LITERAL or (kind == PREFIXED and GLOB not in added)
