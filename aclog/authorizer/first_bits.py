"""The bits of a request on a name never seen before, found in one walk of the index.

The fast path of :func:`aclog.authorizer.memo.first_sight`: for a name in neither the memo nor
``once``, the operation bits (:mod:`aclog.authorizer.rules`) of the ACLs on the name that cover
the principal from the host, plus :data:`~aclog.authorizer.rules.ON_RESOURCE` when any ACL is on
the name; and, into a list the caller keeps, the rules of every applicable pattern, in the order
of :meth:`NameIndex.applicable <aclog.authorizer.names.NameIndex.applicable>`. Its reference is
:func:`reference_bits`: :func:`~aclog.authorizer.rules.rules_bits` over every pattern
``applicable`` finds (a contract test holds the two equal, rules and bits).

Why a walk of its own: the first sight of a name used to collect the applicable rules, loop over
them again for the bits, collect the host-specific parts into a tuple and test them in a third
call. Here each pattern's rules are folded into the bits where the probe finds them, and the
rare host-specific or glob part (``rules.extra``) is tested on the spot.

Thread-safe (reads an immutable index; appends to the caller's list). The probes of
``NameIndex.applicable``: one for the LITERAL name, one per distinct prefix length (and GLOB
suffix length) up to ``len(name)`` whose edge character the name has, one GLOB match per
candidate GLOB; plus one principal probe per pattern found.
"""

from __future__ import annotations

from aclog.authorizer.glob_slots import PrefixSlot
from aclog.authorizer.names import NameIndex
from aclog.authorizer.rules import ON_RESOURCE, Rules, extra_bits, rules_bits


def first_bits(names: NameIndex, name: str, principal: str, host: str, found: list[Rules]) -> int:
    """The bits of ``principal`` from ``host`` (canonical) on ``name``; the applicable rules
    are appended to ``found`` (see the module docstring). Equal to :func:`reference_bits`."""
    bits = 0
    wildcard = names.wildcard
    if wildcard is not None:  # _folded inlined: a call costs as much as the probes here
        found.append(wildcard)
        bits = wildcard.get(principal, 0) | wildcard.wild | ON_RESOURCE
        extra = wildcard.extra
        if extra is not None and (host in extra.hosted or extra.globby):
            bits |= extra_bits(extra, principal, host)
    literal = names.literal  # ShardedMap.get inlined, as in every probe below
    rules = literal.shards[hash(name) >> literal.shift].get(name)
    if rules is not None:
        found.append(rules)
        if rules.extra is None:  # _folded inlined: the usual LITERAL name has no extra
            bits |= rules.get(principal, 0) | rules.wild | ON_RESOURCE
        else:
            bits |= _folded(rules, principal, host)
    n = len(name)
    prefixes = names.prefixes
    shards, shift = prefixes.shards, prefixes.shift
    for size, ends in prefixes.probes:
        if size > n:
            break
        if size and name[size - 1] not in ends:
            continue  # no prefix of this length ends with that character
        key = name[:size]
        slot = shards[hash(key) >> shift].get(key)
        if slot is None:
            continue
        if type(slot) is PrefixSlot:
            bits |= _slot_bits(slot, name, principal, host, found)
            continue
        found.append(slot)  # type: ignore[arg-type]  # a slot without GLOBs: the rules
        if slot.extra is None:  # type: ignore[union-attr]
            bits |= slot.get(principal, 0) | slot.wild | ON_RESOURCE  # type: ignore[union-attr]
        else:
            bits |= _folded(slot, principal, host)  # type: ignore[arg-type]
    if names.unprefixed:
        for _, _, globbed in names.glob_suffix_and_rest(name):
            found.append(globbed)
            bits |= _folded(globbed, principal, host)
    return bits


def _folded(rules: Rules, principal: str, host: str) -> int:
    """The bits of one pattern's rules, with :data:`ON_RESOURCE`."""
    bits = rules.get(principal, 0) | rules.wild | ON_RESOURCE
    extra = rules.extra
    if extra is not None and (host in extra.hosted or extra.globby):
        bits |= extra_bits(extra, principal, host)
    return bits


def _slot_bits(slot: PrefixSlot, name: str, principal: str, host: str, found: list[Rules]) -> int:
    """The bits of a prefix's PREFIXED rules and of its GLOBs that match ``name``."""
    bits = 0
    if slot.prefixed is not None:
        found.append(slot.prefixed)
        bits = _folded(slot.prefixed, principal, host)
    for glob, globbed in slot.globs:
        if glob.matches(name):
            found.append(globbed)
            bits |= _folded(globbed, principal, host)
    return bits


def reference_bits(names: NameIndex, name: str, principal: str, host: str) -> int:
    """:func:`first_bits` as the definitions say it: every applicable pattern's
    :func:`rules_bits`, and :data:`ON_RESOURCE` when there is one."""
    bits = 0
    for _, _, found in names.applicable(name):
        bits |= rules_bits(found, principal, host) | ON_RESOURCE
    return bits
