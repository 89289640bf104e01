"""What is known of a resource name, remembered per index: the hot path's first probe.

Each published :class:`~aclog.authorizer.names.NameIndex` keeps a ``memo``: resource name -> a
:class:`~aclog.authorizer.names.Seen` entry, a dict with two slots:

- the dict: principal -> the bits (:mod:`aclog.authorizer.rules`) of the ACLs of the name's
  rules that cover the principal from any host, plus :data:`~aclog.authorizer.rules.ON_RESOURCE`
  when there are rules; learnt on the first request of each principal, at most
  :data:`PRINCIPALS_PER_NAME` of them;
- ``rules``: the :class:`~aclog.authorizer.rules.Rules` of every pattern that applies to the
  name (what :meth:`NameIndex.applicable` finds, in its order);
- ``extras``: the :class:`~aclog.authorizer.rules.Extra` (host-specific and glob ACLs) of those
  rules, usually none; they depend on the host, so they are tested on every request.

A broker asks about the same topics for the same principals over and over, so a request for a
known (name, principal) is two probes: the memo, then the entry, a small dict built at first
sight. The big maps and the rules (among a million patterns, each object read is a likely cache
and TLB miss) are read only at the first sight of a name or of a principal on it.

A name gets its entry the second time it is asked; the first time only its rules are kept, in
``once`` (a scan of every topic, as for a metadata request, sees each name once, and an entry
per name would only add allocations and work for the garbage collector), found by the walk that
also gives the bits (:mod:`aclog.authorizer.first_bits`).

The memo is derived data. It starts empty with every new index (``NameIndex.owned`` and
``apply`` reset ``memo`` and ``once``), so a change can never leave a stale entry, and an old
snapshot keeps its own. Each forgets every name at :data:`MEMO_LIMIT` names, like
:data:`~aclog.acl.matchers.CANONICAL`.

Thread-safe: the memo and its entries are the one thing readers write. Each value is computed
from the immutable index, so readers racing on a name or principal store equal values, and each
dict operation is atomic (a race may let an entry exceed its bound by a few principals). A known
(name, principal) costs two probes (plus one per extra); a new principal on a known name one
probe per applicable pattern; a new name the probes of ``NameIndex.applicable`` (its second
sight builds the entry from the rules kept).
"""

from __future__ import annotations

from aclog.authorizer.first_bits import first_bits
from aclog.authorizer.names import NameIndex
from aclog.authorizer.rules import ON_RESOURCE, Extra, Seen, extra_bits

MEMO_LIMIT = 1 << 16
"""Names an index remembers at most (a few hundred bytes each, besides the name)."""
PRINCIPALS_PER_NAME = 5
"""Principals whose bits an entry remembers at most: five fit a dict's smallest table. Further
principals are computed (one probe per applicable pattern) but not stored."""


def first_sight(names: NameIndex, name: str, principal: str, host: str) -> int:
    """The bits of ``principal`` from ``host`` on a name not in ``names.memo``.

    The first time, one walk (:func:`~aclog.authorizer.first_bits.first_bits`) gives the bits
    and the name's rules, which are kept in ``names.once`` (one list, as cheap to keep as can
    be: a scan of every topic sees each name once); the second time, they are taken from there
    and the name gets its :class:`Seen` entry in ``names.memo``, with the principal learnt."""
    once = names.once
    kept = once.pop(name, None)
    if kept is None:
        kept = []
        bits = first_bits(names, name, principal, host, kept)
        if len(once) >= MEMO_LIMIT:
            once.clear()
        once[name] = kept
        return bits
    found = tuple(kept)
    bits = ON_RESOURCE if found else 0
    extras: tuple[Extra, ...] = ()
    for rules in found:
        bits |= rules.get(principal, 0) | rules.wild
        if rules.extra is not None:
            extras += (rules.extra,)
    seen = Seen()
    seen[principal] = bits
    seen.rules, seen.extras = found, extras
    memo = names.memo
    if len(memo) >= MEMO_LIMIT:
        memo.clear()
    memo[name] = seen
    return bits | host_bits(extras, principal, host) if extras else bits


def learn(seen: Seen, principal: str) -> int:
    """The host-free bits of ``principal`` on a remembered name, remembered in the entry while
    it holds fewer than :data:`PRINCIPALS_PER_NAME` principals."""
    found = seen.rules
    bits = ON_RESOURCE if found else 0
    for rules in found:
        bits |= rules.get(principal, 0) | rules.wild
    if len(seen) < PRINCIPALS_PER_NAME:
        seen[principal] = bits
    return bits


def host_bits(extras: tuple[Extra, ...], principal: str, host: str) -> int:
    """The bits of the host-specific and glob ACLs in ``extras`` that cover ``principal`` from
    ``host``; a host no ACL names costs one probe per extra."""
    bits = 0
    for extra in extras:
        if host in extra.hosted or extra.globby:
            bits |= extra_bits(extra, principal, host)
    return bits
