"""The ACLs stored on one trie node for one pattern kind: a small tuple, or an indexed bucket.

A container is never empty (an empty one is ``None``). Up to :data:`SMALL` ACLs it is a plain
tuple, scanned linearly: cheapest in memory, and as fast as a dict at that size. Larger, it is an
:class:`AclBucket` keyed by (principal key, host key), so a request probes at most four keys
(``(principal, host)``, ``(principal, *)``, ``(User:*, host)``, ``(User:*, *)``) whatever the
number of ACLs, plus the short list of ACLs whose principal or host is a glob.

Copy-on-write: containers are immutable once published. A writer passes its transaction token;
a bucket created under that token is private to the transaction and is changed in place, any
other is copied first (O(bucket keys)).

Thread-safe for readers. Costs: :func:`candidates` is O(4 probes + matching ACLs + glob ACLs)
for a bucket and O(len) for a tuple; :func:`add`/:func:`remove` are O(SMALL) or O(bucket keys).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeAlias
from uuid import UUID

from aclog.authorizer.entries import IndexedAcl

SMALL = 8
"""The largest container kept as a tuple."""

Key: TypeAlias = tuple[str | None, str | None]


class AclBucket:
    """Represents a large container: ACLs keyed by (principal key, host key), and glob ACLs.

    Immutable once published; see the module docstring for the transaction rule.
    """

    __slots__ = ("exact", "globby", "owner", "size")

    def __init__(self, owner: object) -> None:
        self.exact: dict[Key, tuple[IndexedAcl, ...]] = {}
        self.globby: tuple[IndexedAcl, ...] = ()
        self.owner = owner
        self.size = 0

    def owned(self, token: object) -> AclBucket:
        """This bucket if ``token`` owns it, else a private copy owned by ``token``."""
        if self.owner is token:
            return self
        copy = AclBucket(token)
        copy.exact = dict(self.exact)
        copy.globby = self.globby
        copy.size = self.size
        return copy

    def put(self, entry: IndexedAcl) -> None:
        """Add ``entry`` in place (the bucket must be owned by the caller)."""
        self.size += 1
        if entry.has_glob_fields:
            self.globby = (*self.globby, entry)
            return
        key = (entry.principal_key, entry.host_key)
        self.exact[key] = (*self.exact.get(key, ()), entry)

    def take(self, acl_id: UUID, like: IndexedAcl) -> bool:
        """Remove the ACL ``acl_id`` (whose keys are those of ``like``) in place."""
        if like.has_glob_fields:
            kept = tuple(e for e in self.globby if e.acl.id != acl_id)
            found = len(kept) != len(self.globby)
            self.globby = kept
        else:
            key = (like.principal_key, like.host_key)
            old = self.exact.get(key, ())
            rest = tuple(e for e in old if e.acl.id != acl_id)
            found = len(rest) != len(old)
            if rest:
                self.exact[key] = rest
            elif found:
                del self.exact[key]
        if found:
            self.size -= 1
        return found


Container: TypeAlias = tuple[IndexedAcl, ...] | AclBucket


def add(container: Container | None, entry: IndexedAcl, token: object) -> Container:
    """The container with ``entry`` added."""
    if container is None:
        return (entry,)
    if isinstance(container, tuple):
        if len(container) < SMALL:
            return (*container, entry)
        bucket = AclBucket(token)
        for old in container:
            bucket.put(old)
    else:
        bucket = container.owned(token)
    bucket.put(entry)
    return bucket


def remove(container: Container, entry: IndexedAcl, token: object) -> Container | None:
    """The container without the ACL of ``entry`` (matched by id); ``KeyError`` if absent."""
    acl_id = entry.acl.id
    if isinstance(container, tuple):
        rest = tuple(e for e in container if e.acl.id != acl_id)
        if len(rest) == len(container):
            raise KeyError(acl_id)
        return rest or None
    bucket = container.owned(token)
    if not bucket.take(acl_id, entry):
        raise KeyError(acl_id)
    if bucket.size <= SMALL // 2:
        return tuple(entries(bucket)) or None
    return bucket


def size(container: Container) -> int:
    """How many ACLs ``container`` holds."""
    return len(container) if isinstance(container, tuple) else container.size


def entries(container: Container) -> Iterator[IndexedAcl]:
    """Every ACL in ``container``."""
    if isinstance(container, tuple):
        yield from container
        return
    for group in container.exact.values():
        yield from group
    yield from container.globby


def candidates(container: Container, principal: str, host: str) -> Iterator[IndexedAcl]:
    """The ACLs of ``container`` that cover ``principal`` from ``host`` (canonical text),
    whatever their operation and permission."""
    if isinstance(container, tuple):
        for entry in container:
            if entry.matches(principal, host):
                yield entry
        return
    exact = container.exact
    for key in ((principal, host), (principal, None), (None, host), (None, None)):
        group = exact.get(key)
        if group is not None:
            yield from group
    for entry in container.globby:
        if entry.matches(principal, host):
            yield entry


DENY = 2
ALLOW = 1
NONE = 0


def verdict(
    container: Container,
    principal: str,
    host: str,
    deny_ops: frozenset[int],
    allow_ops: frozenset[int],
) -> int:
    """:data:`DENY` if a DENY ACL of ``container`` matches the request, else :data:`ALLOW` if an
    ALLOW ACL does, else :data:`NONE`. Stops at the first matching DENY."""
    # The hot loop of authorize: the tuple case is inlined rather than using candidates().
    if isinstance(container, tuple):
        result = NONE
        for entry in container:
            key = entry.principal_key  # None for the wildcard and for glob principals
            if key is not None and key != principal:
                continue
            if entry.matches(principal, host):
                if entry.deny:
                    if entry.operation in deny_ops:
                        return DENY
                elif entry.operation in allow_ops:
                    result = ALLOW
        return result
    return _verdict_of(candidates(container, principal, host), deny_ops, allow_ops)


def _verdict_of(
    found: Iterator[IndexedAcl], deny_ops: frozenset[int], allow_ops: frozenset[int]
) -> int:
    result = NONE
    for entry in found:
        if entry.deny:
            if entry.operation in deny_ops:
                return DENY
        elif entry.operation in allow_ops:
            result = ALLOW
    return result
