"""Where a GLOB pattern is filed in a :class:`~aclog.authorizer.names.NameIndex`, and the slot
that holds a prefix's PREFIXED rules beside the GLOBs that start with that prefix.

A GLOB with a literal prefix is filed under that prefix (in the prefix's :class:`PrefixSlot`);
one that starts with a wildcard but ends with a literal suffix, under the suffix; any other in
``rest`` (:func:`glob_key`). A prefix without GLOBs holds its :class:`Rules` directly, so a
slot is either (:func:`slot_parts` reads both shapes). A group of GLOBs is a tuple of
(compiled pattern, rules), replaced pattern by pattern (:func:`merged_globs`).

Immutable values once published; thread-safe for readers. :func:`glob_key` and
:func:`slot_parts` are O(1); :func:`matching_globs` costs one GLOB match per GLOB of the group,
:func:`filed_globs` one compile per changed pattern, :func:`merged_globs` O(GLOBs in the group +
changes).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from aclog.acl.glob import Glob, compile_glob
from aclog.authorizer.rules import Rules
from aclog.records.enums import PatternType

GLOB = PatternType.GLOB

GlobRules = tuple[Glob, Rules]
Globs = tuple[GlobRules, ...]
GlobChange = tuple[Glob, Rules | None]
"""A GLOB pattern's new rules (``None``: it has no ACL left), with the compiled pattern."""
GlobGroup = dict[str, GlobChange]
"""GLOB changes by pattern."""
GlobGroups = dict[str, GlobGroup]
"""GLOB changes by where they are filed (a literal prefix or suffix), then by pattern."""


class PrefixSlot:
    """Represents what hangs on one prefix that GLOBs start with: its PREFIXED ACLs (if any) and
    those GLOBs. A prefix without GLOBs holds its :class:`Rules` directly, one object fewer to
    read on the hot path."""

    __slots__ = ("globs", "prefixed")

    def __init__(self, prefixed: Rules | None, globs: Globs) -> None:
        self.prefixed = prefixed
        self.globs = globs


Slot = Rules | PrefixSlot
"""What ``NameIndex.prefixes`` holds for a prefix."""


def slot_parts(slot: Slot) -> tuple[Rules | None, Globs | None]:
    """The PREFIXED rules and the GLOBs of a prefix's slot."""
    if type(slot) is PrefixSlot:
        return slot.prefixed, slot.globs
    return slot, None  # type: ignore[return-value]


def glob_key(glob: Glob) -> tuple[str, str]:
    """Where a GLOB is filed: ``("prefix", p)``, ``("suffix", s)`` or ``("rest", "")``."""
    if glob.literal_prefix:
        return "prefix", glob.literal_prefix
    if glob.literal_suffix:
        return "suffix", glob.literal_suffix
    return "rest", ""


def matching_globs(globs: Globs, name: str) -> Iterator[tuple[PatternType, int, Rules]]:
    """The GLOBs of ``globs`` that match ``name``, as :meth:`NameIndex.applicable
    <aclog.authorizer.names.NameIndex.applicable>` yields them: (GLOB, characters skipped,
    rules)."""
    for glob, found in globs:
        if glob.matches(name):
            yield GLOB, len(name) - glob.literal_count, found


def filed_globs(changed: Mapping[str, Rules | None]) -> tuple[GlobGroups, GlobGroups, GlobGroup]:
    """Changed GLOB patterns (pattern -> new rules) by where they are filed (:func:`glob_key`):
    by literal prefix, by literal suffix, and the rest. ``ValueError`` for an invalid GLOB."""
    slots: GlobGroups = {}
    suffixes: GlobGroups = {}
    rest: GlobGroup = {}
    for pattern, new in changed.items():
        glob = compile_glob(pattern)
        where, key = glob_key(glob)
        if where == "prefix":
            slots.setdefault(key, {})[pattern] = (glob, new)
        elif where == "suffix":
            suffixes.setdefault(key, {})[pattern] = (glob, new)
        else:
            rest[pattern] = (glob, new)
    return slots, suffixes, rest


def merged_globs(old: Globs | None, changes: Mapping[str, GlobChange]) -> Globs | None:
    """``old`` with the GLOB patterns of ``changes`` replaced (``None`` rules: removed)."""
    if not changes:
        return old
    kept = [(glob, found) for glob, found in old or () if glob.pattern not in changes]
    kept += [(glob, found) for glob, found in changes.values() if found is not None]
    return tuple(kept) or None
