"""The nodes of a radix trie and the path operations on them.

A :class:`Node` holds the edge label from its parent, its children keyed by the first character
of their labels, and the ACL containers placed on it. The functions here walk, create, copy and
prune nodes along one key; :mod:`aclog.authorizer.trie` decides what to place where.

Copy-on-write: nodes carry the token of the transaction that created or copied them. Inside a
transaction a node with the transaction's token is changed in place and any other node is copied
first (its child dict too), so a change copies only the nodes on its path.

Immutable once published; thread-safe for readers. Each function is O(len(key)) character
compares plus O(depth) dict operations; copying a node is O(its fan-out).
"""

from __future__ import annotations

from aclog.authorizer.buckets import Container
from aclog.authorizer.glob import Glob


class GlobGroup:
    """Represents the GLOB ACLs that share one pattern. Immutable; thread-safe."""

    __slots__ = ("acls", "glob")

    def __init__(self, glob: Glob, acls: Container) -> None:
        self.glob = glob
        self.acls = acls


class Node:
    """Represents one trie node: the edge label from its parent and the ACLs placed on it.

    Immutable once published (see the module docstring for the transaction rule).
    """

    __slots__ = ("children", "globs", "label", "literal", "owner", "prefixed")

    def __init__(self, label: str, owner: object) -> None:
        self.label = label
        self.owner = owner
        self.children: dict[str, Node] | None = None  # first character of the label -> child
        self.literal: Container | None = None
        self.prefixed: Container | None = None
        self.globs: dict[str, GlobGroup] | None = None  # pattern -> group

    def owned(self, token: object) -> Node:
        """This node if ``token`` owns it, else a copy owned by ``token``. O(fan-out)."""
        if self.owner is token:
            return self
        copy = Node(self.label, token)
        copy.children = None if self.children is None else dict(self.children)
        copy.literal = self.literal
        copy.prefixed = self.prefixed
        copy.globs = None if self.globs is None else dict(self.globs)
        return copy

    def is_bare(self) -> bool:
        """True when no ACL hangs on this node."""
        return self.literal is None and self.prefixed is None and not self.globs


def _common_length(label: str, key: str, pos: int) -> int:
    limit = min(len(label), len(key) - pos)
    i = 0
    while i < limit and label[i] == key[pos + i]:
        i += 1
    return i


def descend(node: Node, key: str, token: object) -> Node:
    """The owned node for ``key`` below the owned ``node``; created (splitting an edge) if
    needed."""
    pos = 0
    while pos < len(key):
        if node.children is None:
            node.children = {}
        first = key[pos]
        child = node.children.get(first)
        if child is None:
            leaf = Node(key[pos:], token)
            node.children[first] = leaf
            return leaf
        label = child.label
        common = len(label) if key.startswith(label, pos) else _common_length(label, key, pos)
        child = child.owned(token)
        if common < len(label):
            middle = Node(label[:common], token)
            child.label = label[common:]
            middle.children = {child.label[0]: child}
            child = middle
        node.children[first] = child
        node = child
        pos += common
    return node


def find(node: Node, key: str) -> Node | None:
    pos = 0
    while pos < len(key):
        child = None if node.children is None else node.children.get(key[pos])
        if child is None or not key.startswith(child.label, pos):
            return None
        pos += len(child.label)
        node = child
    return node


def owned_path(node: Node, key: str, token: object) -> list[Node]:
    """The owned nodes from ``node`` (owned) down to the node of ``key``; ``KeyError`` if none."""
    path = [node]
    pos = 0
    while pos < len(key):
        first = key[pos]
        child = None if node.children is None else node.children.get(first)
        if node.children is None or child is None or not key.startswith(child.label, pos):
            raise KeyError(key)
        child = child.owned(token)
        node.children[first] = child
        path.append(child)
        pos += len(child.label)
        node = child
    return path


def prune(path: list[Node], token: object) -> None:
    """Restore the radix invariant bottom-up after a removal: drop bare leaves and merge bare
    nodes that have a single child into it. The root is kept."""
    for i in range(len(path) - 1, 0, -1):
        node, parent = path[i], path[i - 1]
        if not node.is_bare():
            return
        assert parent.children is not None  # it holds node
        children = node.children
        if not children:
            del parent.children[node.label[0]]
            if not parent.children:
                parent.children = None
            continue
        if len(children) == 1:
            (child,) = children.values()
            child = child.owned(token)
            child.label = node.label + child.label
            parent.children[node.label[0]] = child
        return
