"""The rules that apply to a resource name, remembered per index: the hot path's first probe.

Each published :class:`~aclog.authorizer.names.NameIndex` keeps a ``memo``: resource name ->
the :class:`~aclog.authorizer.rules.Rules` of every pattern that applies to it. A broker asks
about the same topics over and over, so one probe of that small, hot dict replaces the probes of
the big maps (among a million patterns, each object read is a likely cache and TLB miss), the
prefix slices they hash and the GLOB matching; the principal's probe in each rules remains.

The memo is derived data. It starts empty with every new index (``NameIndex.owned`` and
``apply`` reset it), so a change can never leave a stale entry, and an old snapshot keeps its
own. It forgets every name at :data:`MEMO_LIMIT` names, like
:data:`~aclog.authorizer.entries.CANONICAL`.

Thread-safe: the memo is the one thing readers write. Each entry is computed from the immutable
index, so readers racing on a name store equal values, and each dict operation is atomic. A
remembered name costs one probe; a miss costs the probes of ``NameIndex.applicable`` plus
building and storing a tuple.
"""

from __future__ import annotations

from aclog.authorizer.names import NameIndex
from aclog.authorizer.rules import Rules

MEMO_LIMIT = 1 << 16
"""Names an index remembers at most (about 100 bytes each, besides the name)."""


def rules_for(names: NameIndex, name: str) -> tuple[Rules, ...]:
    """The rules of every pattern of ``names`` that applies to ``name``, computed and remembered
    in ``names.memo``; readers look in the memo first and call this on a miss.

    The same patterns, in the same order, as :meth:`NameIndex.applicable` (``check_index``
    verifies it), without pattern types and specificity and without a generator, so that a miss
    costs about what the probes cost."""
    found: list[Rules] = []
    if names.wildcard is not None:
        found.append(names.wildcard)
    literal = names.literal  # ShardedMap.get inlined: a scan of every topic misses every time
    rules = literal.shards[hash(name) >> literal.shift].get(name)
    if rules is not None:
        found.append(rules)
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
        if slot.prefixed is not None:
            found.append(slot.prefixed)
        if slot.globs is not None:
            found.extend(rules for glob, rules in slot.globs if glob.matches(name))
    if names.unprefixed:
        found.extend(rules for _, _, rules in names.glob_suffix_and_rest(name))
    memo = names.memo
    if len(memo) >= MEMO_LIMIT:
        memo.clear()
    memo[name] = result = tuple(found)
    return result
