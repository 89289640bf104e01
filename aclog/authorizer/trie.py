"""A path-compressed (radix) trie of the ACLs of one resource type, keyed by resource name.

The layout KIP-1042 proposes, with GLOB placed by its literal prefix:

- a PREFIXED ACL hangs on the node of its prefix, a LITERAL ACL on the node of its full name
  (its ``literal`` container is the "end" marker): one walk down a requested name finds every
  LITERAL and PREFIXED ACL that applies to it;
- a GLOB ACL hangs on the node of its pattern's literal prefix (the text before the first
  wildcard), grouped by pattern, so the walk tests only the GLOBs whose literal prefix is a prefix
  of the name. GLOBs that start with a wildcard live on the root and are tested for every name;
- LITERAL ``*`` ACLs live beside the trie and apply to every name, including names that start
  with ``*`` (a deliberate fix of Kafka's scan quirk).

Nodes are copy-on-write. A writer holds a transaction token; nodes it creates or copies carry
that token and are changed in place, all others are copied before a change (path copying). A
single change therefore copies O(depth) nodes and their child dicts, and a bulk load copies
nothing. Published tries are never changed again.

Thread-safe for readers. :meth:`NameTrie.applicable` costs O(len(name)) character compares plus
one dict probe per node on the path, plus one GLOB match per GLOB pattern on those nodes.
"""

from __future__ import annotations

from collections.abc import Iterator

from aclog.authorizer import buckets
from aclog.authorizer.buckets import Container
from aclog.authorizer.entries import WILDCARD_RESOURCE, IndexedAcl
from aclog.authorizer.glob import compile_glob
from aclog.authorizer.nodes import GlobGroup, Node, descend, find, owned_path, prune
from aclog.records.enums import PatternType

LITERAL = PatternType.LITERAL
PREFIXED = PatternType.PREFIXED
GLOB = PatternType.GLOB


Match = tuple[PatternType, int, Container]
"""A container that applies to a name: its pattern type, the name characters the pattern skips
(0 for an exact LITERAL; see DESIGN.md §3 "Specificity") and the ACLs."""


class NameTrie:
    """Represents the ACLs of one resource type, indexed by resource name.

    Immutable once published; thread-safe for readers. Writers call :meth:`owned` with their
    transaction token, then :meth:`insert`/:meth:`delete` on the result.
    """

    __slots__ = ("owner", "root", "size", "wildcard")

    def __init__(self, owner: object) -> None:
        self.owner = owner
        self.root = Node("", owner)
        self.wildcard: Container | None = None
        self.size = 0

    def owned(self, token: object) -> NameTrie:
        """This trie if ``token`` owns it, else a shallow copy owned by ``token``. O(1)."""
        if self.owner is token:
            return self
        copy = NameTrie(token)
        copy.root = self.root.owned(token)
        copy.wildcard = self.wildcard
        copy.size = self.size
        return copy

    def applicable(self, name: str) -> Iterator[Match]:
        """Every non-empty container whose pattern applies to ``name``, in no particular order.

        O(len(name)) plus one GLOB match per GLOB pattern whose literal prefix prefixes ``name``.
        """
        n = len(name)
        if self.wildcard is not None:
            yield LITERAL, 0 if name == WILDCARD_RESOURCE else n, self.wildcard
        node, pos = self.root, 0
        while True:
            if node.prefixed is not None:
                yield PREFIXED, n - pos, node.prefixed
            if node.globs is not None:
                for group in node.globs.values():
                    if group.glob.matches(name):
                        yield GLOB, n - group.glob.literal_count, group.acls
            if pos == n:
                if node.literal is not None:
                    yield LITERAL, 0, node.literal
                return
            children = node.children
            child = None if children is None else children.get(name[pos])
            if child is None or not name.startswith(child.label, pos):
                return
            pos += len(child.label)
            node = child

    def containers(self) -> Iterator[tuple[PatternType, Container]]:
        """Every container of the trie with its pattern type. O(nodes)."""
        if self.wildcard is not None:
            yield LITERAL, self.wildcard
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node.literal is not None:
                yield LITERAL, node.literal
            if node.prefixed is not None:
                yield PREFIXED, node.prefixed
            if node.globs is not None:
                for group in node.globs.values():
                    yield GLOB, group.acls
            if node.children is not None:
                stack.extend(node.children.values())

    def exact(self, pattern_type: PatternType, pattern: str) -> Container | None:
        """The ACLs whose resource pattern is exactly (``pattern_type``, ``pattern``)."""
        if pattern_type == LITERAL and pattern == WILDCARD_RESOURCE:
            return self.wildcard
        key = pattern
        if pattern_type == GLOB:
            key = compile_glob(pattern).literal_prefix
        node = find(self.root, key)
        if node is None:
            return None
        if pattern_type == LITERAL:
            return node.literal
        if pattern_type == PREFIXED:
            return node.prefixed
        group = None if node.globs is None else node.globs.get(pattern)
        return None if group is None else group.acls

    def insert(self, entry: IndexedAcl, token: object) -> None:
        """Add ``entry`` in place (the trie must be owned by ``token``). O(depth + container)."""
        acl = entry.acl
        kind, name = acl.pattern_type, acl.resource_name
        if kind == LITERAL and name == WILDCARD_RESOURCE:
            self.wildcard = buckets.add(self.wildcard, entry, token)
        elif kind in (LITERAL, PREFIXED):
            node = descend(self.root, name, token)
            if kind == LITERAL:
                node.literal = buckets.add(node.literal, entry, token)
            else:
                node.prefixed = buckets.add(node.prefixed, entry, token)
        elif kind == GLOB:
            glob = compile_glob(name)
            node = descend(self.root, glob.literal_prefix, token)
            globs = node.globs if node.globs is not None else {}
            old = globs.get(name)
            globs[name] = GlobGroup(
                glob, buckets.add(None if old is None else old.acls, entry, token)
            )
            node.globs = globs
        else:
            raise ValueError(f"ACL {acl.id} has pattern type {kind.name}; it cannot be stored")
        self.size += 1

    def delete(self, entry: IndexedAcl, token: object) -> None:
        """Remove ``entry``'s ACL in place (owned trie); ``KeyError`` if it is not stored."""
        acl = entry.acl
        kind, name = acl.pattern_type, acl.resource_name
        if kind == LITERAL and name == WILDCARD_RESOURCE:
            if self.wildcard is None:
                raise KeyError(acl.id)
            self.wildcard = buckets.remove(self.wildcard, entry, token)
        else:
            key = compile_glob(name).literal_prefix if kind == GLOB else name
            path = owned_path(self.root, key, token)
            _remove_from(path[-1], entry, token)
            prune(path, token)
        self.size -= 1


def _remove_from(node: Node, entry: IndexedAcl, token: object) -> None:
    acl = entry.acl
    if acl.pattern_type == LITERAL:
        if node.literal is None:
            raise KeyError(acl.id)
        node.literal = buckets.remove(node.literal, entry, token)
    elif acl.pattern_type == PREFIXED:
        if node.prefixed is None:
            raise KeyError(acl.id)
        node.prefixed = buckets.remove(node.prefixed, entry, token)
    else:
        group = None if node.globs is None else node.globs.get(acl.resource_name)
        if node.globs is None or group is None:
            raise KeyError(acl.id)
        rest = buckets.remove(group.acls, entry, token)
        if rest is None:
            del node.globs[acl.resource_name]
            if not node.globs:
                node.globs = None
        else:
            node.globs[acl.resource_name] = GlobGroup(group.glob, rest)
