"""An immutable snapshot of every stored ACL, indexed for authorization: one trie per type.

:class:`AclIndex` is what the authorizer publishes to its readers. A change never touches a
published index: :meth:`AclIndex.changed` runs one transaction that path-copies the nodes it
changes and returns a new index, so readers holding the old one see it whole.

Immutable; thread-safe. :meth:`AclIndex.changed` costs O(depth + container size) per ACL and
never O(total ACLs); :meth:`AclIndex.build` is O(total name length).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType

from aclog.authorizer import buckets
from aclog.authorizer.buckets import Container
from aclog.authorizer.entries import IndexedAcl
from aclog.authorizer.filters import AclFilter
from aclog.authorizer.glob import GlobSyntaxError, compile_glob
from aclog.authorizer.trie import NameTrie
from aclog.records.enums import PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord


class AclIndex:
    """Represents a set of stored ACLs, indexed by resource type and resource name.

    Immutable; thread-safe. ``len`` is O(1); iteration is O(nodes).
    """

    __slots__ = ("_size", "_tries")

    EMPTY: AclIndex

    def __init__(self, tries: Mapping[ResourceType, NameTrie], size: int) -> None:
        self._tries = MappingProxyType(dict(tries))
        self._size = size

    @classmethod
    def build(cls, acls: Iterable[AccessControlEntryRecord]) -> AclIndex:
        """An index of ``acls`` (ids must be distinct; the caller checks)."""
        return cls.EMPTY.changed(adds=acls, removes=())

    def changed(
        self,
        adds: Iterable[AccessControlEntryRecord],
        removes: Iterable[AccessControlEntryRecord],
    ) -> AclIndex:
        """A new index: this one with ``removes`` (stored records) taken out, then ``adds`` put
        in. Raises ``KeyError`` for a removal that is not stored and ``ValueError`` for an ACL
        that cannot be indexed (an invalid GLOB pattern); this index is unchanged either way."""
        token = object()
        tries = dict(self._tries)
        size = self._size
        for acl in removes:
            trie = tries.get(acl.resource_type)
            if trie is None:
                raise KeyError(acl.id)
            tries[acl.resource_type] = trie = trie.owned(token)
            trie.delete(IndexedAcl(acl), token)
            size -= 1
        for acl in adds:
            trie = tries.get(acl.resource_type)
            trie = NameTrie(token) if trie is None else trie.owned(token)
            tries[acl.resource_type] = trie
            trie.insert(IndexedAcl(acl), token)
            size += 1
        return AclIndex({t: trie for t, trie in tries.items() if trie.size}, size)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[AccessControlEntryRecord]:
        for trie in self._tries.values():
            for _, container in trie.containers():
                for entry in buckets.entries(container):
                    yield entry.acl

    @property
    def resource_types(self) -> frozenset[ResourceType]:
        """The resource types with at least one ACL."""
        return frozenset(self._tries)

    def trie(self, resource_type: ResourceType) -> NameTrie | None:
        """The ACLs of ``resource_type``, or ``None`` when it has none."""
        return self._tries.get(resource_type)

    def select(self, acl_filter: AclFilter) -> list[AccessControlEntryRecord]:
        """The ACLs ``acl_filter`` matches, in no particular order.

        A filter with a name is answered from the tries: MATCH walks the name (every ACL that
        applies to it), a specific or ANY pattern type looks the exact pattern up. A filter
        without a name scans the chosen types. Every candidate is then checked with
        :meth:`AclFilter.matches`, the one definition of filter semantics.
        """
        found: list[AccessControlEntryRecord] = []
        for trie in self._tries_for(acl_filter.resource_type):
            for container in _filter_candidates(trie, acl_filter):
                found.extend(e.acl for e in buckets.entries(container) if acl_filter.matches(e.acl))
        return found

    def _tries_for(self, resource_type: ResourceType) -> list[NameTrie]:
        if resource_type == ResourceType.ANY:
            return list(self._tries.values())
        trie = self._tries.get(resource_type)
        return [] if trie is None else [trie]


AclIndex.EMPTY = AclIndex({}, 0)


def _filter_candidates(trie: NameTrie, acl_filter: AclFilter) -> Iterator[Container]:
    name, wanted = acl_filter.resource_name, acl_filter.pattern_type
    if name is None:
        yield from (container for _, container in trie.containers())
    elif wanted == PatternType.MATCH:
        yield from (container for _, _, container in trie.applicable(name))
    else:
        kinds = (PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB)
        for kind in kinds if wanted == PatternType.ANY else (wanted,):
            if kind == PatternType.GLOB and not _valid_glob(name):
                continue  # no stored GLOB can have an invalid pattern
            if kind in kinds:
                container = trie.exact(kind, name)
                if container is not None:
                    yield container


def _valid_glob(pattern: str) -> bool:
    try:
        compile_glob(pattern)
    except GlobSyntaxError:
        return False
    return True
